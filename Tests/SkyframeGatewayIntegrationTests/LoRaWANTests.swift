import Foundation
import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@testable import SkyframeLoRaWAN

/// LoRaWAN displays through a real mosquitto playing each network server's MQTT side: the test
/// publishes uplinks in the servers' exact shapes on their topics and reads the downlinks the
/// gateway queues (`schemas/lorawan-uplink-v1.md` §6).
@Suite(.serialized) struct LoRaWANTests {
  static let chirpStackDevice = "70b3d57ed0012345"
  static let thingsStackDevice = "70B3D57ED0054321"

  /// A gateway with one ChirpStack and one The Things Stack connection on the test broker.
  private func harness(
    adjust: (inout LoRaWANSettings, Int) -> Void = { _, _ in },
    configure: (inout GatewayConfiguration) -> Void = { _ in }
  ) async throws -> (GatewayHarness, metricsPort: Int) {
    let metricsPort = try MosquittoBroker.freeLoopbackPort()
    // The device limits' minute starts with the test.
    let harness = try await GatewayHarness.make(clock: GatewayHarness.minuteAlignedClock()) {
      configuration in
      configuration.metrics.port = metricsPort
      var chirpStack = LoRaWANSettings.Server(name: "cs")
      chirpStack.port = configuration.mqtt.port
      chirpStack.application = LoRaWANFixtures.chirpStackApplication
      var thingsStack = LoRaWANSettings.Server(name: "ttn")
      thingsStack.kind = .thingsStack
      thingsStack.port = configuration.mqtt.port
      thingsStack.application = LoRaWANFixtures.thingsStackApplication
      thingsStack.tenant = LoRaWANFixtures.tenant
      thingsStack.fPort = 15
      thingsStack.rx2DataRate = 3
      configuration.lorawan.servers = [chirpStack, thingsStack]
      var device = LoRaWANSettings.Device()
      device.places = [
        .place(PlaceName(truncating: "Paris"), country: CountryCode("FR")),
        .coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000)),
      ]
      configuration.lorawan.devices[Self.chirpStackDevice.uppercased()] = device
      adjust(&configuration.lorawan, configuration.mqtt.port)
      configure(&configuration)
    }
    try await harness.start(logLevel: .info)
    // Each connection logs when it is connected (and so subscribed).
    for server in harness.configuration.lorawan.servers {
      try await waitFor {
        harness.logs.all.contains { $0.contains("connected to network server \(server.name)") }
      }
    }
    return (harness, metricsPort)
  }

  private func waitFor(_ condition: () -> Bool) async throws {
    for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    #expect(condition())
  }

  /// The network servers' side: takes every downlink either kind publishes.
  private func networkServer(port: Int) async throws -> MQTTMailbox {
    try await MQTTMailbox.connect(
      port: port, id: "ns-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["application/+/device/+/command/down", "v3/+/devices/+/down/push"],
      version: .v311)
  }

  /// A ChirpStack downlink: its JSON object and the decoded payload.
  private func chirpStackDownlink(_ server: MQTTMailbox, timeout: Duration = .seconds(10))
    async throws -> (json: [String: Any], payload: [UInt8])
  {
    let message = try await server.next(timeout: timeout) { $0.topic.hasSuffix("/command/down") }
    #expect(
      message.topic
        == "application/\(LoRaWANFixtures.chirpStackApplication)/device/\(Self.chirpStackDevice)/command/down"
    )
    let json = try #require(
      try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
    let text = try #require(json["data"] as? String)
    let data = try #require(Data(base64Encoded: text))
    return (json, [UInt8](data))
  }

  private func view(_ bytes: [UInt8], _ body: (ProfileView) throws -> Void) throws {
    try bytes.withUnsafeBytes { buffer in try body(try ProfileView(checking: buffer)) }
  }

  private func check(of bytes: [UInt8]) throws -> UInt32 {
    try bytes.withUnsafeBytes { try ProfileView(checking: $0).contentCheck }
  }

  @Test func aChirpStackDeviceAsksByCoordinatesPlaceAndRefreshAndGetsUnchanged() async throws {
    let (harness, _) = try await harness()
    defer { Task { await harness.shutdown() } }
    let server = try await networkServer(port: harness.broker.port)
    defer { Task { await server.disconnect() } }
    let topic = LoRaWANFixtures.chirpStackUplinkTopic(devEUI: Self.chirpStackDevice)
    func uplink(_ payload: [UInt8], dr: Int = 5) throws {
      try server.client.publish(
        topic,
        payload: Array(
          LoRaWANFixtures.chirpStackUplink(devEUI: Self.chirpStackDevice, payload: payload, dr: dr)
            .utf8), qos: 1)
    }

    // By coordinates, at the slowest data rate (EU868 DR0: 51 bytes in both windows).
    try uplink(LoRaWANFixtures.coordinates(52.52, 13.41, id: 1), dr: 0)
    let first = try await chirpStackDownlink(server)
    #expect(first.json["devEui"] as? String == Self.chirpStackDevice)
    #expect(first.json["confirmed"] as? Bool == false)
    #expect(first.json["fPort"] as? Int == 10)
    #expect(first.payload.count == TinyLayout.size)
    try view(first.payload) { tiny in
      #expect(tiny.kind == .tiny)
      #expect(tiny.value(TinyLayout.status) == 0)
      #expect(tiny.value(TinyLayout.requestID) == 1)
      #expect(tiny.value(TinyLayout.temperature) != nil)
    }

    // By place index: 0 is Paris (looked up), 1 the coordinates above.
    try uplink(LoRaWANFixtures.place(0, id: 2))
    let paris = try await chirpStackDownlink(server).payload
    try view(paris) { tiny in
      #expect(tiny.kind == .tiny)
      #expect(tiny.value(TinyLayout.status) == 0)
      #expect(tiny.value(TinyLayout.requestID) == 2)
    }
    try uplink(LoRaWANFixtures.place(1, id: 3))
    let berlin = try await chirpStackDownlink(server).payload
    #expect(try check(of: berlin) == check(of: first.payload))

    // Refresh: the last place asked (index 1), with the check of what the display shows.
    try uplink(LoRaWANFixtures.refresh(id: 4))
    let refreshed = try await chirpStackDownlink(server).payload
    try view(refreshed) { #expect($0.value(TinyLayout.requestID) == 4) }
    try uplink(LoRaWANFixtures.refresh(id: 5, check: try check(of: refreshed)))
    let unchanged = try await chirpStackDownlink(server).payload
    #expect(unchanged.count == UnchangedLayout.size)
    try view(unchanged) { view in
      #expect(view.kind == .unchanged)
      #expect(view.value(UnchangedLayout.requestID) == 5)
      #expect(view.value(UnchangedLayout.profile) == 2)
    }
    // A check that no longer matches gets the frame again.
    try uplink(LoRaWANFixtures.coordinates(52.52, 13.41, id: 6, check: 0x1234_5678))
    #expect(try await chirpStackDownlink(server).payload.count == TinyLayout.size)

    // An index beyond the device's two places: a tiny not_found frame with the uplink's id.
    try uplink(LoRaWANFixtures.place(2, id: 7))
    try view(try await chirpStackDownlink(server).payload) { error in
      #expect(error.kind == .tiny)
      #expect(error.value(TinyLayout.status) == 2)
      #expect(error.value(TinyLayout.requestID) == 7)
    }
  }

  @Test func aThingsStackDeviceWithoutPlacesGetsTheWeatherAtItsGateway() async throws {
    let (harness, metricsPort) = try await harness()
    defer { Task { await harness.shutdown() } }
    let server = try await networkServer(port: harness.broker.port)
    defer { Task { await server.disconnect() } }
    let deviceID = "attic-display"
    let topic = LoRaWANFixtures.thingsStackUplinkTopic(deviceID: deviceID)
    func uplink(_ payload: [UInt8]?, fPort: Int? = 15, spreadingFactor: Int = 7) throws {
      let json = LoRaWANFixtures.thingsStackUplink(
        deviceID: deviceID, devEUI: Self.thingsStackDevice, payload: payload, fPort: fPort,
        spreadingFactor: spreadingFactor)
      try server.client.publish(topic, payload: Array(json.utf8), qos: 0)
    }
    func downlink() async throws -> [UInt8] {
      let message = try await server.next { $0.topic.hasSuffix("/down/push") }
      #expect(
        message.topic
          == "v3/\(LoRaWANFixtures.thingsStackApplication)@ttn/devices/\(deviceID)/down/push")
      let json = try #require(
        try JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
      let downlinks = try #require(json["downlinks"] as? [[String: Any]])
      #expect(downlinks.count == 1)
      #expect(downlinks[0]["f_port"] as? Int == 15)
      #expect(downlinks[0]["priority"] as? String == "NORMAL")
      let text = try #require(downlinks[0]["frm_payload"] as? String)
      return [UInt8](try #require(Data(base64Encoded: text)))
    }

    // Not listed, nothing remembered, no default places: the receiving gateway's location
    // (48.8584, 2.2945 -> 48.86, 2.29), at SF12 (DR0; RX2 DR3 on this connection: 51 bytes).
    try uplink(LoRaWANFixtures.refresh(id: 9), spreadingFactor: 12)
    let atGateway = try await downlink()
    try view(atGateway) { tiny in
      #expect(tiny.kind == .tiny)
      #expect(tiny.value(TinyLayout.status) == 0)
      #expect(tiny.value(TinyLayout.requestID) == 9)
    }
    try uplink(LoRaWANFixtures.coordinates(48.86, 2.29, id: 10, check: try check(of: atGateway)))
    #expect(try await downlink().count == UnchangedLayout.size)

    // An uplink on another FPort, and one without a payload (no frm_payload): no request.
    try uplink(LoRaWANFixtures.refresh(id: 11), fPort: 1)
    try uplink(nil)
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await server.next(timeout: .milliseconds(800)) { $0.topic.hasSuffix("/down/push") }
    }
    let metrics = try await MosquittoBroker.httpGet(port: metricsPort, path: "/metrics").body
    #expect(metrics.contains(#"skyframe_lorawan_downlinks_total{server="ttn",kind="tiny"} 1"#))
    #expect(metrics.contains(#"skyframe_lorawan_downlinks_total{server="ttn",kind="unchanged"} 1"#))
    #expect(
      metrics.contains(#"skyframe_lorawan_uplinks_total{server="ttn",outcome="other_port"} 1"#))
    #expect(metrics.contains(#"skyframe_lorawan_uplinks_total{server="ttn",outcome="empty"} 1"#))
    #expect(metrics.contains(#"skyframe_lorawan_connected{server="ttn"} 1"#))
    let health = try await MosquittoBroker.httpGet(port: metricsPort, path: "/health").body
    #expect(health.contains(#"{"connected":true,"kind":"things-stack","name":"ttn"}"#), "\(health)")
  }

  @Test func aDownlinkThatFitsNoReceiveWindowIsWithheldAndCounted() async throws {
    // AS923 with downlink dwell time and RX2 at DR2: 11 bytes, less than even unchanged.
    let (harness, metricsPort) = try await harness { lorawan, _ in
      lorawan.servers[1].band = .as923
      lorawan.servers[1].downlinkDwellTime = true
      lorawan.servers[1].rx2DataRate = 2
    }
    defer { Task { await harness.shutdown() } }
    let server = try await networkServer(port: harness.broker.port)
    defer { Task { await server.disconnect() } }
    let deviceID = "balcony"
    let json = LoRaWANFixtures.thingsStackUplink(
      deviceID: deviceID, devEUI: Self.thingsStackDevice,
      payload: LoRaWANFixtures.coordinates(1.35, 103.82, id: 1), fPort: 15, spreadingFactor: 10)
    try server.client.publish(
      LoRaWANFixtures.thingsStackUplinkTopic(deviceID: deviceID), payload: Array(json.utf8), qos: 0)
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await server.next(timeout: .seconds(1))
    }
    let metrics = try await MosquittoBroker.httpGet(port: metricsPort, path: "/metrics").body
    #expect(
      metrics.contains(#"skyframe_lorawan_downlinks_withheld_total{server="ttn",reason="size"} 1"#))
    #expect(harness.forecastCalls == 0, "nothing fetched for an answer that cannot be sent")
    #expect(harness.logs.all.contains { $0.contains("does not fit the 11 bytes") })
  }

  @Test func garbageOnTheTopicsIsCountedLoggedBoundedAndNeverAnswered() async throws {
    let (harness, metricsPort) = try await harness { lorawan, _ in
      lorawan.unknownDevices = .refuse
    }
    defer { Task { await harness.shutdown() } }
    let server = try await networkServer(port: harness.broker.port)
    defer { Task { await server.disconnect() } }
    let topic = LoRaWANFixtures.chirpStackUplinkTopic(devEUI: Self.chirpStackDevice)
    let valid = LoRaWANFixtures.coordinates(52.52, 13.41, id: 1)
    let garbage: [(String, String)] = [
      (topic, "not json at all"),
      (topic, "{}"),
      (topic, #"{"deviceInfo":{"devEui":"nope"},"fPort":10,"data":"IQE="}"#),
      (topic, #"{"deviceInfo":{"devEui":"\#(Self.chirpStackDevice)"},"fPort":10,"data":"!!*"}"#),
      (topic, #"{"deviceInfo":{"devEui":"\#(Self.chirpStackDevice)"},"fPort":"ten"}"#),
      (topic, String(repeating: "[", count: 40_000)),
      // Another device's EUI in the JSON than in the topic.
      (topic, LoRaWANFixtures.chirpStackUplink(devEUI: "0011223344556677", payload: valid)),
      // 12 bytes: no request is that long.
      (
        topic,
        LoRaWANFixtures.chirpStackUplink(
          devEUI: Self.chirpStackDevice, payload: Array(repeating: 0x21, count: 12))
      ),
      // An FPort that is not the connection's.
      (
        topic,
        LoRaWANFixtures.chirpStackUplink(devEUI: Self.chirpStackDevice, payload: valid, fPort: 99)
      ),
      // A device not in lorawan.devices while unknown devices are refused.
      (
        LoRaWANFixtures.chirpStackUplinkTopic(devEUI: "0011223344556677"),
        LoRaWANFixtures.chirpStackUplink(devEUI: "0011223344556677", payload: valid)
      ),
      // The Things Stack: a device id that is none, and bad base64.
      (
        LoRaWANFixtures.thingsStackUplinkTopic(deviceID: "x"),
        LoRaWANFixtures.thingsStackUplink(
          deviceID: "x", devEUI: Self.thingsStackDevice, payload: valid)
      ),
      (
        LoRaWANFixtures.thingsStackUplinkTopic(deviceID: "attic"),
        #"{"end_device_ids":{"device_id":"attic","dev_eui":"\#(Self.thingsStackDevice)"},"uplink_message":{"f_port":15,"frm_payload":"%%%"}}"#
      ),
    ]
    for _ in 0..<3 {
      for (topic, payload) in garbage {
        try server.client.publish(topic, payload: Array(payload.utf8), qos: 0)
      }
    }
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await server.next(timeout: .seconds(1))
    }
    // Still serving: the listed device gets its answer, exactly one.
    try server.client.publish(
      topic,
      payload: Array(
        LoRaWANFixtures.chirpStackUplink(devEUI: Self.chirpStackDevice, payload: valid).utf8),
      qos: 1)
    _ = try await chirpStackDownlink(server)
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await server.next(timeout: .milliseconds(500))
    }
    // One line a minute per server for its garbage, one per device: 36 messages, a few lines.
    let lines = harness.logs.all.filter {
      $0.contains("ignored a message") || $0.contains("no downlink") || $0.contains("ignored")
    }
    #expect((1...6).contains(lines.count), "\(lines.joined(separator: "\n"))")
    let metrics = try await MosquittoBroker.httpGet(port: metricsPort, path: "/metrics").body
    for (outcome, count) in [
      ("malformed_json", 9), ("bad_device", 6), ("bad_base64", 6), ("message_too_large", 3),
      ("payload_too_long", 3), ("other_port", 3), ("unknown_device", 3), ("request", 1),
    ] {
      let server = outcome == "bad_device" || outcome == "bad_base64" ? nil : "cs"
      if let server {
        #expect(
          metrics.contains(
            #"skyframe_lorawan_uplinks_total{server="\#(server)",outcome="\#(outcome)"} \#(count)"#),
          "\(outcome)")
      }
    }
    #expect(
      metrics.contains(#"skyframe_lorawan_uplinks_total{server="ttn",outcome="bad_device"} 3"#))
    #expect(
      metrics.contains(#"skyframe_lorawan_uplinks_total{server="ttn",outcome="bad_base64"} 3"#))
    #expect(
      metrics.contains(#"skyframe_lorawan_uplinks_total{server="cs",outcome="bad_device"} 6"#))
    #expect(
      metrics.contains(#"skyframe_lorawan_uplinks_total{server="cs",outcome="bad_base64"} 3"#))
  }

  /// One uplink, one downlink: the same ChirpStack event published twice, the same frame heard
  /// through a second gateway (another event, the same fCnt and payload), and the same event again
  /// seconds later each get nothing more; the next fCnt is answered again.
  @Test func aDuplicatedUplinkIsAnsweredOnce() async throws {
    let (harness, metricsPort) = try await harness()
    defer { Task { await harness.shutdown() } }
    let server = try await networkServer(port: harness.broker.port)
    defer { Task { await server.disconnect() } }
    let topic = LoRaWANFixtures.chirpStackUplinkTopic(devEUI: Self.chirpStackDevice)
    let payload = LoRaWANFixtures.coordinates(52.52, 13.41, id: 1)
    func uplink(fCnt: Int, gatewayLocation: Bool = true) throws {
      try server.client.publish(
        topic,
        payload: Array(
          LoRaWANFixtures.chirpStackUplink(
            devEUI: Self.chirpStackDevice, payload: payload, fCnt: fCnt,
            gatewayLocation: gatewayLocation
          ).utf8), qos: 1)
    }
    // The first is a miss (an upstream call); its copies come while it waits and after.
    try uplink(fCnt: 41)
    try uplink(fCnt: 41)
    try uplink(fCnt: 41, gatewayLocation: false)
    _ = try await chirpStackDownlink(server)
    try uplink(fCnt: 41)
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await server.next(timeout: .seconds(1)) { $0.topic.hasSuffix("/command/down") }
    }
    // The device's next uplink, the same request under the next fCnt: a new downlink.
    try uplink(fCnt: 42)
    _ = try await chirpStackDownlink(server)
    // The Things Stack: the same uplink twice at QoS 0.
    let json = LoRaWANFixtures.thingsStackUplink(
      deviceID: "attic", devEUI: Self.thingsStackDevice,
      payload: LoRaWANFixtures.coordinates(52.52, 13.41, id: 2), fPort: 15, fCnt: 7)
    for _ in 0..<2 {
      try server.client.publish(
        LoRaWANFixtures.thingsStackUplinkTopic(deviceID: "attic"), payload: Array(json.utf8),
        qos: 0)
    }
    _ = try await server.next { $0.topic.hasSuffix("/down/push") }
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await server.next(timeout: .seconds(1))
    }
    let metrics = try await MosquittoBroker.httpGet(port: metricsPort, path: "/metrics").body
    #expect(
      metrics.contains(#"skyframe_lorawan_uplinks_total{server="cs",outcome="duplicate"} 3"#),
      "\(metrics)")
    #expect(
      metrics.contains(#"skyframe_lorawan_uplinks_total{server="ttn",outcome="duplicate"} 1"#))
    #expect(metrics.contains(#"skyframe_lorawan_downlinks_total{server="cs",kind="tiny"} 2"#))
    #expect(harness.forecastCalls == 1)
  }

  /// Payloads the gateway cannot read get no downlink (airtime on a shared band): base64 that is
  /// not strict RFC 4648, a ChirpStack event still encrypted under a join server's key, a The
  /// Things Stack uplink with payload crypto skipped.
  @Test func unreadablePayloadsAreCountedAndNotAnswered() async throws {
    let (harness, metricsPort) = try await harness()
    defer { Task { await harness.shutdown() } }
    let server = try await networkServer(port: harness.broker.port)
    defer { Task { await server.disconnect() } }
    let topic = LoRaWANFixtures.chirpStackUplinkTopic(devEUI: Self.chirpStackDevice)
    let valid = LoRaWANFixtures.coordinates(52.52, 13.41, id: 1)
    let plain = LoRaWANFixtures.chirpStackUplink(
      devEUI: Self.chirpStackDevice, payload: valid, fCnt: 3)
    let badBase64 = plain.replacingOccurrences(
      of: #""data":"\#(LoRaWANFixtures.base64(valid))""#, with: #""data":"AQ=D""#)
    #expect(badBase64 != plain)
    let encrypted =
      String(plain.dropLast())
      + #","joinServerContext":{"sessionKeyId":"","appSKey":{"kekLabel":"js-kek","aesKey":"ZIBmJ4bVA3YY0pt5hxTXWg=="}}}"#
    let ttsJSON = LoRaWANFixtures.thingsStackUplink(
      deviceID: "attic", devEUI: Self.thingsStackDevice, payload: valid, fPort: 15, fCnt: 9)
    let skipped = ttsJSON.replacingOccurrences(
      of: #""uplink_message":{"#,
      with: #""uplink_message":{"app_s_key":{"key":"ZIBmJ4bVA3YY0pt5hxTXWg=="},"#)
    #expect(skipped != ttsJSON)
    try server.client.publish(topic, payload: Array(badBase64.utf8), qos: 1)
    try server.client.publish(topic, payload: Array(encrypted.utf8), qos: 1)
    try server.client.publish(
      LoRaWANFixtures.thingsStackUplinkTopic(deviceID: "attic"), payload: Array(skipped.utf8),
      qos: 0)
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await server.next(timeout: .seconds(1))
    }
    // The same uplink readable: answered (so the three above were refused for what they are).
    try server.client.publish(topic, payload: Array(plain.utf8), qos: 1)
    _ = try await chirpStackDownlink(server)
    let metrics = try await MosquittoBroker.httpGet(port: metricsPort, path: "/metrics").body
    for line in [
      #"skyframe_lorawan_uplinks_total{server="cs",outcome="bad_base64"} 1"#,
      #"skyframe_lorawan_uplinks_total{server="cs",outcome="encrypted"} 1"#,
      #"skyframe_lorawan_uplinks_total{server="ttn",outcome="encrypted"} 1"#,
      #"skyframe_lorawan_downlinks_total{server="cs",kind="tiny"} 1"#,
    ] {
      #expect(metrics.contains(line), "\(line)")
    }
    #expect(!metrics.contains(#"kind="error""#))
  }

  /// A LoRaWAN device past its requests a minute is treated as an MQTT device is: one
  /// `rate_limited` downlink, then none that minute (`frame-v1.md` §6.10).
  @Test func aDeviceOverItsLimitGetsOneRateLimitedThenSilence() async throws {
    let (harness, metricsPort) = try await harness(configure: {
      $0.requests.perDevicePerMinute = 5
    })
    defer { Task { await harness.shutdown() } }
    let server = try await networkServer(port: harness.broker.port)
    defer { Task { await server.disconnect() } }
    let topic = LoRaWANFixtures.chirpStackUplinkTopic(devEUI: Self.chirpStackDevice)
    for count in 1...9 {
      try server.client.publish(
        topic,
        payload: Array(
          LoRaWANFixtures.chirpStackUplink(
            devEUI: Self.chirpStackDevice,
            payload: LoRaWANFixtures.coordinates(52.52, 13.41, id: UInt8(count)), fCnt: count
          ).utf8), qos: 1)
    }
    var statuses: [Int64] = []
    for _ in 0..<6 {
      let payload = try await chirpStackDownlink(server).payload
      try view(payload) { statuses.append($0.value(TinyLayout.status) ?? -1) }
    }
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await server.next(timeout: .seconds(1))
    }
    #expect(statuses.filter { $0 == 0 }.count == 5)
    #expect(statuses.filter { $0 == Int64(FrameStatus.rateLimited.rawValue) }.count == 1)
    let metrics = try await MosquittoBroker.httpGet(port: metricsPort, path: "/metrics").body
    #expect(
      metrics.contains(#"skyframe_lorawan_uplinks_total{server="cs",outcome="over_limit"} 3"#))
  }

  /// A The Things Stack device registered without a DevEUI (ABP) is answered, known by its
  /// device id (limits and logs), as an unlisted device with the default places.
  @Test func aThingsStackDeviceWithoutADevEUIIsAnsweredByItsDeviceID() async throws {
    let (harness, _) = try await harness()
    defer { Task { await harness.shutdown() } }
    let server = try await networkServer(port: harness.broker.port)
    defer { Task { await server.disconnect() } }
    let json = LoRaWANFixtures.thingsStackUplink(
      deviceID: "abp-display", devEUI: Self.thingsStackDevice,
      payload: LoRaWANFixtures.coordinates(48.86, 2.29, id: 5), fPort: 15, fCnt: 3)
    let withoutEUI = json.replacingOccurrences(
      of: #""dev_eui":"\#(Self.thingsStackDevice)","#, with: "")
    #expect(withoutEUI != json)
    try server.client.publish(
      LoRaWANFixtures.thingsStackUplinkTopic(deviceID: "abp-display"),
      payload: Array(withoutEUI.utf8), qos: 0)
    let message = try await server.next { $0.topic.hasSuffix("/down/push") }
    #expect(message.topic.contains("/devices/abp-display/down/push"))
  }
}
