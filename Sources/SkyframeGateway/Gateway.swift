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
  /// The fast lane's connection (`FastLane`); nil without one.
  let fastLaneClient: MQTTClient?
  let desk: WeatherDesk
  /// The answer path's shared rooms: places to outcomes, outcomes to frames, frames out.
  let resolver: Resolver
  let outbox: MQTTOutbox
  /// The way in of MQTT requests.
  let intake: MQTTIntake
  let locations: NamedLocationPublisher
  let watches: WatchScheduler
  let workers: RequestWorkers
  /// Fetches that outlive the request that started them, and those other members ask for.
  let background: BackgroundWork
  let queue: BoundedQueue<MQTTIntake.Job>
  let httpClient: HTTPClient
  let logger: Logger
  let services: WeatherServices
  let metrics: GatewayMetrics
  let clock: GatewayClock
  /// LoRaWAN network server connections (`lorawan.servers`); nil without any.
  let lorawan: LoRaWANGateway?
  /// What every named place's and watched place's displays show (the status page's pictures).
  let board: DisplayBoard
  /// Home Assistant MQTT discovery of the board's displays and of the gateway.
  let homeAssistant: HomeAssistantPublisher
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
  /// This member's part in the cluster; nil alone.
  let cluster: ClusterRole?
  /// The cluster's shared cache; nil alone or without `cluster.key`.
  var sharedCache: SharedFrameCache? { cluster?.sharedCache }

  static let online = Array(#"{"state":"online"}"#.utf8)
  static let offline = Array(#"{"state":"offline"}"#.utf8)

  /// Builds the gateway from a checked configuration. Nothing connects until `run()`.
  public init(
    configuration: GatewayConfiguration, httpClient: HTTPClient, logger: Logger,
    clock: GatewayClock = .system
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
      sinks: [client] + lanes + (fastLaneClient.map { [$0] } ?? []), metrics: metrics)
    intake = MQTTIntake(
      configuration: configuration, resolver: resolver, outbox: outbox, fastLane: link,
      lane: lanes.count + 1, queue: queue, metrics: metrics, clock: clock, logger: logger)
    workers = RequestWorkers(queue: queue, intake: intake, count: configuration.requests.workers)
    let own = OwnMessages(
      sink: client, metrics: metrics, logger: logger, limiter: logLimiter)
    self.own = own
    let services = services
    homeAssistant = HomeAssistantPublisher(
      configuration: configuration, clientID: configuration.mqttConfiguration.clientID,
      own: own, logger: logger,
      services: { services.status.map(\.name) })
    board = DisplayBoard(
      capacity: Self.boardCapacity(configuration), listener: homeAssistant)
    locations = NamedLocationPublisher(
      locations: configuration.locations, resolver: resolver, outbox: outbox,
      topics: configuration.topics,
      clock: clock, scheduled: services.scheduled, members: members, board: board,
      logger: logger)
    watches = WatchScheduler(
      resolver: resolver, outbox: outbox, configuration: configuration, clock: clock,
      scheduled: services.scheduled,
      members: members, board: board, logger: logger)
    router = Router(topics: configuration.topics, homeAssistant: configuration.homeAssistant)
    lorawan = try LoRaWANGateway.make(
      configuration: configuration, resolver: resolver, composer: composer, members: members,
      metrics: metrics, clock: clock, logger: logger)
    let (connected, desk, client, fleet, limiter) = (connected, desk, client, fleet, logLimiter)
    cluster = members.map { members in
      ClusterRole(
        members: members, fleet: fleet, configuration: configuration, desk: desk, client: client,
        own: own, clock: clock, logger: logger, limiter: limiter, background: background,
        isConnected: { connected.isSet })
    }
  }

  /// Every named place and every watched place (up to `watches.maximum` of them).
  static func boardCapacity(_ configuration: GatewayConfiguration) -> Int {
    configuration.locations.count + configuration.watches.maximumWatches
  }

  /// The gateway's long-running parts, in the order they start; they stop in reverse.
  var parts: [any Service] {
    [self, background, workers, locations, watches] + (lorawan?.connections ?? [])
  }

  /// Applies a reloaded configuration: every component takes the new snapshot whole, and
  /// `log.level` takes effect at once. What is bound at start (the MQTT connection, the topic
  /// base, the number of workers, the metrics listener, the cluster) keeps its running value
  /// until a restart, and the log names each of those that changed.
  public func apply(_ new: GatewayConfiguration) {
    let old = configuration.withLock { $0 }
    let (new, changed) = new.keepingRestartOnlyKeys(of: old)
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
    locations.update(new)
    watches.update(new)
    homeAssistant.update(new, entries: board.entries)
    lorawan?.update(new)
    logger.info("configuration reloaded", metadata: ["locations": "\(new.locations.count)"])
    if isConnected { publishInfo() }
  }

  /// Version, frame version and the services in use with their credits, retained.
  private func publishInfo() {
    let (topic, info) = configuration.withLock { ($0.topics.info, GatewayInfo($0)) }
    own.send(topic, info.json())
  }

  var isConnected: Bool { connected.isSet }

  /// Runs on the MQTT network thread for every message: the one way in.
  public func receive(_ message: MQTTIncoming) {
    receive(message, lane: 0)
  }

  /// A message from request connection `lane` (0 is the first, which subscribes to everything;
  /// the others only to requests).
  func receive(_ message: MQTTIncoming, lane: Int) {
    let route = router.route(message.topic)
    switch route {
    case .request(let device):
      intake.receive(message, from: device, lane: lane)
    case .watch(let device):
      watches.receive(device: device, payload: [UInt8](message.payload))
    case .instance, .state, .want, .cacheEntry:
      cluster?.receive(route, message)
    case .homeAssistantStatus:
      // Home Assistant (re)started: it forgets devices whose discovery messages are not
      // retained, so every one goes out again.
      guard message.payload.elementsEqual("online".utf8) else { return }
      homeAssistant.announceAll(board.entries)
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
    let (topics, requests, otherRequests) = configuration.withLock {
      ($0.topics, $0.requestFilter, $0.otherRequestFilters)
    }
    client.deliverMessages(to: self)
    try client.subscribe(requests, qos: 1)
    for filter in otherRequests { client.dropFromSession(filter) }
    try client.subscribe(topics.watches, qos: 1)
    try client.subscribe(
      HomeAssistantPublisher.statusTopic(configuration.withLock { $0.homeAssistant }), qos: 1)
    for filter in cluster?.subscriptions ?? [] { try client.subscribe(filter, qos: 1) }
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
    let ticker = Task { [intake] in
      // The fast lane opens on the thread that sees a flood; it closes (and rescans) here.
      while !Task.isCancelled, let fastLane = intake.fastLane {
        try? await Task.sleep(for: .milliseconds(500))
        fastLane.tick(now: MonotonicNanoseconds.now())
      }
    }
    await withDiscardingTaskGroup { group in
      for (index, lane) in lanes.enumerated() {
        group.addTask { await self.follow(lane, name: "request connection \(index + 1)") }
      }
      if let fastLaneClient {
        group.addTask {
          // Only once the first connection is up: a broker that refuses the gateway (TLS, a
          // password) is reported once, by the first.
          while !self.connected.isSet && !ticker.isCancelled {
            try? await Task.sleep(for: .milliseconds(100))
          }
          guard !ticker.isCancelled else { return }
          await self.follow(fastLaneClient, name: "fast lane connection")
        }
      }
      await followMainConnection(topics)
      // Stopping: the workers have answered what was queued, so the lanes can go.
      ticker.cancel()
      for lane in lanes { await lane.disconnect() }
      await fastLaneClient?.disconnect()
    }
    withExtendedLifetime((receivers, fastLaneReceiver)) {}
    // From here on this instance is leaving: it no longer answers its own cleared presence.
    connected.set(false)
    if let cluster { cluster.leaving() } else { own.send(topics.state, Self.offline) }
    await client.disconnect()
    connected.set(false)
    logger.info("gateway stopped")
  }

  /// The first connection's events until graceful shutdown.
  private func followMainConnection(_ topics: GatewayConfiguration.Topics) async {
    for await event in client.events.cancelOnGracefulShutdown() {
      switch event {
      case .connected(let sessionPresent):
        logger.info("connected to the broker", metadata: ["session-present": "\(sessionPresent)"])
        connected.set(true)
        metrics.connected()
        if let cluster { cluster.connected() } else { own.send(topics.state, Self.online) }
        publishInfo()
        homeAssistant.announceAll(board.entries)
        locations.publishAllSoon()
      case .disconnected(let code):
        connected.set(false)
        metrics.disconnected()
        logger.warning(
          "disconnected from the broker, reconnecting", metadata: ["code": "\(code)"])
      case .message:
        break  // Messages go to `route` on the network thread.
      }
    }
  }

  /// Connects a second or later request connection (or the fast lane's, `name`) and logs its
  /// connects and losses until it is disconnected; it reconnects by itself.
  private func follow(_ lane: MQTTClient, name: String) async {
    do {
      try await lane.connect(timeout: .seconds(5))
    } catch {
      logger.warning("\(name) not connected yet, retrying: \(error)")
    }
    for await event in lane.events {
      switch event {
      case .connected:
        logger.info("\(name) connected")
      case .disconnected(0):
        logger.info("\(name) closed")
      case .disconnected(let code):
        logger.warning("\(name) lost, reconnecting", metadata: ["code": "\(code)"])
      case .message:
        break
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
