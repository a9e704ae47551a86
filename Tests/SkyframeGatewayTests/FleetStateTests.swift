import Foundation
import Logging
import SkyframeGateway
import SkyframeMQTT
import SkyframeTestSupport
import Testing

/// The retained fleet state while members come and go: it never names fewer members than are
/// alive (a member that restarts knows only itself for a moment and must not say so).
@Suite(.serialized) struct FleetStateTests {
  private func member(_ id: String, broker: MosquittoBroker) async throws -> GatewayHarness {
    let harness = try await GatewayHarness.make(broker: broker) { configuration in
      configuration.cluster.group = "fleet"
      configuration.cluster.instanceID = id
    }
    try await harness.start(logLevel: .info)
    return harness
  }

  /// The `instances` of a state message, or nil for another state.
  private func instances(_ message: MQTTMessage) -> [String]? {
    let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
    guard object?["state"] as? String == "online" else { return nil }
    return object?["instances"] as? [String]
  }

  @Test func aRestartingMemberDoesNotWriteAFleetOfItselfAlone() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let first = try await member("gw-a", broker: broker)
    var second = try await member("gw-b", broker: broker)
    let watcher = try await MQTTMailbox.connect(
      port: broker.port, id: "state-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["skyframe/v1/gateway/state"], version: .v311)
    defer { Task { await watcher.disconnect() } }
    // Both known: the state names both (retained, or written again shortly).
    var seen: [[String]] = []
    while seen.last != ["gw-a", "gw-b"] {
      let message = try await watcher.next(timeout: .seconds(10))
      if let names = instances(message) { seen.append(names) }
    }
    // gw-b restarts (same id): after it left the state names gw-a alone, which is true; from its
    // return on, every state names both.
    try await second.stop()
    try? await second.http.stop()
    while seen.last != ["gw-a"] {
      let message = try await watcher.next(timeout: .seconds(10))
      if let names = instances(message) { seen.append(names) }
    }
    second = try await member("gw-b", broker: broker)
    var afterReturn: [[String]] = []
    while let message = try? await watcher.next(timeout: .seconds(3)) {
      if let names = instances(message) { afterReturn.append(names) }
    }
    #expect(!afterReturn.isEmpty)
    #expect(afterReturn.allSatisfy { $0 == ["gw-a", "gw-b"] }, "\(afterReturn)")
    try await second.stop()
    try? await second.http.stop()
    await first.shutdown()
  }
}
