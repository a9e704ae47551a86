import Logging
import SkyframeMQTT

/// The one way out for the gateway's own messages — its state and presence, the info and stats
/// documents, a cluster member's "wants", Home Assistant's discovery and state messages. A
/// publish that fails is counted (`skyframe_publish_failures_total`) and logged, at most once a
/// minute for all of them (the log line says how many were left out); the message is sent again
/// with the next connect, reload, interval or announcement that carries it.
package struct OwnMessages: Sendable {
  let sink: any FrameSink
  let metrics: GatewayMetrics
  let log: DeviceLog

  init(sink: any FrameSink, metrics: GatewayMetrics, logger: Logger, limiter: DeviceLogLimiter) {
    self.sink = sink
    self.metrics = metrics
    log = DeviceLog(logger: logger, device: "(gateway messages)", limiter: limiter)
  }

  /// Publishes `payload` on `topic` (QoS 1 and retained unless told otherwise); false when the
  /// publish failed.
  @discardableResult
  package func send(_ topic: String, _ payload: [UInt8], qos: Int = 1, retain: Bool = true) -> Bool
  {
    let failure = payload.withUnsafeBytes { bytes -> MQTTError? in
      do throws(MQTTError) {
        try sink.publish(topic, payload: bytes, qos: qos, retain: retain, correlationData: nil)
        return nil
      } catch {
        return error
      }
    }
    guard let failure else { return true }
    metrics.publishFailed()
    log.warning("could not publish to \(topic.prefix(80)): \(failure)")
    return false
  }
}
