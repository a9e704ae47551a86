/// An application message as received, copied out of libmosquitto's buffers.
public struct MQTTMessage: Sendable, Equatable {
  public var topic: String
  public var payload: [UInt8]
  public var qos: Int
  public var retain: Bool
  /// MQTT 5 property; always `nil` on 3.1.1.
  public var responseTopic: String?
  /// MQTT 5 property; always `nil` on 3.1.1.
  public var correlationData: [UInt8]?

  public init(
    topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false,
    responseTopic: String? = nil, correlationData: [UInt8]? = nil
  ) {
    self.topic = topic
    self.payload = payload
    self.qos = qos
    self.retain = retain
    self.responseTopic = responseTopic
    self.correlationData = correlationData
  }
}
