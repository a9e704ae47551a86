import CoreMetrics
import Foundation
import Logging
import SkyframeCodec
import SkyframeMQTT
import Synchronization

/// The way in of MQTT requests: a request message from a device is admitted against the device's
/// limit, parsed, and answered with one frame per place, in the order the device named them —
/// by the shared resolver and composer, out through the outbox.
///
/// `receive` runs on the MQTT network thread and does everything that needs no waiting: the
/// request is parsed, counted against the device's limit, and answered at once when every place
/// is in the cache (the intake calling resolver and composer directly: no hop, no allocation).
/// Otherwise it becomes a `Job` for the bounded queue, and a worker finishes it with `answer`.
/// Every refusal comes in the profile the request named (`DeviceRequest.namedProfile(in:)`).
final class MQTTIntake: NewCellAccount, Sendable {
  /// What the rest reads under a lock; what every request reads is in `HotSettings`.
  struct Settings: Sendable {
    var topics: GatewayConfiguration.Topics
    var responseTopics: ResponseTopicRule
    var deadlineMilliseconds: Int

    init(_ configuration: GatewayConfiguration) {
      topics = configuration.topics
      responseTopics = ResponseTopicRule(topics: configuration.topics)
      deadlineMilliseconds = configuration.requests.deadlineMilliseconds
    }
  }

  /// A request that waits for a worker: its places need an upstream call (or a name look-up).
  struct Job: Sendable {
    var device: String
    var requestID: UInt16
    var places: LocationList
    var reply: Reply
    /// For the request duration metric.
    var arrived: Int64
    /// When it was queued, on the gateway clock: the answer deadline counts from here.
    var queued: Duration
    var answering = Answering()
  }

  private let settings: Mutex<Settings>
  /// What every request reads of the configuration, as atomics: a load each on the network
  /// thread instead of a lock. `update` writes them with `settings`.
  private let hot = HotSettings()

  private struct HotSettings: ~Copyable, Sendable {
    let perDevicePerMinute = Atomic<Int>(0)
    let maximumLocations = Atomic<Int>(0)
    /// `topics.answer-qos` applied to a QoS 0 request and to a QoS 1 or 2 one.
    let answerQoSToQoS0 = Atomic<Int>(0)
    let answerQoSToQoS1 = Atomic<Int>(1)

    func store(_ configuration: GatewayConfiguration) {
      perDevicePerMinute.store(configuration.requests.perDevicePerMinute, ordering: .relaxed)
      maximumLocations.store(configuration.requests.maximumLocations, ordering: .relaxed)
      let rule = configuration.topics.answerQoS
      answerQoSToQoS0.store(rule.qos(answering: 0), ordering: .relaxed)
      answerQoSToQoS1.store(rule.qos(answering: 1), ordering: .relaxed)
    }

    /// The QoS of the answer to a request that came at `requestQoS`.
    func qos(answering requestQoS: Int) -> Int {
      requestQoS == 0
        ? answerQoSToQoS0.load(ordering: .relaxed) : answerQoSToQoS1.load(ordering: .relaxed)
    }
  }

  private let resolver: Resolver
  private let outbox: MQTTOutbox
  private let logger: Logger
  private let devices: DeviceTable
  /// Lines about devices (refusals, bad requests) are rate limited per device.
  var logLimiter: DeviceLogLimiter { resolver.logLimiter }
  let queue: BoundedQueue<Job>
  let metrics: GatewayMetrics
  let clock: GatewayClock
  /// The well-behaved devices' way past a flood; nil without its connection.
  let fastLane: FastLane?
  /// The cluster's live members: in a fleet every member's session gets every request (a plain
  /// subscription, which the broker keeps for an offline session across its own restart), and
  /// each member answers the devices it owns. nil alone.
  let members: ClusterMembers?
  /// Requests that came before the live set settled (a member's first second), answered by
  /// their owners when it has; at most `queueLimit`.
  let held = Mutex(Held())

  /// The requests held, in arrival order, and how many there were when a takeover marker for
  /// this member came (the first): those before it nobody answered; those after it the member
  /// that took over did.
  struct Held {
    var requests: [(message: MQTTMessage, device: String, lane: Int)] = []
    var beforeTakeover: Int?
  }
  /// QoS 1 requests with an id taken lately, so that the broker's replay after a restart is not
  /// answered twice (`requests.replay-window-seconds`).
  let answered: AnsweredMemory
  let replayWindowSeconds = Atomic<Int64>(0)
  /// Until when (a clock reading) messages may be the broker's replay: a while after a connect
  /// that found the session.
  let replayUntil = Atomic<Int64>(Int64.min)
  /// How long after a connect that found the session a request is checked against `answered`.
  static let replayNanoseconds: Int64 = 30_000_000_000

  init(
    configuration: GatewayConfiguration, resolver: Resolver, outbox: MQTTOutbox,
    fastLane link: FastLaneLink? = nil, lane: Int = 0, queue: BoundedQueue<Job>,
    members: ClusterMembers? = nil, metrics: GatewayMetrics, clock: GatewayClock, logger: Logger
  ) {
    self.members = members
    answered = AnsweredMemory(capacity: 4 * configuration.requests.maximumDevices)
    replayWindowSeconds.store(
      Int64(configuration.requests.replayWindowSeconds), ordering: .relaxed)
    settings = Mutex(Settings(configuration))
    hot.store(configuration)
    let devices = DeviceTable(capacity: configuration.requests.maximumDevices)
    self.devices = devices
    self.resolver = resolver
    self.outbox = outbox
    let topics = configuration.topics
    fastLane = link.map { link in
      FastLane(
        capacity: link.capacity, lane: lane,
        connection: FastLane.Connection(
          subscribe: { link.subscribe(topics.request(device: $0)) },
          unsubscribe: { link.unsubscribe(topics.request(device: $0)) },
          wellBehaved: { limit, floodBegan in
            // Known before the flood: one that came with it may be part of it.
            devices.wellBehaved(
              limit: limit, minute: clock.unixTime() / 60,
              knownBy: clock.unixTime(atReading: floodBegan) - FastLane.knownSeconds - 1,
              walking: limit * 16)
          }, log: { logger.warning("\($0)") }),
        gauge: { metrics.fastLaneDevices.record($0) })
    }
    self.queue = queue
    self.metrics = metrics
    self.clock = clock
    self.logger = logger
  }

  func update(_ configuration: GatewayConfiguration) {
    settings.withLock { $0 = Settings(configuration) }
    hot.store(configuration)
    replayWindowSeconds.store(
      Int64(configuration.requests.replayWindowSeconds), ordering: .relaxed)
    devices.resize(to: configuration.requests.maximumDevices)
    logLimiter.resize(to: configuration.requests.maximumDevices)
    queue.setLimit(configuration.requests.queueLimit)
  }

  var rememberedDevices: Int { devices.count }

  /// On the network thread of request connection `lane`: answers `message` now if it can, else
  /// queues it for a worker (or, when the queue is full, answers `rate_limited` at once).
  func receive(_ message: MQTTIncoming, from device: String, lane: Int = 0) {
    let arrived = clock.reading()
    guard !isSecondCopy(message, from: device, lane: lane, now: arrived) else { return }
    let now = clock.unixTime(atReading: arrived)
    guard takes(message, from: device, lane: lane, now: now, reading: arrived) else { return }
    let perDevicePerMinute = hot.perDevicePerMinute.load(ordering: .relaxed)
    // Made only when a line is written: making it copies the logger (reference counting).
    func logger() -> DeviceLog {
      DeviceLog(logger: self.logger, device: device, limiter: logLimiter)
    }
    let admission = devices.admit(
      device, minute: now / 60, perMinute: perDevicePerMinute,
      frameTopic: { device in settings.withLock { $0.topics.frame(device: device) } }, second: now)
    guard admission.allowed || admission.firstRefusal else {
      // Told `rate_limited` once this minute: not parsed, not answered, not logged.
      metrics.leftUnanswered()
      fastLane?.noteRefusal(now: arrived)
      return
    }
    if !admission.allowed { fastLane?.refusedOverLimit(device, now: arrived) }
    let qos = hot.qos(answering: message.qos)
    guard
      let reply = reply(
        to: message, from: device, defaultTopic: admission.frameTopic, qos: qos, lane: lane,
        allowed: admission.allowed, logger: logger())
    else { return }

    guard admission.allowed else {
      logger().info(
        "over \(perDevicePerMinute) requests a minute: rate_limited, nothing sent upstream")
      refuse(.rateLimited, "too many requests", message, to: reply, logger: logger())
      return
    }

    let request: DeviceRequest
    do throws(RequestError) {
      request = try DeviceRequest(
        parsing: message.payload, maximumLocations: hot.maximumLocations.load(ordering: .relaxed))
    } catch {
      logger().info("bad request: \(error)")
      refuse(error.frameStatus, "\(error)", message, to: reply, logger: logger())
      return
    }

    // The places go on by reference from here: the inline list is some 800 bytes.
    var answering = Answering(profile: request.profile ?? .standard, checks: request.checks)
    if !request.isRefresh {
      if !admission.isRemembered(request.places, profile: answering.profile) {
        devices.remember(request.places, profile: answering.profile, for: device)
      }
      answer(
        request.places, requestID: request.id, from: device, answering, to: reply,
        arrived: arrived, now: now, logger())
    } else {
      guard let last = devices.lastRequest(of: device) else {
        logger().info("refresh without an earlier request")
        outbox.refuse(
          .badRequest, "refresh: nothing asked yet", requestID: request.id, to: reply,
          profile: answering.profile, logger: logger())
        return
      }
      if let profile = request.profile {
        // A refresh that names a profile makes it the one remembered (`request-v1.md` §2.4).
        if profile != last.profile { devices.remember(last.places, profile: profile, for: device) }
      } else {
        answering.profile = last.profile
      }
      answer(
        last.places, requestID: request.id, from: device, answering, to: reply, arrived: arrived,
        now: now, logger())
    }
  }

  /// The places of a parsed request (or of the one a refresh repeats): answered now from the
  /// cache, refused as new cells, or queued for a worker.
  private func answer(
    _ places: borrowing LocationList, requestID: UInt16, from device: String,
    _ answering: Answering, to reply: Reply, arrived: Int64, now: Int64,
    _ logger: @autoclosure () -> DeviceLog
  ) {
    if answerNow(places, requestID: requestID, answering, to: reply, now: now, logger: logger()) {
      metrics.requestDuration.recordNanoseconds(clock.reading() - arrived)
      return
    }
    if let refusal = resolver.refusedAsNew(places, from: device, account: self) {
      refused(device, at: arrived)
      outbox.send(
        refusal, requestID: requestID, slot: 0, of: 1, to: reply, answering: answering,
        logger: logger())
      return
    }
    enqueue(
      Job(
        device: device, requestID: requestID, places: copy places, reply: reply,
        arrived: arrived, queued: clock.now, answering: answering), logger: logger())
  }

  /// Where the answer goes: the device's frame topic, or the response topic it gave when the
  /// rule allows it. nil when the response topic is refused: the device is answered on its own
  /// frame topic (`bad_request`, or `rate_limited` past its limit) and nothing else is done.
  private func reply(
    to message: MQTTIncoming, from device: String, defaultTopic: String, qos: Int, lane: Int,
    allowed: Bool, logger: @autoclosure () -> DeviceLog
  ) -> Reply? {
    let reply = Reply(topic: defaultTopic, correlationData: nil, qos: qos, lane: lane)
    guard let responseTopic = message.responseTopic() else { return reply }
    let rule = settings.withLock { $0.responseTopics }
    guard let refusal = rule.refusal(of: responseTopic, for: device) else {
      return Reply(
        topic: responseTopic, correlationData: message.correlationData(), qos: qos, lane: lane)
    }
    metrics.refusedResponseTopic()
    // Counted against the device's limit; the line is cut short and rate limited.
    logger().warning(
      "response topic \(responseTopic.prefix(64))\(responseTopic.utf8.count > 64 ? "…" : "") refused (\(refusal); allowed: \(rule.branch(of: device))[/…]): answering bad_request on the device topic"
    )
    let (status, text): (FrameStatus, String) =
      allowed ? (.badRequest, "response topic refused") : (.rateLimited, "too many requests")
    refuse(status, text, message, to: reply, logger: logger())
    return nil
  }

  /// One error frame answering the whole of `message`, which was not (or could not be) parsed:
  /// with the id and in the profile it names, when it names them.
  private func refuse(
    _ status: FrameStatus, _ text: String, _ message: MQTTIncoming, to reply: Reply,
    logger: @autoclosure () -> DeviceLog
  ) {
    outbox.refuse(
      status, text, requestID: DeviceRequest.requestID(in: message.payload), to: reply,
      profile: DeviceRequest.namedProfile(in: message.payload) ?? .standard, logger: logger())
  }

  /// Hands `job` to the workers; a full or closed queue answers at once instead.
  private func enqueue(_ job: Job, logger: DeviceLog) {
    switch queue.offer(job) {
    case .success:
      metrics.queueDepth.record(queue.depth)
    case .failure(let refusal):
      metrics.dropped()
      refused(job.device, at: clock.reading())
      let (status, text): (FrameStatus, String) =
        refusal == .full
        ? (.rateLimited, "gateway busy") : (.upstreamUnavailable, "gateway stopping")
      logger.info("\(text): answered \(status.name.map { "\($0)" } ?? "?") without queueing")
      outbox.refuse(
        status, text, requestID: job.requestID, to: job.reply, profile: job.answering.profile,
        logger: logger)
    }
  }

  /// Whether `message` is the second copy of a request already answered (`FastLane`): counted
  /// and dropped.
  private func isSecondCopy(_ message: MQTTIncoming, from device: String, lane: Int, now: Int64)
    -> Bool
  {
    guard let fastLane, fastLane.isActive,
      fastLane.isSecondCopy(of: message, from: device, lane: lane, now: now)
    else { return false }
    metrics.droppedSecondCopy()
    return true
  }

  /// A request refused for its places or a full queue: the device does not count as one that
  /// behaves (`FastLane`), and the refusal counts toward a flood.
  private func refused(_ device: String, at now: Int64) {
    guard let fastLane else { return }
    devices.markRefused(device)
    fastLane.noteRefusal(now: now)
  }

  /// Publishes every place's frame now if every place is in the cache; false (and nothing
  /// published) when one needs waiting.
  private func answerNow(
    _ places: borrowing LocationList, requestID: UInt16, _ answering: Answering, to reply: Reply,
    now: Int64, logger: @autoclosure () -> DeviceLog
  ) -> Bool {
    let needs = ProfileSet(answering.profile)
    if places.count == 1 {
      // The common case, kept free of arrays.
      guard let outcome = resolver.resolveNow(places[0], needs: needs, time: now) else {
        return false
      }
      metrics.cacheHit()
      outbox.send(
        outcome, requestID: requestID, slot: 0, of: 1, to: reply, answering: answering, time: now,
        logger: logger())
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
      outbox.send(
        outcome, requestID: requestID, slot: slot, of: outcomes.count, to: reply,
        answering: answering, logger: logger())
    }
    return true
  }

  /// A worker's part: resolves a queued request's places (upstream calls included) and answers.
  func answer(_ job: Job) async {
    metrics.queueDepth.record(queue.depth)
    let logger = DeviceLog(logger: logger, device: job.device, limiter: logLimiter)
    let deadlineMilliseconds = settings.withLock { $0.deadlineMilliseconds }
    let deadline =
      deadlineMilliseconds > 0 ? job.queued + .milliseconds(deadlineMilliseconds) : nil
    let outcomes = await resolver.resolve(
      job.places, for: .device(job.device, self), answerBy: deadline,
      needs: ProfileSet(job.answering.profile))
    for (slot, outcome) in outcomes.enumerated() {
      outbox.send(
        outcome, requestID: job.requestID, slot: slot, of: outcomes.count, to: job.reply,
        answering: job.answering, logger: logger)
    }
    metrics.requestDuration.recordNanoseconds(clock.reading() - job.arrived)
    logger.debug("answered request \(job.requestID) with \(outcomes.count) frame(s)")
  }

  // MARK: NewCellAccount: MQTT devices' new cells count in this way in's device table.

  func takeNewCell(_ device: String, minute: Int64, perMinute: Int) -> Bool {
    devices.takeNewCell(device, minute: minute, perMinute: perMinute)
  }

  func hasSpentNewCells(_ device: String, minute: Int64, perMinute: Int) -> Bool {
    devices.hasSpentNewCells(device, minute: minute, perMinute: perMinute)
  }

  func refusedNewCell(_ device: String) {
    refused(device, at: clock.reading())
  }
}

extension [UInt8]? {
  /// `body` with the bytes, or with nil when there are none.
  func withUnsafeBytesOrNil<Result>(
    _ body: (UnsafeRawBufferPointer?) -> Result
  ) -> Result {
    guard let self else { return body(nil) }
    return self.withUnsafeBytes { body($0) }
  }
}
