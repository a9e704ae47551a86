import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import SkyframeMQTT
import SkyframePlaces
import SkyframeProviders
import Synchronization

/// The gateway as a service: subscribes to device requests, answers them, keeps named places
/// fresh, says whether it is online, and reloads what it can on SIGHUP.
///
/// `run()` returns only on graceful shutdown (SIGTERM/SIGINT): requests in flight are finished,
/// `{"state":"offline"}` is published retained, and the connection is closed cleanly.
public final class Gateway: Service, Sendable {
  public let configuration: Mutex<GatewayConfiguration>
  let client: MQTTClient
  let desk: WeatherDesk
  let handler: RequestHandler
  let locations: NamedLocationPublisher
  let watches: WatchScheduler
  let httpClient: HTTPClient
  let logger: Logger
  let services: WeatherServices

  static let online = Array(#"{"state":"online"}"#.utf8)
  static let offline = Array(#"{"state":"offline"}"#.utf8)

  /// Builds the gateway from a checked configuration. Nothing connects until `run()`.
  public init(
    configuration: GatewayConfiguration, httpClient: HTTPClient, logger: Logger,
    now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
  ) throws(MQTTError) {
    self.configuration = Mutex(configuration)
    self.httpClient = httpClient
    self.logger = logger
    services = WeatherServices(
      configuration: configuration, httpClient: httpClient, logger: logger, now: now)
    client = try MQTTClient(configuration: configuration.mqttConfiguration, logger: logger)
    desk = WeatherDesk(settings: services.settings(for: configuration), now: now, logger: logger)
    handler = RequestHandler(
      settings: Self.handlerSettings(configuration), desk: desk, sink: client, logger: logger,
      now: now)
    locations = NamedLocationPublisher(
      locations: configuration.locations, handler: handler, topics: configuration.topics,
      logger: logger)
    watches = WatchScheduler(handler: handler, configuration: configuration, logger: logger)
  }

  static func handlerSettings(_ configuration: GatewayConfiguration) -> RequestHandler.Settings {
    RequestHandler.Settings(
      topics: configuration.topics, maximumLocations: configuration.requests.maximumLocations,
      perDevicePerMinute: configuration.requests.perDevicePerMinute)
  }

  /// Applies a reloaded configuration: named places, the weather service, cache and request
  /// limits change at once; MQTT and topic settings need a restart, and the log says so.
  public func apply(_ new: GatewayConfiguration) {
    let old = configuration.withLock { configuration in
      let old = configuration
      configuration.locations = new.locations
      configuration.weather = new.weather
      configuration.openMeteo = new.openMeteo
      configuration.openWeatherMap = new.openWeatherMap
      configuration.weatherAPI = new.weatherAPI
      configuration.places = new.places
      configuration.watches = new.watches
      configuration.cache = new.cache
      configuration.requests = new.requests
      configuration.topics.debugJSON = new.topics.debugJSON
      return old
    }
    if old.mqtt != new.mqtt || old.topics.base != new.topics.base
      || old.topics.responsePrefix != new.topics.responsePrefix
    {
      logger.warning("MQTT and topic settings changed: they take effect after a restart")
    }
    let current = configuration.withLock { $0 }
    desk.update(services.settings(for: current))
    handler.update(Self.handlerSettings(current))
    locations.replace(current.locations)
    watches.update(current)
    logger.info("configuration reloaded", metadata: ["locations": "\(current.locations.count)"])
  }

  public func run() async throws {
    let topics = configuration.withLock { $0.topics }
    try client.subscribe(topics.requests, qos: 1)
    try client.subscribe(topics.watches, qos: 1)
    do {
      try await client.connect(timeout: .seconds(5))
    } catch {
      logger.warning("broker not reachable yet, retrying in the background: \(error)")
    }

    let scheduler = Task { try? await locations.run() }
    let watching = Task { await watches.run() }
    await withDiscardingTaskGroup { group in
      for await event in client.events.cancelOnGracefulShutdown() {
        switch event {
        case .connected(let sessionPresent):
          logger.info("connected to the broker", metadata: ["session-present": "\(sessionPresent)"])
          do {
            try client.publish(topics.state, payload: Self.online, qos: 1, retain: true)
          } catch {
            logger.error("could not publish the online state: \(error)")
          }
          locations.publishAllSoon()
        case .disconnected(let code):
          logger.warning(
            "disconnected from the broker, reconnecting", metadata: ["code": "\(code)"])
        case .message(let message):
          if topics.device(inWatchTopic: message.topic) != nil {
            watches.receive(message)
          } else {
            group.addTask { await self.handler.handle(message) }
          }
        }
      }
      // Graceful shutdown: no new requests; the group waits for those in flight.
    }
    scheduler.cancel()
    watching.cancel()
    await scheduler.value
    await watching.value
    try? client.publish(topics.state, payload: Self.offline, qos: 1, retain: true)
    await client.disconnect()
    logger.info("gateway stopped")
  }
}
