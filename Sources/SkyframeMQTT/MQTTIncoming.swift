import CMosquitto

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A message as libmosquitto hands it to the network thread, not yet copied: the buffers belong
/// to libmosquitto and are valid only during the receiver's call. A receiver that answers at once
/// (a cache hit) never copies it; one that needs more time calls `copy()`.
public struct MQTTIncoming {
  /// The topic's UTF-8 bytes, without the terminating NUL.
  public let topic: UnsafeBufferPointer<UInt8>
  public let payload: UnsafeRawBufferPointer
  public let qos: Int
  public let retain: Bool
  private let properties: Properties

  private enum Properties {
    /// libmosquitto's MQTT 5 property list; nil on 3.1.1.
    case mosquitto(OpaquePointer?)
    case copied(responseTopic: String?, correlationData: [UInt8]?)
  }

  init(
    topic: UnsafeBufferPointer<UInt8>, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool,
    properties: OpaquePointer?
  ) {
    self.topic = topic
    self.payload = payload
    self.qos = qos
    self.retain = retain
    self.properties = .mosquitto(properties)
  }

  private init(
    borrowing message: MQTTMessage, topic: UnsafeBufferPointer<UInt8>,
    payload: UnsafeRawBufferPointer
  ) {
    self.topic = topic
    self.payload = payload
    qos = message.qos
    retain = message.retain
    properties = .copied(
      responseTopic: message.responseTopic, correlationData: message.correlationData)
  }

  /// Runs `body` with a view of an owned message, as a receiver would see it (benchmarks, tests).
  public static func with<Result>(
    _ message: MQTTMessage, _ body: (MQTTIncoming) -> Result
  ) -> Result {
    var topic = message.topic
    return topic.withUTF8 { topic in
      message.payload.withUnsafeBytes { payload in
        body(MQTTIncoming(borrowing: message, topic: topic, payload: payload))
      }
    }
  }

  public var topicString: String { String(decoding: topic, as: UTF8.self) }

  /// The MQTT 5 response topic, read (and allocated) only when asked for.
  public func responseTopic() -> String? {
    guard case .mosquitto(let properties) = properties else {
      if case .copied(let topic, _) = properties { return topic }
      return nil
    }
    guard let properties else { return nil }
    var value: UnsafeMutablePointer<CChar>?
    guard
      mosquitto_property_read_string(
        properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &value, false) != nil,
      let value
    else { return nil }
    defer { free(value) }
    return String(cString: value)
  }

  /// The MQTT 5 correlation data, read (and allocated) only when asked for.
  public func correlationData() -> [UInt8]? {
    guard case .mosquitto(let properties) = properties else {
      if case .copied(_, let data) = properties { return data }
      return nil
    }
    guard let properties else { return nil }
    var data: UnsafeMutableRawPointer?
    var length: UInt16 = 0
    guard
      mosquitto_property_read_binary(
        properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &data, &length, false) != nil
    else { return nil }
    defer { free(data) }
    return data.map { [UInt8](UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
  }

  /// An owned copy, for whatever outlives the receiver's call.
  public func copy() -> MQTTMessage {
    MQTTMessage(
      topic: topicString, payload: [UInt8](payload), qos: qos, retain: retain,
      responseTopic: responseTopic(), correlationData: correlationData())
  }
}

/// Called on the client's network thread for every message, in arrival order, instead of
/// yielding `.message` events. It must not block: it answers or hands the message on and returns.
public protocol MQTTMessageReceiver: AnyObject, Sendable {
  func receive(_ message: MQTTIncoming)
}
