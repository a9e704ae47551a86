import Foundation
import Logging
import ServiceLifecycle
import SkyframeCodec
import SkyframeMQTT
import Synchronization

/// Saved places ("map pins"): a device publishes a retained watch to `{base}/v1/watch/{device}`,
/// e.g. `Berlin,DE;48.85,2.35 @900`, and the gateway pushes fresh frames to that device on that
/// interval, retained, so a sleeping display finds them when it wakes. An empty retained message
/// removes the watch. Watches live in the broker (retained messages, kept in its persistence), so
/// a restarted gateway gets them all back when it subscribes.
///
/// One place goes to `{base}/v1/frame/{device}`; several go to `{base}/v1/frame/{device}/{slot}`
/// (a retained topic keeps only its last message); `{base}/v1/frame/{device}/#` receives both.
final class WatchScheduler: Service, Sendable {
  struct Watch: Sendable, Equatable {
    /// The places as many as it names, on the heap: a `LocationList` keeps room for 16 inline
    /// (about 900 bytes), which a watch would carry in the table and in every due list however
    /// few it names.
    var queries: [LocationQuery]
    var intervalSeconds: Int
    /// `~large Berlin @900`: pushes in that profile (request-v1.md §2.4).
    var profile: FrameProfile = .standard

    init(places: LocationList, intervalSeconds: Int, profile: FrameProfile = .standard) {
      queries = Array(places)
      self.intervalSeconds = intervalSeconds
      self.profile = profile
    }

    var places: LocationList { LocationList(queries) }
  }

  enum WatchError: Error, Equatable, CustomStringConvertible {
    case request(RequestError)
    case refresh
    case check
    case interval(String)

    var description: String {
      switch self {
      case .request(let error): "\(error)"
      case .refresh: "a watch names places; refresh is for requests"
      case .check: "a watch cannot carry ~check"
      case .interval(let text): "interval '\(text)' is not whole seconds after '@'"
      }
    }
  }

  private struct State {
    var watches: [String: Watch] = [:]
    var due = DueTimes()
  }

  private let state = Mutex(State())
  private let resolver: Resolver
  private let outbox: MQTTOutbox
  let settings:
    Mutex<
      (
        topics: GatewayConfiguration.Topics, watches: GatewayConfiguration.Watches,
        maximumLocations: Int
      )
    >
  private let logger: Logger
  let clock: GatewayClock
  private let scheduled: ScheduledWork?
  /// In a cluster, only the watches this instance owns are pushed here.
  private let members: ClusterMembers?
  /// What each watched place's displays show, for the status page and Home Assistant.
  private let board: DisplayBoard?
  /// Clears a retained message: a display that subscribes never finds a frame of a watch that
  /// no longer exists (or of a slot it no longer has).
  private let clear: (@Sendable (String) -> Void)?
  /// In a cluster: follows (or stops following) a watched device's frame topics, so that every
  /// member sees each push of the watch, whoever makes it (`notePushed`).
  let follow: (@Sendable (_ frameTopic: String, _ on: Bool) -> Void)?

  init(
    resolver: Resolver, outbox: MQTTOutbox, configuration: GatewayConfiguration,
    clock: GatewayClock,
    scheduled: ScheduledWork? = nil, members: ClusterMembers? = nil, board: DisplayBoard? = nil,
    clear: (@Sendable (String) -> Void)? = nil,
    follow: (@Sendable (_ frameTopic: String, _ on: Bool) -> Void)? = nil, logger: Logger
  ) {
    self.follow = follow
    self.clear = clear
    self.board = board
    self.scheduled = scheduled
    self.members = members
    self.resolver = resolver
    self.outbox = outbox
    self.clock = clock
    settings = Mutex(
      (configuration.topics, configuration.watches, configuration.requests.maximumLocations))
    self.logger = logger
  }

  func update(_ configuration: GatewayConfiguration) {
    settings.withLock {
      $0 = (configuration.topics, configuration.watches, configuration.requests.maximumLocations)
    }
  }

  /// Parses `places [@seconds]`; the interval defaults to and is clamped by the configuration.
  static func parse(
    _ payload: [UInt8], watches: GatewayConfiguration.Watches, maximumLocations: Int
  )
    throws(WatchError) -> Watch
  {
    var text = payload[...]
    var interval = watches.defaultSeconds
    if let at = text.lastIndex(of: UInt8(ascii: "@")) {
      let digits = String(decoding: text[(at + 1)...], as: UTF8.self).trimmingCharacters(in: [
        " ", "\n", "\r", "\t",
      ])
      guard let seconds = Int(digits), seconds > 0 else {
        // Device text in a log line: cut short, control characters out.
        let shown = digits.prefix(16).map { character -> Character in
          character.isASCII && (character.isLetter || character.isNumber || character.isPunctuation)
            ? character : "?"
        }
        throw .interval(String(shown) + (digits.count > 16 ? "…" : ""))
      }
      interval = min(max(seconds, watches.minimumSeconds), 86_400)
      text = text[..<at]
    }
    let request: DeviceRequest
    do throws(RequestError) {
      request = try DeviceRequest(parsing: Array(text), maximumLocations: maximumLocations)
    } catch {
      throw .request(error)
    }
    guard case .locations(let places) = request.body else { throw .refresh }
    // A retained watch cannot know what the display shows.
    guard request.checks.isEmpty else { throw .check }
    return Watch(
      places: places, intervalSeconds: interval, profile: request.profile ?? .standard)
  }

  /// A retained watch message (or its removal) arrived from `device`.
  /// `retained`: delivered from the broker's store on (re)subscribing, not just now published:
  /// a watch the gateway knew already, or one it learns at start; logged at debug level only, so
  /// that a start or reconnect with thousands of watches does not write a line for each.
  func receive(device: String, payload: [UInt8], retained: Bool = false) {
    let (topics, limits, maximumLocations) = settings.withLock { $0 }
    let log = DeviceLog(logger: logger, device: device, limiter: resolver.logLimiter)
    guard !payload.isEmpty else {
      let (count, removed) = state.withLock { state in
        let removed = state.watches.removeValue(forKey: device)
        state.due.reset(device)
        return (state.watches.count, removed)
      }
      scheduled?.setWatches(count)
      board?.removeWatch(device)
      guard let removed else { return }
      follow?(topics.frame(device: device), false)
      clearFrames(of: device, slots: removed.queries.count, keeping: 0, topics: topics)
      log.info("watch removed")
      return
    }
    do throws(WatchError) {
      let watch = try Self.parse(payload, watches: limits, maximumLocations: maximumLocations)
      let (accepted, changed, before) = state.withLock { state -> (Bool, Bool, Int) in
        let before = state.watches[device]?.queries.count ?? 0
        guard state.watches[device] != nil || state.watches.count < limits.maximumWatches else {
          return (false, false, before)
        }
        let changed = state.watches[device] != watch
        if changed {
          // In a cluster a watch found retained (at a start) waits a moment for the frame topic
          // it is now followed on: its retained frame says when it was last pushed.
          if retained, follow != nil, state.watches[device] == nil {
            state.due.noteDone(device, at: clock.now + Self.followGrace, seconds: 0)
          } else {
            state.due.reset(device)
          }
        }
        state.watches[device] = watch
        return (true, changed, before)
      }
      if accepted, before > 0 {
        clearFrames(of: device, slots: before, keeping: watch.queries.count, topics: topics)
      }
      scheduled?.setWatches(count)
      guard accepted else {
        log.warning("watch refused: the gateway keeps at most \(limits.maximumWatches)")
        outbox.refuse(
          .rateLimited, "too many watches", requestID: 0,
          to: Reply(topic: topics.frame(device: device)), profile: watch.profile, logger: log)
        return
      }
      if before == 0 { follow?(topics.frame(device: device), true) }
      let line = "watching \(watch.queries.count) place(s) every \(watch.intervalSeconds) s"
      if changed, !retained { log.info(line) } else { log.debug(line) }
    } catch {
      log.warning("bad watch: \(error)")
      let status: FrameStatus =
        if case .request(let request) = error { request.frameStatus } else { .badRequest }
      let profile = payload.withUnsafeBytes { DeviceRequest.namedProfile(in: $0) } ?? .standard
      outbox.refuse(
        status, "watch: \(error)", requestID: 0, to: Reply(topic: topics.frame(device: device)),
        profile: profile, logger: log)
    }
  }

  /// How long a watch found retained at a start waits, in a cluster, for its last push to be
  /// seen on the frame topic it is followed on.
  static let followGrace = Duration.seconds(3)
  /// Connects so far: the first (the start) resets nothing.
  let connects = Atomic<Int>(0)

  var count: Int { state.withLock { $0.watches.count } }

  /// `device`'s watch was pushed at `time` (a reading of the gateway clock), by this member or
  /// another: it is next due an interval later.
  func notePushed(_ device: String, at time: Duration) {
    state.withLock { state in
      guard let watch = state.watches[device] else { return }
      state.due.noteDone(device, at: time, seconds: watch.intervalSeconds)
    }
  }

  /// A retained frame of `device`'s watch, its weather fetched `fetchedSecondsAgo`
  /// (`DueTimes.retainedPushSecondsAgo`).
  func noteRetainedPush(_ device: String, fetchedSecondsAgo: Int64) {
    state.withLock { state in
      guard let watch = state.watches[device] else { return }
      let ago = DueTimes.retainedPushSecondsAgo(
        fetchedSecondsAgo: fetchedSecondsAgo, intervalSeconds: watch.intervalSeconds)
      state.due.noteDone(device, at: clock.now - .seconds(ago), seconds: watch.intervalSeconds)
    }
  }

  /// Every watch is pushed again at the next tick (their intervals go on from there).
  func pushAllSoon() {
    state.withLock { $0.due = DueTimes() }
  }

  /// Clears the retained frames of `device`'s watch of `slots` places that a watch of `kept`
  /// places does not publish again: all of them when it went. In a fleet every member hears the
  /// change and only the watch's owner clears (one empty message a topic, not one a member).
  private func clearFrames(
    of device: String, slots: Int, keeping kept: Int, topics: GatewayConfiguration.Topics
  ) {
    guard let clear, members?.owns(device) ?? true else { return }
    for topic in Self.topicsToClear(of: device, slots: slots, keeping: kept, topics: topics) {
      clear(topic)
    }
  }

  /// The retained topics a watch of `slots` places leaves behind when it becomes one of `kept`
  /// places: its frames there are no more, and their JSON mirrors while `topics.debug-json` is on.
  static func topicsToClear(
    of device: String, slots: Int, keeping kept: Int, topics: GatewayConfiguration.Topics
  ) -> [String] {
    let base = topics.frame(device: device)
    func topic(_ slot: Int, of count: Int) -> String { count == 1 ? base : "\(base)/\(slot)" }
    let old = Set((0..<slots).map { topic($0, of: slots) })
    let new = Set((0..<kept).map { topic($0, of: kept) })
    return old.subtracting(new).sorted().flatMap { gone in
      topics.debugJSON ? [gone, gone + "/json"] : [gone]
    }
  }

  func run() async {
    await runSchedule(
      tick: .milliseconds(250), clock: clock,
      concurrency: { self.settings.withLock { $0.watches.concurrency } },
      key: { (item: (key: String, value: Watch)) in item.key },
      takeDue: { (now: Duration) -> [(key: String, value: Watch)] in
        // In a cluster nothing is due until the live set has settled: a member that (re)starts
        // knows only itself at first and would do what others own, before the fleet's shared
        // frames have reached it.
        if let members = self.members, !members.isSettled(at: self.clock.now) { return [] }
        // Every instance keeps every watch (they are retained); only the owner pushes.
        return self.state.withLock { state in
          state.due.takeDue(state.watches, now: now, key: \.key, seconds: \.value.intervalSeconds)
        }.filter { self.members?.owns($0.key) ?? true }
      },
      work: { await self.push($0.value, to: $0.key) })
  }

  private func push(_ watch: Watch, to device: String) async {
    let topics = settings.withLock { $0.topics }
    let log = DeviceLog(logger: logger, device: device)
    let outcomes = await resolver.resolve(
      watch.places, for: .scheduled, needs: ProfileSet(watch.profile))
    // Removed or changed while its places were fetched: this push is no longer wanted, and a
    // retained frame now would outlive the watch.
    guard state.withLock({ $0.watches[device] == watch }) else { return }
    let base = topics.frame(device: device)
    board?.removeWatch(device, keeping: outcomes.count)
    for (slot, outcome) in outcomes.enumerated() {
      // No fresh weather and nothing cached to serve stale: the retained frame the display shows
      // stays; the next push tries again.
      if outcome.isPassingFailure {
        log.debug("watch slot \(slot) not pushed: \(outcome.status)")
        continue
      }
      let topic = outcomes.count == 1 ? base : "\(base)/\(slot)"
      outbox.send(
        outcome, requestID: 0, slot: slot, of: outcomes.count, to: Reply(topic: topic),
        answering: Answering(profile: watch.profile), retain: true, logger: log)
      board?.record(
        .watch(device: device, slot: outcomes.count == 1 ? nil : slot),
        frame: outbox.composer.standardFrame(of: outcome, slot: slot, of: outcomes.count),
        at: clock.unixTime())
    }
    log.debug("pushed a watch")
  }
}
