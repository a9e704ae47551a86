import ServiceLifecycle
import SkyframeMQTT

/// A feature plugged into the gateway (watches, named places, Home Assistant, the cluster,
/// LoRaWAN, the fast lane, presence): everything the gateway needs to know of it, declared in
/// one place, so that `Gateway` lists parts and routes messages without naming any feature.
/// Adding one is its own folder or module and one entry in the list of every part
/// (`PartKind.all`, in `SkyframeAssembly`).
package protocol GatewayPart: Sendable {
  /// Filters subscribed on the main connection before it connects (QoS 1).
  var subscriptions: [String] { get }
  /// The topics the part answers on the main connection, tried in order after requests.
  var claims: [TopicClaim] { get }
  /// A message on one of its claims (`claim` indexes `claims`; `rest` is what follows a prefix,
  /// or the device id of a `.device` claim), on the network thread: copy and return.
  func receive(claim: Int, rest: String, _ message: MQTTIncoming)
  /// The main connection came up (at start and after every reconnect); `sessionPresent` false
  /// after a reconnect means the broker kept nothing of the gateway (and maybe no retained
  /// message either: restarted without persistence).
  func connected(sessionPresent: Bool)
  /// The main connection was lost (it is tried again).
  func disconnected()
  /// The gateway stops (gracefully): the last word while still connected.
  func leaving()
  /// A reloaded configuration: the part swaps its settings whole.
  func apply(_ configuration: GatewayConfiguration)
  /// What the part puts in front of the desk's fetcher (the fleet: ask the owner first, share
  /// what was fetched here); nil: nothing.
  var deskMiddleware: (any DeskMiddleware)? { get }
  /// Long-running work, each a Service in the gateway's group (started after the gateway's own
  /// connection, stopped before it).
  var services: [any Service] { get }
  /// Its lines in the status document (`/health`, the status page).
  func report(into status: inout GatewayStatus)
  /// Keys of its section that take effect only after a restart: each changed one is put back
  /// to its running value in `new` and named.
  func keepRestartOnlyKeys(of running: GatewayConfiguration, in new: inout GatewayConfiguration)
    -> [String]
}

extension GatewayPart {
  package var subscriptions: [String] { [] }
  package var claims: [TopicClaim] { [] }
  package func receive(claim: Int, rest: String, _ message: MQTTIncoming) {}
  package func connected(sessionPresent: Bool) {}
  package func disconnected() {}
  package func leaving() {}
  package func apply(_ configuration: GatewayConfiguration) {}
  package var services: [any Service] { [] }
  package var deskMiddleware: (any DeskMiddleware)? { nil }
  package func report(into status: inout GatewayStatus) {}
  package func keepRestartOnlyKeys(
    of running: GatewayConfiguration, in new: inout GatewayConfiguration
  )
    -> [String]
  { [] }
}

/// A topic a part answers: one exact topic, every topic under a prefix, or a prefix followed by
/// a device id (1–32 of a-z A-Z 0-9 - _ .; any other id is refused by the router, logged once a
/// minute for all).
package struct TopicClaim: Sendable, Equatable {
  enum Match: Sendable, Equatable {
    case exact
    case prefix
    case device
  }

  let bytes: [UInt8]
  let match: Match

  package static func exact(_ topic: String) -> TopicClaim {
    TopicClaim(bytes: Array(topic.utf8), match: .exact)
  }
  package static func prefix(_ prefix: String) -> TopicClaim {
    TopicClaim(bytes: Array(prefix.utf8), match: .prefix)
  }
  package static func device(under prefix: String) -> TopicClaim {
    TopicClaim(bytes: Array(prefix.utf8), match: .device)
  }
}
