import CoreMetrics
import Logging
import SkyframeCodec
import Synchronization

/// How the answers of a way in leave: each composed frame (or `unchanged`) handed to where the
/// request came from, one call per place in slot order. MQTT publishes it, LoRaWAN sends it as a
/// downlink, HTTP and CoAP write it into a response. The frame's bytes live for the call only.
package protocol WayOut: Sendable {
  /// Where one request's answers go (a topic, a downlink, a waiting response).
  associatedtype Reply: Sendable
  func send(_ answer: SentAnswer, to reply: Reply)
}

/// One composed answer as a way out sees it.
package struct SentAnswer {
  /// The frame, or `unchanged` when `unchanged`; valid during `WayOut.send` only.
  package let bytes: UnsafeRawBufferPointer
  package let status: FrameStatus
  package let unchanged: Bool
  package let slot: Int
  package let count: Int
  /// The frame's `next_update` (0: no hint).
  package let nextUpdateSeconds: Int
  /// Whether `bytes` was written for a place the request named (`false` for a refusal of the
  /// whole request).
  package let concernsPlace: Bool
}

/// A request a way in has read itself (LoRaWAN's uplink request, say), with what a refusal of
/// it carries.
package struct ReadRequest: Sendable {
  /// The request, or why it cannot be answered (its status and the reason, as the error
  /// frame's name).
  package var request: Result<DeviceRequest, Unreadable>
  /// The id a refusal carries (the request's when it could be read, else what the bytes held).
  package var requestID: UInt16
  /// The profile a refusal comes in.
  package var profile: FrameProfile
  /// What a refresh answers when the device has nothing remembered; nil refuses it.
  package var refreshFallback: LocationQuery?
  /// The status of a refresh with nothing remembered and no fallback.
  package var nothingToRefresh: FrameStatus

  package init(
    _ request: Result<DeviceRequest, Unreadable>, requestID: UInt16, profile: FrameProfile,
    refreshFallback: LocationQuery? = nil, nothingToRefresh: FrameStatus = .badRequest
  ) {
    self.request = request
    self.requestID = requestID
    self.profile = profile
    self.refreshFallback = refreshFallback
    self.nothingToRefresh = nothingToRefresh
  }
}

/// Why a request a way in read cannot be answered.
package struct Unreadable: Error, Sendable {
  package var status: FrameStatus
  package var reason: String

  package init(_ status: FrameStatus, _ reason: String) {
    self.status = status
    self.reason = reason
  }
}

/// What a way in may be told of its devices' refusals (the fast lane counts them toward a
/// flood).
package protocol IntakeWatcher: Sendable {
  /// A request dropped unanswered: its device was told `rate_limited` this minute already.
  func refusedSilently(at reading: Int64)
  /// A device's first request over its limit this minute.
  func refusedOverLimit(_ device: String, at reading: Int64)
  /// A request refused for its places (a new cell past the limits) or a full queue.
  func refusedForPlaces(_ device: String, at reading: Int64)
}

/// The rooms every way in answers through: the shared resolver and composer, the one bounded
/// queue and its workers, the metrics and the clock.
package struct AnswerRooms: Sendable {
  package let resolver: Resolver
  package let composer: Composer
  let queue: BoundedQueue<DeviceIntake.Job>
  package let metrics: GatewayMetrics
  package let clock: GatewayClock
  package let logger: Logger

  /// The intake of one way in: its own device table (ids of one way in do not share limits
  /// with another's), the shared rooms and limits.
  package func intake(
    way: String, configuration: GatewayConfiguration, watcher: (any IntakeWatcher)? = nil
  ) -> DeviceIntake {
    DeviceIntake(way: way, configuration: configuration, rooms: self, watcher: watcher)
  }
}

/// The one device intake: what every way in (MQTT, LoRaWAN, HTTP, CoAP, a test's) does with a
/// device's request, written once. A way in turns its message into a device id, request bytes
/// (or a request it read itself) and a reply, and gives a `WayOut` for the bytes; the intake
/// admits the device against its limit (one `rate_limited`, then silence until the minute
/// turns), reads the request, remembers its places and profile for `refresh`, answers at once
/// when the cache has every place, refuses a new cell past the limits, or queues the request
/// for the workers (the one waiting policy: `requests.queue-limit`, answered by the deadline),
/// and composes every answer in the profile asked — refusals too.
///
/// The cache-hit path allocates nothing: `receive` is generic over the way out and every
/// buffer is on the stack.
package final class DeviceIntake: NewCellAccount, Sendable {
  /// A request waiting for a worker: its places need an upstream call or a name look-up.
  struct Job: Sendable {
    var intake: DeviceIntake
    var device: String
    var requestID: UInt16
    var places: LocationList
    var answering: Answering
    /// For the request duration metric.
    var arrived: Int64
    /// When it was queued, on the gateway clock: the answer deadline counts from here.
    var queued: Duration
    /// Hands the outcomes to the way out the request came by.
    var deliver: @Sendable (DeviceIntake, [Outcome]) -> Void
  }

  /// The way in's name, for logs and metrics.
  package let way: String
  package let rooms: AnswerRooms
  let devices: DeviceTable
  private let watcherBox: Mutex<(any IntakeWatcher)?>
  /// Read on refusals only, never on the answer path.
  private var watcher: (any IntakeWatcher)? { watcherBox.withLock { $0 } }
  private let hot = Limits()

  private struct Limits: ~Copyable, Sendable {
    let perDevicePerMinute = Atomic<Int>(0)
    let maximumLocations = Atomic<Int>(0)
    let deadlineMilliseconds = Atomic<Int>(0)

    func store(_ configuration: GatewayConfiguration) {
      perDevicePerMinute.store(configuration.requests.perDevicePerMinute, ordering: .relaxed)
      maximumLocations.store(configuration.requests.maximumLocations, ordering: .relaxed)
      deadlineMilliseconds.store(configuration.requests.deadlineMilliseconds, ordering: .relaxed)
    }
  }

  init(
    way: String, configuration: GatewayConfiguration, rooms: AnswerRooms,
    watcher: (any IntakeWatcher)?
  ) {
    self.way = way
    self.rooms = rooms
    watcherBox = Mutex(watcher)
    devices = DeviceTable(capacity: configuration.requests.maximumDevices)
    hot.store(configuration)
  }

  /// Tells `watcher` of this way in's refusals from now on.
  package func watch(with watcher: any IntakeWatcher) {
    watcherBox.withLock { $0 = watcher }
  }

  package func update(_ configuration: GatewayConfiguration) {
    hot.store(configuration)
    devices.resize(to: configuration.requests.maximumDevices)
  }

  package var rememberedDevices: Int { devices.count }

  /// Whether `device` is a device id every way in takes: 1-32 of a-z A-Z 0-9 - _ . and not `.`
  /// or `..` (MQTT's topic rule).
  package static func isValidDevice(_ device: String) -> Bool {
    Router.isValidDevice(device.utf8)
  }
  package var perDevicePerMinute: Int { hot.perDevicePerMinute.load(ordering: .relaxed) }
  package var maximumLocations: Int { hot.maximumLocations.load(ordering: .relaxed) }
  private var metrics: GatewayMetrics { rooms.metrics }
  private var clock: GatewayClock { rooms.clock }

  package func log(_ device: String) -> DeviceLog {
    DeviceLog(logger: rooms.logger, device: device, limiter: rooms.resolver.logLimiter)
  }

  // MARK: Admission

  /// Counts a request of `device` against its limit. nil when it is to be dropped unanswered
  /// (it was told `rate_limited` this minute already; counted); else the admission, allowed or
  /// the first refusal, which `answer` turns into the answer or the one `rate_limited`.
  package func admit(
    _ device: String, now: Int64, reading: Int64,
    frameTopic: @Sendable (String) -> String = { _ in "" }
  ) -> DeviceTable.Admission? {
    let admission = devices.admit(
      device, minute: now / 60, perMinute: perDevicePerMinute, frameTopic: frameTopic,
      second: now)
    guard admission.allowed || admission.firstRefusal else {
      metrics.leftUnanswered()
      watcher?.refusedSilently(at: reading)
      return nil
    }
    if !admission.allowed { watcher?.refusedOverLimit(device, at: reading) }
    return admission
  }

  /// An answer the way in sends of its own accord, not asked by a request (a CoAP observer's
  /// notification): allowed, not counted against the device's limit.
  package func admitUnasked() -> DeviceTable.Admission {
    DeviceTable.Admission(frameTopic: "", allowed: true)
  }

  // MARK: Answering

  /// Answers the request in `payload` (text or binary, `request-v1.md`) of an admitted device.
  package func answer<Out: WayOut>(
    _ payload: UnsafeRawBufferPointer, from device: String,
    admission: borrowing DeviceTable.Admission, reply: Out.Reply, via out: Out,
    arrived: Int64, now: Int64
  ) {
    guard admission.allowed else {
      refuseOverLimit(
        device, requestID: DeviceRequest.requestID(in: payload),
        profile: DeviceRequest.namedProfile(in: payload) ?? .standard, reply: reply, via: out)
      return
    }
    let request: DeviceRequest
    do throws(RequestError) {
      request = try DeviceRequest(parsing: payload, maximumLocations: maximumLocations)
    } catch {
      log(device).info("bad request: \(error)")
      refuse(
        error.frameStatus, "\(error)", requestID: DeviceRequest.requestID(in: payload),
        profile: DeviceRequest.namedProfile(in: payload) ?? .standard, reply: reply, via: out)
      return
    }
    proceed(
      request, refreshFallback: nil, nothingToRefresh: .badRequest, from: device,
      admission: admission, reply: reply, via: out, arrived: arrived, now: now)
  }

  /// Answers a request the way in read itself.
  package func answer<Out: WayOut>(
    _ read: ReadRequest, from device: String, admission: borrowing DeviceTable.Admission,
    reply: Out.Reply, via out: Out, arrived: Int64, now: Int64
  ) {
    guard admission.allowed else {
      refuseOverLimit(
        device, requestID: read.requestID, profile: read.profile, reply: reply, via: out)
      return
    }
    switch read.request {
    case .failure(let error):
      log(device).info("bad request: \(error.reason)")
      refuse(
        error.status, error.reason, requestID: read.requestID, profile: read.profile,
        reply: reply, via: out)
    case .success(let request):
      proceed(
        request, refreshFallback: read.refreshFallback, nothingToRefresh: read.nothingToRefresh,
        from: device, admission: admission, reply: reply, via: out, arrived: arrived, now: now)
    }
  }

  /// One error answer to a whole request, with `text` (the reason) as its name.
  package func refuse<Out: WayOut>(
    _ status: FrameStatus, _ text: String, requestID: UInt16, profile: FrameProfile,
    reply: Out.Reply, via out: Out
  ) {
    send(
      .refusal(status, text), requestID: requestID, slot: 0, of: 1,
      answering: Answering(profile: profile), concernsPlace: false, reply: reply, via: out)
  }

  private func refuseOverLimit<Out: WayOut>(
    _ device: String, requestID: UInt16, profile: FrameProfile, reply: Out.Reply, via out: Out
  ) {
    log(device).info(
      "over \(perDevicePerMinute) requests a minute: rate_limited, nothing sent upstream")
    refuse(
      .rateLimited, "too many requests", requestID: requestID, profile: profile, reply: reply,
      via: out)
  }

  /// A read request of an admitted device: its places remembered (or, for a refresh, the ones
  /// remembered taken), then answered.
  private func proceed<Out: WayOut>(
    _ request: borrowing DeviceRequest, refreshFallback: LocationQuery?,
    nothingToRefresh: FrameStatus, from device: String,
    admission: borrowing DeviceTable.Admission, reply: Out.Reply, via out: Out, arrived: Int64,
    now: Int64
  ) {
    // The places go on by reference from here: the inline list is some 800 bytes.
    var answering = Answering(profile: request.profile ?? .standard, checks: request.checks)
    if !request.isRefresh {
      if !admission.isRemembered(request.places, profile: answering.profile) {
        devices.remember(request.places, profile: answering.profile, for: device)
      }
      answer(
        request.places, requestID: request.id, from: device, answering, reply: reply, via: out,
        arrived: arrived, now: now)
      return
    }
    guard let last = devices.lastRequest(of: device) else {
      if let refreshFallback {
        if let profile = request.profile { answering.profile = profile }
        answer(
          LocationList([refreshFallback]), requestID: request.id, from: device, answering,
          reply: reply, via: out, arrived: arrived, now: now)
        return
      }
      log(device).info("refresh without an earlier request")
      refuse(
        nothingToRefresh, "nothing to refresh", requestID: request.id,
        profile: answering.profile, reply: reply, via: out)
      return
    }
    if let profile = request.profile {
      // A refresh that names a profile makes it the one remembered (`request-v1.md` §2.4).
      if profile != last.profile { devices.remember(last.places, profile: profile, for: device) }
    } else {
      answering.profile = last.profile
    }
    answer(
      last.places, requestID: request.id, from: device, answering, reply: reply, via: out,
      arrived: arrived, now: now)
  }

  /// The places of a request: answered now from the cache, refused as new cells, or queued for a
  /// worker (a full or closed queue answers at once instead).
  private func answer<Out: WayOut>(
    _ places: borrowing LocationList, requestID: UInt16, from device: String,
    _ answering: Answering, reply: Out.Reply, via out: Out, arrived: Int64, now: Int64
  ) {
    if answerNow(places, requestID: requestID, answering, reply: reply, via: out, now: now) {
      metrics.requestDuration.recordNanoseconds(clock.reading() - arrived)
      return
    }
    if let refusal = rooms.resolver.refusedAsNew(places, from: device, account: self) {
      refusedForPlaces(device, at: arrived)
      send(
        refusal, requestID: requestID, slot: 0, of: 1, answering: answering,
        concernsPlace: true, reply: reply, via: out)
      return
    }
    let job = Job(
      intake: self, device: device, requestID: requestID, places: copy places,
      answering: answering, arrived: arrived, queued: clock.now,
      deliver: { intake, outcomes in
        for (slot, outcome) in outcomes.enumerated() {
          intake.send(
            outcome, requestID: requestID, slot: slot, of: outcomes.count,
            answering: answering, concernsPlace: true, reply: reply, via: out)
        }
      })
    switch rooms.queue.offer(job) {
    case .success:
      metrics.queueDepth.record(rooms.queue.depth)
    case .failure(let refusal):
      metrics.dropped()
      refusedForPlaces(device, at: clock.reading())
      let (status, text): (FrameStatus, String) =
        refusal == .full
        ? (.rateLimited, "gateway busy") : (.upstreamUnavailable, "gateway stopping")
      log(device).info(
        "\(text): answered \(status.name.map { "\($0)" } ?? "?") without queueing")
      refuse(
        status, text, requestID: requestID, profile: answering.profile, reply: reply, via: out)
    }
  }

  /// Sends every place's frame now if every place is in the cache; false (and nothing sent)
  /// when one needs waiting.
  private func answerNow<Out: WayOut>(
    _ places: borrowing LocationList, requestID: UInt16, _ answering: Answering,
    reply: Out.Reply, via out: Out, now: Int64
  ) -> Bool {
    let needs = ProfileSet(answering.profile)
    let resolver = rooms.resolver
    if places.count == 1 {
      // The common case, kept free of arrays.
      guard let outcome = resolver.resolveNow(places[0], needs: needs, time: now) else {
        return false
      }
      metrics.cacheHit()
      send(
        outcome, requestID: requestID, slot: 0, of: 1, answering: answering, time: now,
        concernsPlace: true, reply: reply, via: out)
      return true
    }
    var outcomes: [Outcome] = []
    outcomes.reserveCapacity(places.count)
    for index in 0..<places.count {
      guard let outcome = resolver.resolveNow(places[index], needs: needs) else { return false }
      outcomes.append(outcome)
    }
    for (slot, outcome) in outcomes.enumerated() {
      metrics.cacheHit()
      send(
        outcome, requestID: requestID, slot: slot, of: outcomes.count, answering: answering,
        concernsPlace: true, reply: reply, via: out)
    }
    return true
  }

  /// A worker's part: resolves a queued request's places (upstream calls included) and answers.
  func answer(_ job: Job) async {
    metrics.queueDepth.record(rooms.queue.depth)
    let deadlineMilliseconds = hot.deadlineMilliseconds.load(ordering: .relaxed)
    let deadline =
      deadlineMilliseconds > 0 ? job.queued + .milliseconds(deadlineMilliseconds) : nil
    let outcomes = await rooms.resolver.resolve(
      job.places, for: .device(job.device, self), answerBy: deadline,
      needs: ProfileSet(job.answering.profile))
    job.deliver(self, outcomes)
    metrics.requestDuration.recordNanoseconds(clock.reading() - job.arrived)
    log(job.device).debug("answered request \(job.requestID) with \(outcomes.count) frame(s)")
  }

  /// Composes `outcome` in the asked profile (or `unchanged`), counts it and hands it to `out`.
  private func send<Out: WayOut>(
    _ outcome: Outcome, requestID: UInt16, slot: Int, of count: Int, answering: Answering,
    time: Int64? = nil, concernsPlace: Bool, reply: Out.Reply, via out: Out
  ) {
    let composer = rooms.composer
    let metrics = metrics
    composer.compose(
      outcome, requestID: requestID, slot: slot, of: count, answering: answering, time: time
    ) { payload, unchanged, nextUpdate in
      metrics.answered(outcome.status, profile: answering.profile, unchanged: unchanged)
      metrics.answered(outcome, at: time ?? composer.unixTime())
      out.send(
        SentAnswer(
          bytes: payload, status: outcome.status, unchanged: unchanged, slot: slot, count: count,
          nextUpdateSeconds: Int(nextUpdate), concernsPlace: concernsPlace), to: reply)
    }
  }

  // MARK: NewCellAccount: the new cells of a way in's devices count in its device table.

  package func takeNewCell(_ device: String, minute: Int64, perMinute: Int) -> Bool {
    devices.takeNewCell(device, minute: minute, perMinute: perMinute)
  }

  package func hasSpentNewCells(_ device: String, minute: Int64, perMinute: Int) -> Bool {
    devices.hasSpentNewCells(device, minute: minute, perMinute: perMinute)
  }

  package func refusedNewCell(_ device: String) {
    refusedForPlaces(device, at: clock.reading())
  }

  /// A request of `device` refused for its places or a full queue: with a watcher, the device
  /// no longer counts as one that behaves (`DeviceTable.wellBehaved`), and the watcher hears.
  private func refusedForPlaces(_ device: String, at reading: Int64) {
    guard let watcher else { return }
    devices.markRefused(device)
    watcher.refusedForPlaces(device, at: reading)
  }
}
