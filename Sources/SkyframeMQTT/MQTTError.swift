import CMosquitto

/// A libmosquitto failure: which operation, its return code, and libmosquitto's text for it.
public struct MQTTError: Error, Sendable, CustomStringConvertible {
  /// What was being done, e.g. `publish to 'a/#'` or `connect to 127.0.0.1:1883`.
  public var operation: String
  /// A `MOSQ_ERR_*` code, or for a refused connection the CONNACK code (reason code on MQTT 5).
  public var code: Int32
  public var description: String

  public init(operation: String, code: Int32, description: String) {
    self.operation = operation
    self.code = code
    self.description = description
  }

  /// Call right after the failing function: for `MOSQ_ERR_ERRNO` the text comes from `errno`.
  init(operation: String, code: Int32) {
    self.init(
      operation: operation, code: code,
      description: "\(operation) failed: \(String(cString: mosquitto_strerror(code)))")
  }

  /// The broker answered CONNECT with a refusal.
  static func refused(
    operation: String, code: Int32, protocolVersion: MQTTConfiguration.ProtocolVersion
  )
    -> MQTTError
  {
    let text =
      switch protocolVersion {
      case .v5: mosquitto_reason_string(code)
      case .v311: mosquitto_connack_string(code)
      }
    return MQTTError(
      operation: operation, code: code,
      description:
        "\(operation) refused by the broker: \(text.map { String(cString: $0) } ?? "code \(code)")")
  }

  static let success = MOSQ_ERR_SUCCESS.rawValue
}

extension Int32 {
  /// Throws unless this libmosquitto return code is `MOSQ_ERR_SUCCESS`.
  func check(_ operation: @autoclosure () -> String) throws(MQTTError) {
    guard self == MQTTError.success else { throw MQTTError(operation: operation(), code: self) }
  }
}

extension Array where Element == UInt8 {
  /// `withUnsafeBytes` for a body with typed throws (the standard one only rethrows `any Error`).
  func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws(MQTTError) -> Result)
    throws(MQTTError) -> Result
  {
    try withUnsafeBytes { bytes in Swift.Result { () throws(MQTTError) in try body(bytes) } }.get()
  }
}
