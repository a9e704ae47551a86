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
  let desk: WeatherDesk
  let handler: RequestHandler
  let locations: NamedLocationPublisher
  let watches: WatchScheduler
  let workers: RequestWorkers
  let queue: BoundedQueue<RequestHandler.Job>
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
  private let connected = Mutex(false)
  /// The cluster's live members; nil when the gateway runs alone.
  public let members: ClusterMembers?
  /// How many share the budgets (the live members); nil alone.
  let fleet: FleetShare?
  /// The cluster's shared cache; nil alone or without `cluster.key`.
  let sharedCache: SharedFrameCache?
  /// Fetches other members asked this one for and that have not finished (at most 64).
  private let wantsInFlight = Atomic<Int>(0)
  static let maximumWantsInFlight = 64

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
    let members = configuration.cluster.resolvedInstanceID().map { ClusterMembers(own: $0) }
    self.members = members
    fleet = members.map { _ in FleetShare() }
    services = WeatherServices(
      configuration: configuration, httpClient: httpClient, metrics: metrics, clock: clock,
      logger: logger, fleet: fleet)
    client = try MQTTClient(configuration: configuration.mqttConfiguration, logger: logger)
    desk = WeatherDesk(
      settings: services.settings(for: configuration), clock: clock, metrics: metrics,
      logger: logger)
    queue = BoundedQueue(limit: configuration.requests.queueLimit)
    handler = RequestHandler(
      configuration: configuration, desk: desk, sink: client, queue: queue, metrics: metrics,
      clock: clock, logger: logger)
    workers = RequestWorkers(queue: queue, handler: handler, count: configuration.requests.workers)
    let own = OwnMessages(
      sink: client, metrics: metrics, logger: logger, limiter: handler.logLimiter)
    self.own = own
    let services = services
    homeAssistant = HomeAssistantPublisher(
      configuration: configuration, clientID: configuration.mqttConfiguration.clientID,
      own: own, logger: logger,
      services: { services.status.map(\.name) })
    board = DisplayBoard(
      capacity: Self.boardCapacity(configuration), listener: homeAssistant)
    locations = NamedLocationPublisher(
      locations: configuration.locations, handler: handler, topics: configuration.topics,
      clock: clock, scheduled: services.scheduled, members: members, board: board,
      logger: logger)
    watches = WatchScheduler(
      handler: handler, configuration: configuration, clock: clock, scheduled: services.scheduled,
      members: members, board: board, logger: logger)
    router = Router(topics: configuration.topics, homeAssistant: configuration.homeAssistant)
    lorawan = try LoRaWANGateway.make(
      configuration: configuration, desk: desk, metrics: metrics, clock: clock, logger: logger)
    sharedCache = configuration.cluster.key.flatMap { key in
      members.map { _ in
        SharedFrameCache(
          key: key, topics: configuration.topics, staleSeconds: configuration.cache.staleSeconds)
      }
    }
    if let sharedCache, let members, configuration.cluster.ownerWaitMilliseconds > 0 {
      let (topics, clock) = (configuration.topics, clock)
      let wait = Duration.milliseconds(configuration.cluster.ownerWaitMilliseconds)
      desk.onMiss { [weak desk] cell in
        // The cell's owner fetches it once for the fleet; this member waits for its shared entry
        // and fetches itself only if none comes in time (the owner gone, say).
        let key = sharedCache.cellText(cell)
        guard let desk, let owner = members.owner(of: "cell:" + key), owner != members.own else {
          return nil
        }
        own.send(topics.wants(owner), Array(key.utf8), retain: false)
        return await desk.freshFrame(for: cell, by: clock.now + wait)
      }
    }
    if let sharedCache {
      let (client, clock, logger) = (client, clock, logger)
      desk.onFetched { cell, frame in
        if !sharedCache.share(frame, for: cell, with: client, now: clock.unixTime()) {
          logger.debug("could not share a cached frame")
        }
      }
    }
  }

  /// Every named place and every watched place (up to `watches.maximum` of them).
  static func boardCapacity(_ configuration: GatewayConfiguration) -> Int {
    configuration.locations.count + configuration.watches.maximumWatches
  }

  /// The gateway's long-running parts, in the order they start; they stop in reverse.
  var parts: [any Service] {
    [self, workers, locations, watches] + (lorawan?.connections ?? [])
  }

  /// Applies a reloaded configuration: every component takes the new snapshot whole, and
  /// `log.level` takes effect at once. What is bound at start (the MQTT connection, the topic
  /// base, the number of workers, the metrics listener, the cluster) keeps its running value
  /// until a restart, and the log names each of those that changed.
  public func apply(_ new: GatewayConfiguration) {
    var new = new
    let old = configuration.withLock { $0 }
    let restartOnly: [(String, Bool)] = [
      ("mqtt", old.mqtt != new.mqtt), ("topics.base", old.topics.base != new.topics.base),
      ("requests.workers", old.requests.workers != new.requests.workers),
      ("metrics.host", old.metrics.host != new.metrics.host),
      ("metrics.port", old.metrics.port != new.metrics.port),
      ("cluster", old.cluster != new.cluster),
      (
        "homeassistant.discovery-prefix",
        old.homeAssistant.discoveryPrefix != new.homeAssistant.discoveryPrefix
      ),
    ]
    let changed = restartOnly.filter(\.1).map(\.0)
    if !changed.isEmpty {
      logger.warning(
        "\(changed.joined(separator: ", ")) changed: takes effect after a restart; the running value stays"
      )
      new.mqtt = old.mqtt
      new.topics.base = old.topics.base
      new.requests.workers = old.requests.workers
      new.metrics.host = old.metrics.host
      new.metrics.port = old.metrics.port
      new.cluster = old.cluster
      new.homeAssistant.discoveryPrefix = old.homeAssistant.discoveryPrefix
    }
    if old.logLevel != new.logLevel, let level = Logger.Level(rawValue: new.logLevel) {
      LogLevelSwitch.shared.level = level
      logger.notice("log.level changed to \(new.logLevel)")
    }
    configuration.withLock { $0 = new }
    desk.update(services.settings(for: new))
    handler.update(new)
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

  var isConnected: Bool { connected.withLock { $0 } }

  /// After the live set changed: the budget share follows, and the owner of the fleet state
  /// writes it.
  private func membersChanged(_ members: ClusterMembers) {
    fleet?.set(members.count)
    let live = members.live
    logger.info("cluster members changed", metadata: ["live": "\(live.joined(separator: ","))"])
    guard members.owns("state"), isConnected else { return }
    let topic = configuration.withLock { $0.topics.state }
    own.send(topic, FleetState.online(live))
  }

  /// Runs on the MQTT network thread for every message: the one way in.
  public func receive(_ message: MQTTIncoming) {
    switch router.route(message.topic) {
    case .request(let device):
      handler.receive(message, from: device)
    case .watch(let device):
      watches.receive(device: device, payload: [UInt8](message.payload))
    case .instance(let id):
      guard let members else { return }
      if members.receive(id: id, payload: message.payload) {
        membersChanged(members)
      } else if id == members.own, message.payload.isEmpty, isConnected {
        // Cleared by a member that took an earlier incarnation of this one for dead: say again
        // that this one lives.
        let topic = configuration.withLock { $0.topics.instance(id) }
        own.send(topic, Self.online)
      }
    case .state:
      // A member's last will: it is gone. The owner of the fleet state clears its presence.
      guard let members, let gone = FleetState.offlineInstance(in: message.payload),
        gone != members.own
      else { return }
      _ = members.receive(id: gone, payload: [])
      membersChanged(members)
      if members.owns("state") {
        let topic = configuration.withLock { $0.topics.instance(gone) }
        own.send(topic, [])
      }
    case .want(let owner):
      guard let members, let sharedCache, owner == members.own,
        let cell = sharedCache.cell(from: message.payload)
      else { return }
      if let frame = desk.freshFrame(for: cell) {
        // Already here (the asker missed the entry): share it again.
        sharedCache.share(frame, for: cell, with: client, now: clock.unixTime())
        return
      }
      guard wantsInFlight.add(1, ordering: .relaxed).newValue <= Self.maximumWantsInFlight else {
        wantsInFlight.subtract(1, ordering: .relaxed)
        return
      }
      Task { [self] in
        // A fetch here is shared when it completes (`onFetched`).
        _ = await desk.frame(at: desk.center(of: cell))
        wantsInFlight.subtract(1, ordering: .relaxed)
      }
    case .cacheEntry(let cell):
      guard let sharedCache, !message.payload.isEmpty else { return }
      switch sharedCache.verify(message.payload, cellText: cell) {
      case .success(let (cell, frame)):
        desk.adopt(frame, for: cell)
      case .failure(let refused):
        // One line a minute for all refused entries.
        DeviceLog(logger: logger, device: "(shared cache)", limiter: handler.logLimiter).warning(
          "ignored a shared cache entry on \(message.topicString.prefix(80)): \(refused)")
      }
    case .homeAssistantStatus:
      // Home Assistant (re)started: it forgets devices whose discovery messages are not
      // retained, so every one goes out again.
      guard message.payload.elementsEqual("online".utf8) else { return }
      homeAssistant.announceAll(board.entries)
    case .invalidDevice:
      // All invalid ids share one key (no valid id has a space): one line a minute for all.
      DeviceLog(logger: logger, device: "(invalid ids)", limiter: handler.logLimiter).warning(
        "dropped a message from an invalid device id (1-32 characters of a-z, A-Z, 0-9, '-', '_', '.'): \(message.topicString.prefix(80))"
      )
    case .unknown:
      break
    }
  }

  public func run() async throws {
    let (topics, cluster) = configuration.withLock { ($0.topics, $0.cluster) }
    client.deliverMessages(to: self)
    try client.subscribe(cluster.requestFilter(topics), qos: 1)
    try client.subscribe(topics.watches, qos: 1)
    try client.subscribe(
      HomeAssistantPublisher.statusTopic(configuration.withLock { $0.homeAssistant }), qos: 1)
    if members != nil {
      try client.subscribe(topics.instances, qos: 1)
      try client.subscribe(topics.state, qos: 1)
    }
    if sharedCache != nil { try client.subscribe(topics.cacheEntries + "+", qos: 1) }
    if let members, sharedCache != nil, cluster.ownerWaitMilliseconds > 0 {
      try client.subscribe(topics.wants(members.own), qos: 1)
    }
    do {
      try await client.connect(timeout: .seconds(5))
    } catch {
      // A TLS mismatch (`problem`) is logged by the MQTT client, with the key to change.
      if error.problem == nil {
        logger.warning("broker not reachable yet, retrying in the background: \(error)")
      }
    }

    for await event in client.events.cancelOnGracefulShutdown() {
      switch event {
      case .connected(let sessionPresent):
        logger.info("connected to the broker", metadata: ["session-present": "\(sessionPresent)"])
        connected.withLock { $0 = true }
        metrics.connected()
        if let members {
          own.send(topics.instance(members.own), Self.online)
          own.send(topics.state, FleetState.online(members.live))
        } else {
          own.send(topics.state, Self.online)
        }
        publishInfo()
        homeAssistant.announceAll(board.entries)
        locations.publishAllSoon()
      case .disconnected(let code):
        connected.withLock { $0 = false }
        metrics.disconnected()
        logger.warning(
          "disconnected from the broker, reconnecting", metadata: ["code": "\(code)"])
      case .message:
        break  // Messages go to `route` on the network thread.
      }
    }
    // From here on this instance is leaving: it no longer answers its own cleared presence.
    connected.withLock { $0 = false }
    if let members {
      // Other members may still serve: this instance's presence goes, and they write the fleet
      // state when they see it go. The last one leaves the fleet offline.
      own.send(topics.instance(members.own), [])
      if members.live == [members.own] { own.send(topics.state, FleetState.offline(members.own)) }
    } else {
      own.send(topics.state, Self.offline)
    }
    await client.disconnect()
    connected.withLock { $0 = false }
    logger.info("gateway stopped")
  }
}
