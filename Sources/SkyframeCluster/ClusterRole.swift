import Logging
import SkyframeGateway
import SkyframeMQTT
import Synchronization

/// This member's part in a cluster (`cluster.group`): its presence and the fleet's state, the
/// live members and the budget share that follows them, and with `cluster.key` the shared cache
/// (asking a cell's owner on a miss, fetching what others ask of this member, adopting what
/// others share). The gateway hands it the cluster's routes and tells it when the connection
/// comes and when the member leaves.
final class ClusterRole: GatewayPart, Sendable {
  let members: ClusterMembers
  private let fleet: FleetShare?
  let sharedCache: SharedFrameCache?
  /// The fleet's place names (with `cluster.key`), so a name costs the fleet one call.
  private let sharedNames: SharedNames?
  /// The fleet in front of the desk's fetcher (with `cluster.key`).
  private let fetching: FleetFetching?
  private let settings: ClusterSettings
  private let topics: GatewayConfiguration.Topics
  private let desk: WeatherDesk
  private let client: MQTTClient
  private let own: OwnMessages
  private let clock: GatewayClock
  private let logger: Logger
  private let refusals: DeviceLog
  private let isConnected: @Sendable () -> Bool
  private let background: BackgroundWork
  /// Fetches other members asked this one for and that have not finished.
  private let wantsInFlight = Atomic<Int>(0)
  static let maximumWantsInFlight = 64

  init(
    members: ClusterMembers, fleet: FleetShare?, configuration: GatewayConfiguration,
    desk: WeatherDesk, client: MQTTClient, own: OwnMessages, clock: GatewayClock,
    logger: Logger, limiter: DeviceLogLimiter, background: BackgroundWork,
    isConnected: @escaping @Sendable () -> Bool,
    servicesPaused: @escaping @Sendable () -> Bool = { false }
  ) {
    self.background = background
    self.members = members
    self.fleet = fleet
    settings = configuration.cluster
    topics = configuration.topics
    self.desk = desk
    self.client = client
    self.own = own
    self.clock = clock
    self.logger = logger
    self.isConnected = isConnected
    // One line a minute for all refused shared entries.
    refusals = DeviceLog(logger: logger, device: "(shared cache)", limiter: limiter)
    let sharedCache = configuration.cluster.key.map { key in
      SharedFrameCache(
        key: key, topics: configuration.topics, staleSeconds: configuration.cache.staleSeconds)
    }
    let sharedNames = configuration.cluster.key.map {
      SharedNames(key: $0, topics: configuration.topics)
    }
    self.sharedCache = sharedCache
    self.sharedNames = sharedNames
    fetching = sharedCache.flatMap { sharedCache in
      sharedNames.map { sharedNames in
        FleetFetching(
          desk: desk, sharedCache: sharedCache, sharedNames: sharedNames, members: members,
          configuration: configuration, client: client, own: own, clock: clock, logger: logger,
          servicesPaused: servicesPaused)
      }
    }
  }

  /// With a shared cache, the fleet stands in front of the desk's fetcher.
  package var deskMiddleware: (any DeskMiddleware)? { fetching }

  /// The filters a member subscribes to besides requests and watches.
  var subscriptions: [String] {
    var filters = [topics.instances, topics.state, topics.takeover("+")]
    if sharedCache != nil {
      filters.append(topics.cacheEntries + "+")
      filters.append(topics.nameEntries + "+")
      if settings.ownerWaitMilliseconds > 0 {
        filters.append(topics.wants(members.own))
        filters.append(topics.cacheUnavailable + "+")
      }
    }
    return filters
  }

  /// Connected. At this process's first connect the member waits `settling` unannounced, the
  /// others' retained presence arriving meanwhile, while the others go on answering its devices;
  /// then it says it lives and answers its share. At a reconnect (a broker restart clears every
  /// member's presence by its last will) it says at once that it lives again, and the others
  /// have `reconfirming` to do the same; requests for their devices are held until they have
  /// (`ClusterMembers.answers`).
  /// The fleet state is written once the live set is known: a state naming fewer members than
  /// live would be wrong.
  func connected(sessionPresent: Bool) {
    let first = members.connected(at: clock.now)
    if !first {
      own.send(topics.instance(members.own), Gateway.online)
      // Begun at the disconnect; a loss not seen as such begins it here.
      if !members.isReconfirming { members.beginReconfirming(at: clock.now) }
      let started = background.start { [self] in
        try? await clock.sleep(for: ClusterMembers.reconfirming)
        if members.endReconfirming() { membersChanged() }
      }
      if !started { members.endReconfirming() }
    }
    let started = background.start { [self] in
      try? await clock.sleep(for: ClusterMembers.settling)
      settled(first: first)
    }
    // The background work is full (or stopping): at once.
    if !started { settled(first: first) }
  }

  /// The live set can be trusted: announced (at the first connect), the held requests go on,
  /// the fleet state is written.
  private func settled(first: Bool) {
    if first {
      own.send(topics.instance(members.own), Gateway.online)
      members.settledFirstConnect()
    }
    guard members.owns("state"), isConnected() else { return }
    own.send(topics.state, FleetState.online(members.live))
  }

  /// The connection is lost: at the reconnect the others must announce themselves again.
  func disconnected() {
    members.beginReconfirming(at: clock.now)
  }

  /// Leaving: this member's presence goes, and the others write the fleet state when they see it
  /// go; the last one leaves the fleet offline.
  func leaving() {
    own.send(topics.instance(members.own), [])
    if members.live == [members.own] { own.send(topics.state, FleetState.offline(members.own)) }
  }

  /// Presences, the fleet state, other members' wants, the shared cache's entries and names,
  /// and owners' word that they could not fetch a cell.
  var claims: [TopicClaim] {
    [
      .prefix(topics.instance("")), .exact(topics.state), .prefix(topics.wants("")),
      .prefix(topics.cacheEntries), .prefix(topics.nameEntries),
      .prefix(topics.cacheUnavailable), .prefix(topics.takeover("")),
    ]
  }

  /// A message on one of the cluster's topics, on the network thread.
  func receive(claim: Int, rest: String, _ message: MQTTIncoming) {
    switch claim {
    case 0:
      // The same rule as cluster.instance-id: 1-23 characters, no '/'.
      guard (1...23).contains(rest.utf8.count), !rest.contains("/") else { return }
      let id = rest
      if members.receive(id: id, payload: message.payload, at: clock.now) {
        membersChanged()
      } else if id == members.own, message.payload.isEmpty, isConnected(),
        members.isSettled(at: clock.now)
      {
        // Cleared by a member that took an earlier incarnation of this one for dead: say again
        // that this one lives. Not before this process has settled: it announces itself then,
        // and until then the others answer its devices (what it holds meanwhile is dropped as
        // theirs; announced early, nobody would answer those).
        own.send(topics.instance(id), Gateway.online)
      }
    case 1:
      memberLeft(message)
    case 2:
      wanted(owner: Substring(rest), payload: message.payload)
    case 3:
      guard let sharedCache, !message.payload.isEmpty, (3...41).contains(rest.utf8.count) else {
        return
      }
      let cell = Substring(rest)
      switch sharedCache.verify(message.payload, cellText: cell) {
      case .success(let shared):
        if !desk.adopt(shared.frame, for: shared.cell, series: shared.series), message.retain {
          shareAgain(olderThan: shared.frame, for: shared.cell)
        }
      case .failure(let refused):
        refusals.warning(
          "ignored a shared cache entry on \(message.topicString.prefix(80)): \(refused)")
      }
    case 4:
      guard let sharedNames, !message.payload.isEmpty, rest.utf8.count == 16 else { return }
      switch sharedNames.verify(message.payload, level: Substring(rest)) {
      case .success(let (key, place)):
        desk.adopt(place, for: key)
      case .failure(let refused):
        refusals.warning(
          "ignored a shared place name on \(message.topicString.prefix(80)): \(refused)")
      }
    case 5:
      // The owner could not fetch a cell a member wants: signed, like the cache's entries, and
      // recent (a device that can publish here cannot make the fleet answer stale).
      guard let sharedCache, let fetching, (3...41).contains(rest.utf8.count),
        let cell = sharedCache.verifyUnavailable(
          message.payload, cellText: Substring(rest), now: clock.unixTime())
      else { return }
      fetching.ownerUnavailable(cell)
    case 6:
      // A takeover marker: of this member (it was gone; the intake notes where the marker came
      // among what it holds), or this member's own, back (its devices are its own now).
      guard (1...23).contains(rest.utf8.count) else { return }
      if rest == members.own {
        members.takenOverMarkerArrived()
      } else if message.payload.elementsEqual(members.own.utf8) {
        members.endTakeover(of: rest)
      }
    default:
      break
    }
  }

  /// A member's last will: it is gone. The owner of the fleet state clears its presence. A
  /// retained will is history (a broker restart sends every member's will): it may be back.
  private func memberLeft(_ message: MQTTIncoming) {
    guard !message.retain, let gone = FleetState.offlineInstance(in: message.payload),
      gone != members.own
    else { return }
    // Written again only when it changes: its presence cleared first, the set is as it was.
    if members.receive(id: gone, payload: [], at: clock.now) {
      membersChanged()
      // Its devices become this member's (or another's) once the marker is back: what came
      // before it waits in the gone member's session for its return.
      members.beginTakeover(of: gone, at: clock.now)
      own.send(topics.takeover(gone), Array(members.own.utf8), retain: false)
    }
    // Its retained presence is cleared a moment later, if it is still gone and this member is
    // still connected: a broker that shuts down sends every member's will to the others, and
    // a clear queued then would go out after the restart, when the member is back.
    let started = background.start { [self] in
      try? await clock.sleep(for: ClusterMembers.settling)
      guard isConnected(), members.owns("state"), !members.live.contains(gone) else { return }
      own.send(topics.instance(gone), [])
    }
    if !started, members.owns("state") { own.send(topics.instance(gone), []) }
  }

  /// The broker keeps an entry of `cell` older than this member's fresh copy: it lost the newer
  /// one (a broker killed comes back from its last save). A member that starts would take the
  /// older entry and fetch the cell again; the cell's owner shares its copy again.
  private func shareAgain(olderThan kept: WeatherDesk.CachedFrame, for cell: WeatherDesk.Cell) {
    guard let sharedCache, let fetching, members.owns("cell:" + sharedCache.cellText(cell)),
      let frame = desk.freshFrame(for: cell), frame.fetchedAt > kept.fetchedAt
    else { return }
    fetching.share(frame, series: desk.series(of: frame, in: cell), for: cell)
  }

  /// Another member asks this one, the cell's owner, to fetch it for the fleet.
  private func wanted(owner: Substring, payload: UnsafeRawBufferPointer) {
    guard let sharedCache, let fetching, owner == members.own,
      let cell = sharedCache.cell(from: payload)
    else { return }
    if let frame = desk.freshFrame(for: cell) {
      // Already here (the asker missed the entry): share it again, with its data.
      fetching.share(frame, series: desk.series(of: frame, in: cell), for: cell)
      return
    }
    guard wantsInFlight.add(1, ordering: .relaxed).newValue <= Self.maximumWantsInFlight else {
      wantsInFlight.subtract(1, ordering: .relaxed)
      return
    }
    // A fetch here is shared when it completes (`FleetFetching`); one that fails says so at once,
    // so that the member that asked answers from its cache instead of waiting for the entry.
    // Stopping, none is started.
    let started = background.start { [self] in
      let lookup = await desk.frame(at: desk.center(of: cell))
      wantsInFlight.subtract(1, ordering: .relaxed)
      if case .fresh = lookup { return }
      own.send(
        topics.cacheUnavailable + sharedCache.cellText(cell),
        sharedCache.unavailableNotice(for: cell, now: clock.unixTime()), qos: 0, retain: false)
    }
    if !started { wantsInFlight.subtract(1, ordering: .relaxed) }
  }

  /// After the live set changed: the budget share follows, and the owner of the fleet state
  /// writes it.
  private func membersChanged() {
    fleet?.set(members.count)
    let live = members.live
    logger.info("cluster members changed", metadata: ["live": "\(live.joined(separator: ","))"])
    guard members.owns("state"), isConnected(), members.isSettled(at: clock.now) else { return }
    own.send(topics.state, FleetState.online(live))
  }
}
