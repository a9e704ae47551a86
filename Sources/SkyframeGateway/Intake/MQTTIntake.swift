import CoreMetrics
import Foundation
import Logging
import SkyframeCodec
import SkyframeMQTT
import Synchronization

/// The way in of MQTT requests: what is MQTT's own around the one device intake. A request
/// message's device comes from its topic; a second copy (the fast lane's), another member's
/// device and the broker's replay are dropped here; the answer goes to the device's frame topic
/// or the response topic it gave (when the rule allows it), at the QoS `topics.answer-qos` says,
/// out through the outbox on the connection it came in on. Admission, reading, remembering,
/// answering now or queueing are the intake's (`DeviceIntake`).
///
/// `receive` runs on the MQTT network thread and does everything that needs no waiting: a
/// request whose places are all in the cache is answered there (no hop, no allocation).
final class MQTTIntake: Sendable {
  /// What the rest reads under a lock; what every request reads is in `HotSettings`.
  struct Settings: Sendable {
    var topics: GatewayConfiguration.Topics
    var responseTopics: ResponseTopicRule

    init(_ configuration: GatewayConfiguration) {
      topics = configuration.topics
      responseTopics = ResponseTopicRule(topics: configuration.topics)
    }
  }

  private let settings: Mutex<Settings>
  /// What every request reads of the configuration, as atomics: a load each on the network
  /// thread instead of a lock. `update` writes them with `settings`.
  private let hot = HotSettings()

  private struct HotSettings: ~Copyable, Sendable {
    /// `topics.answer-qos` applied to a QoS 0 request and to a QoS 1 or 2 one.
    let answerQoSToQoS0 = Atomic<Int>(0)
    let answerQoSToQoS1 = Atomic<Int>(1)

    func store(_ configuration: GatewayConfiguration) {
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

  /// The one device intake, with MQTT devices' own table.
  let devices: DeviceIntake
  private let outbox: MQTTOutbox
  private let logger: Logger
  /// Lines about devices (refusals, bad requests) are rate limited per device.
  var logLimiter: DeviceLogLimiter { devices.rooms.resolver.logLimiter }
  var queue: BoundedQueue<DeviceIntake.Job> { devices.rooms.queue }
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
    configuration: GatewayConfiguration, rooms: AnswerRooms, outbox: MQTTOutbox,
    fastLane link: FastLaneLink? = nil, lane: Int = 0, members: ClusterMembers? = nil
  ) {
    self.members = members
    answered = AnsweredMemory(capacity: 4 * configuration.requests.maximumDevices)
    replayWindowSeconds.store(
      Int64(configuration.requests.replayWindowSeconds), ordering: .relaxed)
    settings = Mutex(Settings(configuration))
    hot.store(configuration)
    let (clock, logger, metrics) = (rooms.clock, rooms.logger, rooms.metrics)
    let devices = rooms.intake(way: "mqtt", configuration: configuration)
    self.devices = devices
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
            devices.devices.wellBehaved(
              limit: limit, minute: clock.unixTime() / 60,
              knownBy: clock.unixTime(atReading: floodBegan) - FastLane.knownSeconds - 1,
              walking: limit * 16)
          }, log: { logger.warning("\($0)") }),
        gauge: { metrics.fastLaneDevices.record($0) })
    }
    if let fastLane { devices.watch(with: fastLane) }
    self.metrics = metrics
    self.clock = clock
    self.logger = logger
  }

  func update(_ configuration: GatewayConfiguration) {
    settings.withLock { $0 = Settings(configuration) }
    hot.store(configuration)
    replayWindowSeconds.store(
      Int64(configuration.requests.replayWindowSeconds), ordering: .relaxed)
    devices.update(configuration)
    logLimiter.resize(to: configuration.requests.maximumDevices)
    queue.setLimit(configuration.requests.queueLimit)
  }

  var rememberedDevices: Int { devices.rememberedDevices }

  /// On the network thread of request connection `lane`: answers `message` now if it can, else
  /// queues it for a worker (or, when the queue is full, answers `rate_limited` at once).
  func receive(_ message: MQTTIncoming, from device: String, lane: Int = 0) {
    let arrived = clock.reading()
    guard !isSecondCopy(message, from: device, lane: lane, now: arrived) else { return }
    let now = clock.unixTime(atReading: arrived)
    guard takes(message, from: device, lane: lane, now: now, reading: arrived) else { return }
    guard
      let admission = devices.admit(
        device, now: now, reading: arrived,
        frameTopic: { device in settings.withLock { $0.topics.frame(device: device) } })
    else { return }
    let qos = hot.qos(answering: message.qos)
    guard
      let reply = reply(
        to: message, from: device, defaultTopic: admission.frameTopic, qos: qos, lane: lane,
        allowed: admission.allowed)
    else { return }
    devices.answer(
      message.payload, from: device, admission: admission, reply: reply, via: outbox,
      arrived: arrived, now: now)
  }

  /// Where the answer goes: the device's frame topic, or the response topic it gave when the
  /// rule allows it. nil when the response topic is refused: the device is answered on its own
  /// frame topic (`bad_request`, or `rate_limited` past its limit) and nothing else is done.
  private func reply(
    to message: MQTTIncoming, from device: String, defaultTopic: String, qos: Int, lane: Int,
    allowed: Bool
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
    devices.log(device).warning(
      "response topic \(responseTopic.prefix(64))\(responseTopic.utf8.count > 64 ? "…" : "") refused (\(refusal); allowed: \(rule.branch(of: device))[/…]): answering bad_request on the device topic"
    )
    let (status, text): (FrameStatus, String) =
      allowed ? (.badRequest, "response topic refused") : (.rateLimited, "too many requests")
    devices.refuse(
      status, text, requestID: DeviceRequest.requestID(in: message.payload),
      profile: DeviceRequest.namedProfile(in: message.payload) ?? .standard, reply: reply,
      via: outbox)
    return nil
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
}

/// The fast lane hears of the MQTT intake's refusals: they count toward a flood, and a device
/// refused over its limit is no well-behaved one.
extension FastLane: IntakeWatcher {
  func refusedSilently(at reading: Int64) { noteRefusal(now: reading) }
  func refusedOverLimit(_ device: String, at reading: Int64) {
    refusedOverLimit(device, now: reading)
  }
  func refusedForPlaces(_ device: String, at reading: Int64) { noteRefusal(now: reading) }
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
