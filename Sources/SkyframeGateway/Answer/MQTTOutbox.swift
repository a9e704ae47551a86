import Logging
import SkyframeCodec
import SkyframeJSON
import SkyframeMQTT
import Synchronization

/// The way out of MQTT answers: the composer's frame published on the connection its request
/// came in on, counted once, a failure counted and logged once, and the debug JSON mirror.
/// Requests, watches and named places all answer through it.
final class MQTTOutbox: WayOut, Sendable {
  let composer: Composer
  /// One per request connection; the first also takes the gateway's own.
  private let sinks: [any FrameSink]
  private let metrics: GatewayMetrics
  private let debugJSON = Atomic<Bool>(false)
  /// Failed publishes share one key: while the broker is away every frame fails, and a line a
  /// minute with the count says as much as a line each (`skyframe_publish_failures_total`).
  private let failures: DeviceLog?

  init(
    configuration: GatewayConfiguration, composer: Composer, sinks: [any FrameSink],
    metrics: GatewayMetrics, logger: Logger? = nil, limiter: DeviceLogLimiter? = nil
  ) {
    self.composer = composer
    self.sinks = sinks
    self.metrics = metrics
    failures = logger.map { DeviceLog(logger: $0, device: "(publish failures)", limiter: limiter) }
    update(configuration)
  }

  func update(_ configuration: GatewayConfiguration) {
    debugJSON.store(configuration.topics.debugJSON, ordering: .relaxed)
  }

  /// Composes `outcome` in the asked profile and publishes it to `reply`: what watches and named
  /// places send (requests answer through their intake, which hands this outbox the frames).
  func send(
    _ outcome: Outcome, requestID: UInt16, slot: Int, of count: Int, to reply: Reply,
    answering: Answering = Answering(), retain: Bool = false, time: Int64? = nil,
    logger: @autoclosure () -> DeviceLog
  ) {
    composer.compose(
      outcome, requestID: requestID, slot: slot, of: count, answering: answering, time: time
    ) { payload, unchanged, _ in
      if !retain {
        metrics.answered(outcome.status, profile: answering.profile, unchanged: unchanged)
        metrics.answered(outcome, at: time ?? composer.unixTime())
      }
      publish(payload, unchanged: unchanged, to: reply, retain: retain, logger: logger())
    }
  }

  /// A frame published, a failure counted and logged (once a minute for all while the broker is
  /// away), and its JSON mirror when `topics.debug-json` is on. A cache hit allocates nothing
  /// here (libmosquitto copies the payload into its own packet).
  private func publish(
    _ payload: UnsafeRawBufferPointer, unchanged: Bool, to reply: Reply, retain: Bool,
    logger: @autoclosure () -> DeviceLog?
  ) {
    do throws(MQTTError) {
      try deliver(payload, to: reply, retain: retain)
    } catch {
      metrics.publishFailed()
      if let failures {
        failures.warning("publish to \(reply.topic) failed: \(error)")
      } else {
        logger()?.error("publish to \(reply.topic) failed: \(error)")
      }
    }
    if debugJSON.load(ordering: .relaxed), !unchanged {
      publishJSON(of: payload, topic: reply.topic + "/json", retain: retain, lane: reply.lane)
    }
  }

  /// One error answer to a whole request, with `text` (the reason) as its name.
  func refuse(
    _ status: FrameStatus, _ text: String, requestID: UInt16, to reply: Reply,
    profile: FrameProfile, logger: @autoclosure () -> DeviceLog
  ) {
    send(
      .refusal(status, text), requestID: requestID, slot: 0, of: 1, to: reply,
      answering: Answering(profile: profile), logger: logger())
  }

  /// The way out of the MQTT intake: an answer to a device's request.
  func send(_ answer: SentAnswer, to reply: Reply) {
    publish(answer.bytes, unchanged: answer.unchanged, to: reply, retain: false, logger: nil)
  }

  /// Publishes on the connection the request came in on; when that is another than the first
  /// and fails (down), on the first: the request's twin may have been dropped already.
  private func deliver(_ payload: UnsafeRawBufferPointer, to reply: Reply, retain: Bool)
    throws(MQTTError)
  {
    do throws(MQTTError) {
      try sinks[reply.lane].publish(
        reply.topic, payload: payload, qos: retain ? 1 : reply.qos, retain: retain,
        correlationData: reply.correlationData)
    } catch {
      guard reply.lane != 0 else { throw error }
      try sinks[0].publish(
        reply.topic, payload: payload, qos: retain ? 1 : reply.qos, retain: retain,
        correlationData: reply.correlationData)
    }
  }

  private func publishJSON(
    of bytes: UnsafeRawBufferPointer, topic: String, retain: Bool, lane: Int
  ) {
    guard let json = try? ProfileDocument.json(of: bytes) else { return }
    [UInt8](json).withUnsafeBytes { bytes in
      do throws(MQTTError) {
        try sinks[lane].publish(topic, payload: bytes, qos: 0, retain: retain, correlationData: nil)
      } catch {
        metrics.publishFailed()
      }
    }
  }
}
