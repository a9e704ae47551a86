/// Where a device may have its answers sent with an MQTT 5 response topic: only below its own
/// branch, `{topics.response-prefix}{device}` (default `skyframe/v1/resp/{device}`), exactly
/// or followed by `/…`; never a wildcard, never one of the gateway's own topics (requests,
/// watches, frames, named places, gateway state), and at most `topics.response-topic-max-length`
/// bytes. Anything else would let one device write into another's topics through the gateway.
struct ResponseTopicRule: Sendable {
  enum Refusal: Equatable, CustomStringConvertible {
    case tooLong(Int)
    case wildcard
    case notOwnBranch
    case gatewayTopic

    var description: String {
      switch self {
      case .tooLong(let limit): "longer than \(limit) bytes"
      case .wildcard: "contains a wildcard"
      case .notOwnBranch: "not below the device's own response branch"
      case .gatewayTopic: "one of the gateway's own topics"
      }
    }
  }

  let prefix: String
  let maximumLength: Int
  /// Topic branches the gateway itself uses, never a response topic.
  private let reserved: [String]

  init(topics: GatewayConfiguration.Topics) {
    prefix = topics.responsePrefix
    maximumLength = topics.responseTopicMaximumLength
    reserved = ["req", "watch", "frame", "loc", "gateway"].map { "\(topics.base)/v1/\($0)/" }
  }

  /// The branch a device's answers may go to.
  func branch(of device: String) -> String { prefix + device }

  /// Nil when `topic` may carry `device`'s answers, otherwise why not.
  func refusal(of topic: String, for device: String) -> Refusal? {
    guard topic.utf8.count <= maximumLength else { return .tooLong(maximumLength) }
    guard !topic.utf8.contains(UInt8(ascii: "+")), !topic.utf8.contains(UInt8(ascii: "#")) else {
      return .wildcard
    }
    guard !reserved.contains(where: { topic.hasPrefix($0) }) else { return .gatewayTopic }
    let own = branch(of: device)
    guard topic == own || topic.hasPrefix(own + "/") else { return .notOwnBranch }
    return nil
  }
}
