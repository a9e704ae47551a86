/// What a message's topic asks for, worked out once, on the network thread, from its bytes.
enum Route: Equatable, Sendable {
  case request(device: String)
  /// A topic a part claimed (`GatewayPart.claims`): the part's index, the claim's, and what
  /// follows a prefix (the device id of a `.device` claim).
  case part(Int, claim: Int, rest: String)
  /// A request or device topic whose device id is not 1–32 characters of a-z A-Z 0-9 - _ .
  case invalidDevice
  /// Not a topic the gateway answers.
  case unknown
}

/// Turns topics into routes: requests first (without building more than the device id, a small
/// string stored inline), then the parts' claims in order.
struct Router: Sendable {
  private let request: [UInt8]
  /// Per part, its claims.
  private let claims: [[TopicClaim]]

  init(topics: GatewayConfiguration.Topics, claims: [[TopicClaim]] = []) {
    request = Array("\(topics.base)/v1/req/".utf8)
    self.claims = claims
  }

  func route(_ topic: UnsafeBufferPointer<UInt8>) -> Route {
    if let device = Self.rest(of: topic, after: request) {
      guard Self.isValidDevice(device) else { return .invalidDevice }
      return .request(device: String(decoding: device, as: UTF8.self))
    }
    for (part, claims) in claims.enumerated() {
      for (index, claim) in claims.enumerated() {
        switch claim.match {
        case .exact:
          if topic.elementsEqual(claim.bytes) { return .part(part, claim: index, rest: "") }
        case .prefix:
          if let rest = Self.rest(of: topic, after: claim.bytes) {
            return .part(part, claim: index, rest: String(decoding: rest, as: UTF8.self))
          }
        case .device:
          if let device = Self.rest(of: topic, after: claim.bytes) {
            guard Self.isValidDevice(device) else { return .invalidDevice }
            return .part(part, claim: index, rest: String(decoding: device, as: UTF8.self))
          }
        }
      }
    }
    return .unknown
  }

  func route(_ topic: String) -> Route {
    var topic = topic
    return topic.withUTF8 { route($0) }
  }

  private static func rest(of topic: UnsafeBufferPointer<UInt8>, after prefix: [UInt8])
    -> UnsafeBufferPointer<UInt8>.SubSequence?
  {
    guard topic.count >= prefix.count, topic.starts(with: prefix) else { return nil }
    return topic[prefix.count...]
  }

  /// 1-32 of a-z A-Z 0-9 - _ . and not `.` or `..`: an id is a path segment of the status
  /// page's pictures (`/display/watch/{device}.png`), where those two mean another directory.
  static func isValidDevice(_ device: some Collection<UInt8>) -> Bool {
    if device.count <= 2, device.allSatisfy({ $0 == UInt8(ascii: ".") }) { return false }
    return (1...32).contains(device.count)
      && device.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
          UInt8(ascii: "."):
          true
        default: false
        }
      }
  }
}
