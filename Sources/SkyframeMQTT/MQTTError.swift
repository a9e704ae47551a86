import CMosquitto

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A libmosquitto failure: which operation, its return code, and libmosquitto's text for it.
public struct MQTTError: Error, Sendable, CustomStringConvertible {
  /// What was being done, e.g. `publish to 'a/#'` or `connect to 127.0.0.1:1883`.
  public var operation: String
  /// A `MOSQ_ERR_*` code, or for a refused connection the CONNACK code (reason code on MQTT 5).
  public var code: Int32
  public var description: String
  /// Set when a connection failed for a reason in the configuration (a TLS mismatch) rather
  /// than a broker that is down or slow; `description` then explains it.
  public var problem: ConnectionProblem?

  public init(
    operation: String, code: Int32, description: String, problem: ConnectionProblem? = nil
  ) {
    self.operation = operation
    self.code = code
    self.description = description
    self.problem = problem
  }

  /// A failed connection attempt: the problem's explanation, or libmosquitto's text for `code`
  /// (with `errno`'s text for `MOSQ_ERR_ERRNO`, as it was right after the call).
  init(
    connectingTo endpoint: String, code: Int32, errno: Int32, problem: ConnectionProblem?,
    configuration: MQTTConfiguration
  ) {
    let operation = "connect to \(endpoint)"
    let text =
      if let problem {
        problem.explanation(for: configuration)
      } else if code == MOSQ_ERR_ERRNO.rawValue {
        String(cString: strerror(errno))
      } else {
        String(cString: mosquitto_strerror(code))
      }
    self.init(
      operation: operation, code: code, description: "\(operation) failed: \(text)",
      problem: problem)
  }

  /// Call right after the failing function: for `MOSQ_ERR_ERRNO` the text comes from `errno`.
  init(operation: String, code: Int32) {
    self.init(
      operation: operation, code: code,
      description: "\(operation) failed: \(String(cString: mosquitto_strerror(code)))")
  }

  /// The broker answered CONNECT with a refusal; refused credentials name the settings.
  static func refused(
    operation: String, code: Int32, protocolVersion: MQTTConfiguration.ProtocolVersion,
    names: MQTTConfiguration.SettingNames = .init()
  )
    -> MQTTError
  {
    let text =
      switch protocolVersion {
      case .v5: mosquitto_reason_string(code)
      case .v311: mosquitto_connack_string(code)
      }
    // MQTT 5: 0x86 bad user name or password, 0x87 not authorized; 3.1.1: 4 and 5.
    let credentials =
      switch protocolVersion {
      case .v5: code == 0x86 || code == 0x87
      case .v311: code == 4 || code == 5
      }
    let advice = credentials ? ": check \(names.username) and \(names.password)" : ""
    let reason = "refused by the broker: \(text.map { String(cString: $0) } ?? "code \(code)")"
    return MQTTError(
      operation: operation, code: code, description: "\(operation) \(reason)\(advice)",
      problem: .refused(reason + advice))
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
