import Logging
import ServiceLifecycle
import SkyframeCodec
import SkyframeMQTT
import SkyframeProviders
import Synchronization

/// Keeps the configured places fresh for displays that only listen: each is fetched on its own
/// interval and published retained to `{base}/v1/loc/{name}`, so a display that wakes for ten
/// seconds gets the latest frame the moment it subscribes.
final class NamedLocationPublisher: Service, Sendable {
  private struct State: Sendable {
    var locations: [GatewayConfiguration.NamedLocation] = []
    var due = DueTimes()
  }

  private let state = Mutex(State())
  /// Connects so far: the first (the start) resets nothing.
  let connects = Atomic<Int>(0)
  private let resolver: Resolver
  private let outbox: MQTTOutbox
  let topics: GatewayConfiguration.Topics
  private let logger: Logger
  private let tick: Duration
  let clock: GatewayClock
  private let scheduled: ScheduledWork?
  /// In a cluster, only the places this instance owns are refreshed here.
  private let members: ClusterMembers?
  /// What each place's displays show, for the status page and Home Assistant.
  private let board: DisplayBoard?
  /// Clears a retained message: a place (or a profile of it) no longer configured leaves no
  /// frame behind.
  private let clear: (@Sendable (String) -> Void)?

  init(
    locations: [GatewayConfiguration.NamedLocation], resolver: Resolver, outbox: MQTTOutbox,
    topics: GatewayConfiguration.Topics, clock: GatewayClock, scheduled: ScheduledWork? = nil,
    members: ClusterMembers? = nil, board: DisplayBoard? = nil,
    clear: (@Sendable (String) -> Void)? = nil, logger: Logger, tick: Duration = .milliseconds(250)
  ) {
    self.clear = clear
    self.board = board
    self.scheduled = scheduled
    self.members = members
    self.resolver = resolver
    self.outbox = outbox
    self.topics = topics
    self.logger = logger
    self.tick = tick
    self.clock = clock
    replace(locations)
  }

  func update(_ configuration: GatewayConfiguration) {
    replace(configuration.locations)
  }

  /// New places start at once; places that stay keep their schedule.
  func replace(_ locations: [GatewayConfiguration.NamedLocation]) {
    scheduled?.setLocations(locations.count)
    let names = Set(locations.map(\.name))
    board?.remove { key in
      if case .place(let name) = key { !names.contains(name) } else { false }
    }
    let previous = state.withLock { state in
      let previous = state.locations
      let old = Dictionary(uniqueKeysWithValues: previous.map { ($0.name, $0) })
      state.locations = locations
      state.due.keep { name in locations.contains { $0.name == name && $0 == old[name] } }
      return previous
    }
    guard let clear else { return }
    func published(_ places: [GatewayConfiguration.NamedLocation]) -> Set<String> {
      Set(
        places.flatMap { place in
          place.profiles.map { topics.location(name: place.name, profile: $0) }
        })
    }
    for gone in published(previous).subtracting(published(locations)).sorted() {
      clear(gone)
      clear(gone + "/json")
    }
  }

  /// `name` was pushed at `time` (a reading of the gateway clock): it is next due an interval
  /// later.
  func notePushed(_ name: String, at time: Duration) {
    state.withLock { state in
      guard let location = state.locations.first(where: { $0.name == name }) else { return }
      state.due.noteDone(name, at: time, seconds: location.refreshSeconds)
    }
  }

  /// A retained frame of `name`, its weather fetched `fetchedSecondsAgo`
  /// (`DueTimes.retainedPushSecondsAgo`).
  func noteRetainedPush(_ name: String, fetchedSecondsAgo: Int64) {
    state.withLock { state in
      guard let location = state.locations.first(where: { $0.name == name }) else { return }
      let ago = DueTimes.retainedPushSecondsAgo(
        fetchedSecondsAgo: fetchedSecondsAgo, intervalSeconds: location.refreshSeconds)
      state.due.noteDone(name, at: clock.now - .seconds(ago), seconds: location.refreshSeconds)
    }
  }

  /// Publishes every place now (after a reconnect, say), keeping the intervals.
  func publishAllSoon() {
    state.withLock { $0.due = DueTimes() }
  }

  func run() async throws {
    await runSchedule(
      tick: tick, clock: clock,
      takeDue: { (now: Duration) -> [GatewayConfiguration.NamedLocation] in
        // In a cluster nothing is due until the live set has settled: a member that (re)starts
        // knows only itself at first and would do what others own, before the fleet's shared
        // frames have reached it.
        if let members = self.members, !members.isSettled(at: self.clock.now) { return [] }
        // Every place stays on the schedule; in a cluster only its owner does the work, so
        // a place whose owner leaves is picked up within one interval.
        return self.state.withLock { state in
          state.due.takeDue(state.locations, now: now, key: \.name, seconds: \.refreshSeconds)
        }.filter { self.members?.owns($0.name) ?? true }
      },
      work: { await self.publish($0) })
  }

  func publish(_ location: GatewayConfiguration.NamedLocation) async {
    let query: LocationQuery
    switch location.place {
    case .coordinates(let latitude, let longitude):
      query = .coordinates(
        Coordinates(
          latitude: Int32((latitude * 100_000).rounded()),
          longitude: Int32((longitude * 100_000).rounded())))
    case .named(let name, let countryCode):
      query = .place(PlaceName(truncating: name), country: countryCode.flatMap { CountryCode($0) })
    }
    var outcome = await resolver.resolve(
      query, for: .scheduled, needs: ProfileSet(location.profiles))
    // Dropped (or changed) by a reload while its weather was fetched: its retained frames were
    // cleared then, and a publish now would bring them back.
    guard state.withLock({ $0.locations.contains(location) }) else { return }
    if case .weather(let frame, let stale, var place) = outcome {
      // The display shows the configured name when the place was given as coordinates.
      if case .coordinates = location.place { place.name = FrameName(truncating: location.name) }
      outcome = .weather(frame, stale: stale, place: place)
    }
    let logger = DeviceLog(logger: logger, device: "loc/" + location.name)
    // As for watches: a passing failure leaves the retained frame as it is.
    if outcome.isPassingFailure {
      logger.debug("named location not published: \(outcome.status)")
      return
    }
    for profile in location.profiles {
      outbox.send(
        outcome, requestID: 0, slot: 0, of: 1,
        to: Reply(topic: topics.location(name: location.name, profile: profile)),
        answering: Answering(profile: profile), retain: true, logger: logger)
    }
    board?.record(
      .place(location.name), frame: outbox.composer.standardFrame(of: outcome, slot: 0, of: 1),
      at: clock.unixTime())
    logger.debug("published named location")
  }
}
