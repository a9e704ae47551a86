import SkyframeMQTT

/// Where answers go. The broker in production; the benchmarks measure the request path up to
/// here without a network.
public protocol FrameSink: Sendable {
  func publish(
    _ topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool,
    correlationData: [UInt8]?
  ) throws(MQTTError)
}

extension MQTTClient: FrameSink {}
