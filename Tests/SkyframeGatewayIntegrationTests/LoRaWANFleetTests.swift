import Foundation
import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@testable import SkyframeLoRaWAN

/// Two members of one cluster with the same LoRaWAN configuration, on one broker that plays the
/// network servers' MQTT side too: each connection is held by exactly one member at a time
/// (under a client id of its own), every uplink is answered once across the fleet, and the
/// survivor takes over the connections of a member that leaves.
@Suite(.serialized) struct LoRaWANFleetTests {
  static let members = ["gw-a", "gw-b"]

  /// Two ChirpStack applications whose connections the rendezvous gives one to each member.
  static func servers() -> [(name: String, application: String)] {
    var picked: [String: (String, String)] = [:]
    for index in 0..<64 where picked.count < 2 {
      let name = "cs-\(index)"
      let owner = ClusterMembers.owner(of: "lorawan:\(name)", among: members)!
      if picked[owner] == nil { picked[owner] = (name, "app-\(index)") }
    }
    return members.map { picked[$0]! }
  }

  private func member(
    _ id: String, broker: MosquittoBroker, servers: [(name: String, application: String)]
  ) async throws -> GatewayHarness {
    let harness = try await GatewayHarness.make(broker: broker) { configuration in
      configuration.cluster.group = "fleet"
      configuration.cluster.instanceID = id
      configuration.lorawan.servers = servers.map { server in
        var settings = LoRaWANSettings.Server(name: server.name)
        settings.port = configuration.mqtt.port
        settings.application = server.application
        return settings
      }
    }
    try await harness.start(logLevel: .info)
    return harness
  }

  private func waitFor(_ what: String, _ condition: () -> Bool) async throws {
    for _ in 0..<1_000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    #expect(condition(), "\(what)")
  }

  private func connectedLines(_ harness: GatewayHarness, _ server: String) -> Int {
    harness.logs.all.filter { $0.contains("connected to network server \(server)") }.count
  }

  @Test func eachConnectionIsHeldByOneMemberAndEveryUplinkIsAnsweredOnce() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let servers = Self.servers()
    let first = try await member("gw-a", broker: broker, servers: servers)
    let second = try await member("gw-b", broker: broker, servers: servers)
    // Each member ends up holding the connection the rendezvous gives it.
    try await waitFor("gw-a holds \(servers[0].name)") {
      connectedLines(first, servers[0].name) >= 1
    }
    try await waitFor("gw-b holds \(servers[1].name)") {
      connectedLines(second, servers[1].name) >= 1
    }
    try await waitFor("gw-a let go of \(servers[1].name)") {
      first.logs.all.contains {
        $0.contains("network server \(servers[1].name) now held by another member")
      }
        || connectedLines(first, servers[1].name) == 0
    }
    #expect(connectedLines(second, servers[0].name) == 0)

    let server = try await MQTTMailbox.connect(
      port: broker.port, id: "ns-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["application/+/device/+/command/down"], version: .v311)
    defer { Task { await server.disconnect() } }
    func uplinks(_ application: String, device: String, ids: ClosedRange<Int>) throws {
      for id in ids {
        try server.client.publish(
          "application/\(application)/device/\(device)/event/up",
          payload: Array(
            LoRaWANFixtures.chirpStackUplink(
              devEUI: device, payload: LoRaWANFixtures.coordinates(52.52, 13.41, id: UInt8(id)),
              fCnt: id
            ).utf8), qos: 1)
      }
    }
    /// The request ids of the downlinks to `application`: `count` of them (each within 10 s),
    /// then whatever else comes within a second (a second answer to an uplink, say).
    func answered(_ application: String, _ count: Int) async throws -> [Int] {
      var ids: [Int] = []
      while true {
        let timeout: Duration = ids.count < count ? .seconds(10) : .seconds(1)
        guard
          let message = try? await server.next(
            timeout: timeout, matching: { $0.topic.contains("/\(application)/") })
        else { break }
        let json = try #require(
          try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
        let payload = [UInt8](try #require(Data(base64Encoded: json["data"] as? String ?? "")))
        try payload.withUnsafeBytes { bytes in
          ids.append(Int(try ProfileView(checking: bytes).value(TinyLayout.requestID) ?? -1))
        }
      }
      return ids.sorted()
    }
    let devices = ["70b3d57ed0010001", "70b3d57ed0010002"]
    try uplinks(servers[0].application, device: devices[0], ids: 1...20)
    try uplinks(servers[1].application, device: devices[1], ids: 1...20)
    #expect(try await answered(servers[0].application, 20) == Array(1...20))
    #expect(try await answered(servers[1].application, 20) == Array(1...20))
    // The members never threw each other off the network server's broker.
    #expect(!broker.log.contains("already connected"), "\(broker.log)")

    // gw-b leaves: gw-a takes its connection over and answers its devices.
    try await second.stop()
    try await waitFor("gw-a took over \(servers[1].name)") {
      connectedLines(first, servers[1].name) >= 1
        && first.logs.all.last { $0.contains("network server \(servers[1].name)") }?
          .contains("connected to network server") == true
    }
    try uplinks(servers[1].application, device: devices[1], ids: 21...30)
    #expect(try await answered(servers[1].application, 10) == Array(21...30))
    #expect(!broker.log.contains("already connected"))
    try? await second.http.stop()
    await first.shutdown()
  }
}
