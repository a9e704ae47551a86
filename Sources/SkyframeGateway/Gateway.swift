import AsyncHTTPClient
import Foundation
import Logging
import ServiceLifecycle
import SkyframeMQTT
import SkyframePlaces
import SkyframeProviders
import Synchronization

/// The gateway's MQTT connection as a service, and the parts it feeds. Messages are routed on the
/// network thread as they arrive: a request is answered there when the cache has it, otherwise
/// queued for the workers; a watch goes to the watch scheduler.
///
/// `run()` returns only on graceful shutdown (SIGTERM/SIGINT). It is the first of the gateway's
/// services, so it stops last: after the workers have answered the queued requests it publishes
/// `{"state":"offline"}` retained and disconnects cleanly.
public final class Gateway: Service, MQTTMessageReceiver, Sendable {
  /// The running configuration, replaced whole on reload.
  public let configuration: Mutex<GatewayConfiguration>
  let client: MQTTClient
  /// The second and later request connections (`mqtt.request-connections`); none with one.
  let lanes: [MQTTClient]
  let desk: WeatherDesk
  /// The answer path's shared rooms: places to outcomes, outcomes to frames, frames out.
  let resolver: Resolver
  let outbox: MQTTOutbox
  /// The way in of MQTT requests.
  let intake: MQTTIntake
  /// The fast lane's connection, which brings requests to the intake; nil without one. Its
  /// connect and its clock are `FastLanePart`'s.
  let fastLaneClient: MQTTClient?
  let workers: RequestWorkers
  /// Fetches that outlive the request that started them, and those other members ask for.
  let background: BackgroundWork
  let queue: BoundedQueue<DeviceIntake.Job>
  /// The rooms every way in answers through (`DeviceIntake`).
  let rooms: AnswerRooms
  let httpClient: HTTPClient
  let logger: Logger
  let services: WeatherServices
  let metrics: GatewayMetrics
  let clock: GatewayClock
  /// What every named place's and watched place's displays show (the status page's pictures).
  let board: DisplayBoard
  /// The features plugged in (`GatewayPart`), in the order their routes are tried and their
  /// services start.
  let parts: [any GatewayPart]
  /// The gateway's own messages go out here: failures counted and logged.
  let own: OwnMessages
  /// Answers per minute, from samples of the answer count.
  let answerRate = AnswerRate()
  private let router: Router
  private let connected = ConnectedFlag()
  /// The cluster's live members; nil when the gateway runs alone.
  public let members: ClusterMembers?
  /// How many share the budgets (the live members); nil alone.
  let fleet: FleetShare?

  package static let online = Array(#"{"state":"online"}"#.utf8)
  package static let offline = Array(#"{"state":"offline"}"#.utf8)

  /// Builds the gateway from a checked configuration. Nothing connects until `run()`.
  public convenience init(
    configuration: GatewayConfiguration, httpClient: HTTPClient, logger: Logger,
    clock: GatewayClock = .system
  ) throws(MQTTError) {
    try self.init(
      configuration: configuration, httpClient: httpClient, logger: logger, clock: clock,
      extraParts: [])
  }

  /// The gateway with `extraParts` after the listed ones: a part a test brings (a way in or a
  /// feature that exists only there), made from the same context.
  init(
    configuration: GatewayConfiguration, httpClient: HTTPClient, logger: Logger,
    clock: GatewayClock, extraParts: [@Sendable (PartContext) -> (any GatewayPart)?]
  ) throws(MQTTError) {
    self.configuration = Mutex(configuration)
    self.httpClient = httpClient
    self.logger = logger
    self.clock = clock
    metrics = GatewayMetrics()
    let background = BackgroundWork(limit: configuration.requests.queueLimit)
    self.background = background
    let members = configuration.cluster.resolvedInstanceID().map { ClusterMembers(own: $0) }
    self.members = members
    fleet = members.map { _ in FleetShare() }
    services = WeatherServices(
      configuration: configuration, httpClient: httpClient, metrics: metrics, clock: clock,
      logger: logger, fleet: fleet, background: background)
    client = try MQTTClient(configuration: configuration.mqttConfiguration, logger: logger)
    lanes = try configuration.requestLaneConfigurations.map { lane throws(MQTTError) in
      try MQTTClient(configuration: lane, logger: logger)
    }
    let fastLaneClient = try configuration.fastLaneConfiguration.map { lane throws(MQTTError) in
      try MQTTClient(configuration: lane, logger: logger)
    }
    self.fastLaneClient = fastLaneClient
    let link = fastLaneClient.map { client in
      FastLaneLink(
        sink: client, subscribe: { filter in try? client.subscribe(filter, qos: 1) },
        unsubscribe: { filter in client.unsubscribe(filter) },
        capacity: configuration.mqtt.fastLaneDevices)
    }
    desk = WeatherDesk(
      settings: services.settings(for: configuration), clock: clock, metrics: metrics,
      background: background, logger: logger)
    queue = BoundedQueue(limit: configuration.requests.queueLimit)
    let logLimiter = DeviceLogLimiter(
      capacity: configuration.requests.maximumDevices, clock: clock)
    resolver = Resolver(
      configuration: configuration, desk: desk, metrics: metrics, clock: clock,
      logLimiter: logLimiter, logger: logger)
    let composer = Composer(configuration: configuration, clock: clock)
    outbox = MQTTOutbox(
      configuration: configuration, composer: composer,
      sinks: [client] + lanes + (fastLaneClient.map { [$0] } ?? []), metrics: metrics,
      logger: logger, limiter: logLimiter)
    rooms = AnswerRooms(
      resolver: resolver, composer: composer, queue: queue, metrics: metrics, clock: clock,
      logger: logger)
    intake = MQTTIntake(
      configuration: configuration, rooms: rooms, outbox: outbox, fastLane: link,
      lane: lanes.count + 1, members: members)
    let intake = intake
    members?.onRelease { dropIfOthersLive in intake.releaseHeld(dropIfOthersLive: dropIfOthersLive)
    }
    members?.onTakenOver { intake.markTakenOver() }
    workers = RequestWorkers(queue: queue, count: configuration.requests.workers)
    let own = OwnMessages(
      sink: client, metrics: metrics, logger: logger, limiter: logLimiter)
    self.own = own
    board = DisplayBoard(capacity: Self.boardCapacity(configuration))
    let (connected, services) = (connected, services)
    let context = PartContext(
      configuration: configuration, rooms: rooms, outbox: outbox, desk: desk,
      client: client, own: own, board: board, members: members, fleet: fleet,
      background: background, scheduled: services.scheduled,
      serviceNames: { services.status.map(\.name) }, servicesPaused: { services.allPaused },
      fastLane: intake.fastLane.flatMap { lane in fastLaneClient.map { (lane, $0) } },
      metrics: metrics,
      clock: clock, logger: logger, logLimiter: logLimiter, isConnected: { connected.isSet })
    parts = try Self.makeParts(context) + extraParts.compactMap { $0(context) }
    if let middleware = parts.lazy.compactMap(\.deskMiddleware).first { desk.use(middleware) }
    router = Router(topics: configuration.topics, claims: parts.map(\.claims))
  }

  /// Every named place and every watched place (up to `watches.maximum` of them).
  static func boardCapacity(_ configuration: GatewayConfiguration) -> Int {
    configuration.locations.count + configuration.watches.maximumWatches
  }

  /// The gateway's long-running work, in the order it starts; it stops in reverse: the
  /// connection outlives the workers and the parts that publish through it.
  var runningServices: [any Service] {
    [self, background, workers, services.modelRuns] + parts.flatMap(\.services)
  }

  /// Applies a reloaded configuration: every component takes the new snapshot whole, and
  /// `log.level` takes effect at once. What is bound at start (the MQTT connection, the topic
  /// base, the number of workers, the metrics listener, the cluster) keeps its running value
  /// until a restart, and the log names each of those that changed.
  public func apply(_ new: GatewayConfiguration) {
    let old = configuration.withLock { $0 }
    var (new, changed) = new.keepingRestartOnlyKeys(of: old)
    for part in parts { changed += part.keepRestartOnlyKeys(of: old, in: &new) }
    if !changed.isEmpty {
      logger.warning(
        "\(changed.joined(separator: ", ")) changed: takes effect after a restart; the running value stays"
      )
    }
    if old.logLevel != new.logLevel, let level = Logger.Level(rawValue: new.logLevel) {
      LogLevelSwitch.shared.level = level
      logger.notice("log.level changed to \(new.logLevel)")
    }
    configuration.withLock { $0 = new }
    desk.update(services.settings(for: new))
    resolver.update(new)
    outbox.composer.update(new)
    outbox.update(new)
    intake.update(new)
    board.resize(Self.boardCapacity(new))
    for part in parts { part.apply(new) }
    logger.info("configuration reloaded", metadata: ["locations": "\(new.locations.count)"])
    if isConnected { publishInfo() }
  }

  /// Version, frame version and the services in use with their credits, retained.
  private func publishInfo() {
    let (topic, info) = configuration.withLock { ($0.topics.info, GatewayInfo($0)) }
    own.send(topic, info.json())
  }

  /// The status document, retained on `{base}/v1/gateway/stats` (unless `metrics.stats-seconds`
  /// is 0): at every connect and every interval (`StatsPublisher`).
  func publishStats() {
    let (seconds, topic) = configuration.withLock { ($0.metrics.statsSeconds, $0.topics.stats) }
    guard seconds > 0 else { return }
    own.send(topic, status().json())
  }

  var isConnected: Bool { connected.isSet }

  /// Runs on the MQTT network thread for every message: the one way in.
  public func receive(_ message: MQTTIncoming) {
    receive(message, lane: 0)
  }

  /// A message from request connection `lane` (0 is the first, which subscribes to everything;
  /// the others only to requests).
  func receive(_ message: MQTTIncoming, lane: Int) {
    switch router.route(message.topic) {
    case .request(let device):
      intake.receive(message, from: device, lane: lane)
    case .part(let part, let claim, let rest):
      parts[part].receive(claim: claim, rest: rest, message)
    case .invalidDevice:
      // All invalid ids share one key (no valid id has a space): one line a minute for all.
      DeviceLog(logger: logger, device: "(invalid ids)", limiter: intake.logLimiter).warning(
        "dropped a message from an invalid device id (1-32 characters of a-z, A-Z, 0-9, '-', '_', '.'): \(message.topicString.prefix(80))"
      )
    case .unknown:
      break
    }
  }

  public func run() async throws {
    let (requests, otherRequests) = configuration.withLock {
      ($0.requestFilter, $0.otherRequestFilters)
    }
    client.deliverMessages(to: self)
    try client.subscribe(requests, qos: 1)
    for filter in otherRequests { client.dropFromSession(filter) }
    for filter in parts.flatMap(\.subscriptions) { try client.subscribe(filter, qos: 1) }
    do {
      try await client.connect(timeout: .seconds(5))
    } catch {
      // A TLS mismatch (`problem`) is logged by the MQTT client, with the key to change.
      if error.problem == nil {
        logger.warning("broker not reachable yet, retrying in the background: \(error)")
      }
    }

    let receivers = lanes.indices.map { RequestLane(gateway: self, lane: $0 + 1) }
    for (lane, receiver) in zip(lanes, receivers) {
      lane.deliverMessages(to: receiver)
      try lane.subscribe(requests, qos: 1)
    }
    let fastLaneReceiver = fastLaneClient.map { fastLane in
      let receiver = RequestLane(gateway: self, lane: lanes.count + 1)
      fastLane.deliverMessages(to: receiver)
      return receiver
    }
    await withDiscardingTaskGroup { group in
      for (index, lane) in lanes.enumerated() {
        group.addTask {
          await lane.follow(name: "request connection \(index + 1)", logger: self.logger)
        }
      }
      await followMainConnection()
      // Stopping: the workers have answered what was queued, so the lanes can go.
      for lane in lanes { await lane.disconnect() }
    }
    withExtendedLifetime((receivers, fastLaneReceiver)) {}
    // From here on this instance is leaving: it no longer answers its own cleared presence.
    connected.set(false)
    for part in parts { part.leaving() }
    await client.disconnect()
    connected.set(false)
    logger.info("gateway stopped")
  }

  /// The first connection's events until graceful shutdown.
  private func followMainConnection() async {
    for await event in client.events.cancelOnGracefulShutdown() {
      switch event {
      case .connected(let sessionPresent):
        logger.info("connected to the broker", metadata: ["session-present": "\(sessionPresent)"])
        connected.set(true)
        metrics.connected()
        intake.connected(sessionPresent: sessionPresent)
        for part in parts { part.connected(sessionPresent: sessionPresent) }
        publishInfo()
        // The status document at once, not a stats interval after the start: a subscriber
        // that waits for one message (`mosquitto_sub -C 1`) is answered now.
        publishStats()
      case .disconnected(let code):
        connected.set(false)
        metrics.disconnected()
        intake.disconnected()
        for part in parts { part.disconnected() }
        logger.warning(
          "disconnected from the broker, reconnecting", metadata: ["code": "\(code)"])
      case .message:
        break  // Messages go to `route` on the network thread.
      }
    }
  }

}

/// Hands what a second or later request connection brings to the gateway, with its number.
final class RequestLane: MQTTMessageReceiver, Sendable {
  let gateway: Gateway
  let lane: Int

  init(gateway: Gateway, lane: Int) {
    self.gateway = gateway
    self.lane = lane
  }

  func receive(_ message: MQTTIncoming) { gateway.receive(message, lane: lane) }
}

/// Whether the gateway is connected to the broker, read from any thread.
final class ConnectedFlag: Sendable {
  private let value = Atomic<Bool>(false)

  var isSet: Bool { value.load(ordering: .acquiring) }

  func set(_ connected: Bool) { value.store(connected, ordering: .releasing) }
}
