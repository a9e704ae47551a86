/// What a message's topic asks for, worked out once, on the network thread, from its bytes.
enum Route: Equatable, Sendable {
  case request(device: String)
  case watch(device: String)
  /// A cluster member's presence (`{base}/v1/gateway/instances/{id}`).
  case instance(id: String)
  /// The gateway's (or the fleet's) state, `{base}/v1/gateway/state`.
  case state
  /// A member asking the member `owner` to fetch a cell for the fleet.
  case want(owner: Substring)
  /// An entry of the cluster's shared cache (`{base}/v1/gateway/cache/{row}_{column}`).
  case cacheEntry(cell: Substring)
  /// Home Assistant's birth and last-will messages (`{discovery-prefix}/status`).
  case homeAssistantStatus
  /// A request or watch topic whose device id is not 1–32 characters of a-z A-Z 0-9 - _ .
  case invalidDevice
  /// Not a topic the gateway answers.
  case unknown
}

/// Turns topics into routes without building a string per message (a valid device id of up to
/// 15 bytes is a small string, stored inline).
struct Router: Sendable {
  private let request: [UInt8]
  private let watch: [UInt8]
  private let instance: [UInt8]
  private let cache: [UInt8]
  private let state: [UInt8]
  private let want: [UInt8]
  private let homeAssistantStatus: [UInt8]

  init(topics: GatewayConfiguration.Topics, homeAssistant: HomeAssistantSettings = .init()) {
    homeAssistantStatus = Array(HomeAssistantPublisher.statusTopic(homeAssistant).utf8)
    request = Array("\(topics.base)/v1/req/".utf8)
    watch = Array("\(topics.base)/v1/watch/".utf8)
    instance = Array("\(topics.base)/v1/gateway/instances/".utf8)
    cache = Array(topics.cacheEntries.utf8)
    state = Array(topics.state.utf8)
    want = Array(topics.wants("").utf8)
  }

  func route(_ topic: UnsafeBufferPointer<UInt8>) -> Route {
    if let device = Self.rest(of: topic, after: request) {
      guard Self.isValidDevice(device) else { return .invalidDevice }
      return .request(device: String(decoding: device, as: UTF8.self))
    }
    if let device = Self.rest(of: topic, after: watch) {
      guard Self.isValidDevice(device) else { return .invalidDevice }
      return .watch(device: String(decoding: device, as: UTF8.self))
    }
    if let id = Self.rest(of: topic, after: instance) {
      // The same rule as cluster.instance-id: 1-23 characters, no '/'.
      guard (1...23).contains(id.count), !id.contains(UInt8(ascii: "/")) else { return .unknown }
      return .instance(id: String(decoding: id, as: UTF8.self))
    }
    if topic.elementsEqual(state) { return .state }
    if topic.elementsEqual(homeAssistantStatus) { return .homeAssistantStatus }
    if let owner = Self.rest(of: topic, after: want) {
      return .want(owner: Substring(String(decoding: owner, as: UTF8.self)))
    }
    if let cell = Self.rest(of: topic, after: cache) {
      guard (3...41).contains(cell.count) else { return .unknown }
      return .cacheEntry(cell: Substring(String(decoding: cell, as: UTF8.self)))
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

  static func isValidDevice(_ device: some Collection<UInt8>) -> Bool {
    (1...32).contains(device.count)
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
