import Foundation
import SkyframeAssembly
import SkyframeCodec
import Testing

@testable import SkyframeGateway
@testable import SkyframeLoRaWAN

/// The `lorawan` section and the downlink size rule (RP002-1.0.4's data rates).
@Suite struct LoRaWANConfigurationTests {
  private func load(_ yaml: String, environment: [String: String] = [:]) async throws -> Result<
    GatewayConfiguration, ConfigurationErrors
  > {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-lorawan-\(UUID().uuidString).yaml")
    try yaml.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    do {
      return .success(
        try await GatewayConfiguration.load(
          path: file.path, environment: environment, parts: PartKind.all))
    } catch {
      return .failure(error)
    }
  }

  private func problems(_ yaml: String) async throws -> [String] {
    switch try await load(yaml) {
    case .success: []
    case .failure(let errors): errors.errors.map(\.description)
    }
  }

  static let example = """
    lorawan:
      unknown-devices: refuse
      default-places: ["Berlin,DE"]
      servers:
        names: [home, ttn]
        home:
          kind: chirpstack
          host: 10.0.0.2
          port: 1884
          username: skyframe
          password: hunter2
          application: 3f1c0b8e-aaaa-bbbb-cccc-0123456789ab
          f-port: 12
        ttn:
          kind: things-stack
          host: eu1.cloud.thethings.network
          application: displays
          tenant: ttn
          band: eu868
          rx2-data-rate: 3
      devices:
        euis: ["70B3D57ED0012345"]
        70B3D57ED0012345:
          places: ["52.52,13.41", "Paris,FR"]
          rx1-dr-offset: 1
    """

  @Test func theSectionIsReadWithRegionDefaults() async throws {
    let configuration = try await load(Self.example).get()
    let lorawan = configuration.lorawan
    #expect(lorawan.unknownDevices == .refuse)
    #expect(lorawan.servers.map(\.name) == ["home", "ttn"])
    let home = lorawan.servers[0]
    #expect(home.kind == .chirpstack && home.host == "10.0.0.2" && home.port == 1884)
    #expect(home.password == "hunter2" && home.fPort == 12 && home.band == .eu868)
    #expect(home.rx2DataRate == 0 && home.rx1Offset == 0)
    let ttn = lorawan.servers[1]
    #expect(ttn.kind == .thingsStack && ttn.username == "displays@ttn" && ttn.rx2DataRate == 3)
    #expect(ttn.thingsStackUser == "displays@ttn")
    let device = try #require(lorawan.devices["70B3D57ED0012345"])
    #expect(device.places.count == 2 && device.rx1Offset == 1 && device.rx2DataRate == nil)
    #expect(
      device.places[0] == .coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000)))
    #expect(lorawan.defaultPlaces.count == 1)

    // config check: every key, the password redacted.
    let described = configuration.redactedDescription
    #expect(described.contains("    home:\n      kind: chirpstack"))
    #expect(described.contains("      password: <redacted>"))
    #expect(!described.contains("hunter2"))
    #expect(described.contains("      places: [\"52.52,13.41\", \"Paris,FR\"]"))
  }

  @Test func aServerPasswordComesFromItsFileOrTheEnvironment() async throws {
    let secret = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-lorawan-\(UUID().uuidString).txt")
    try "from-file\n".write(to: secret, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: secret) }
    let yaml = """
      lorawan:
        servers:
          names: [cs]
          cs:
            application: app
            password-file: \(secret.path)
      """
    #expect(try await load(yaml).get().lorawan.servers[0].password == "from-file")
    let environment = ["SKYFRAME_LORAWAN_SERVERS_CS_PASSWORD": "from-env"]
    #expect(
      try await load(yaml, environment: environment).get().lorawan.servers[0].password
        == "from-env")
  }

  @Test func wrongValuesAreNamedByTheirKeys() async throws {
    let found = try await problems(
      """
      lorawan:
        unknown-devices: maybe
        default-places: ["Berlin;Paris"]
        servers:
          names: [a, B]
          a:
            kind: loriot
            application: "a/b"
            tenant: ttn
            f-port: 224
            band: eu433
            rx2-data-rate: 9
            rx1-dr-offset: 6
        devices:
          euis: ["70B3D57ED001234", "70B3D57ED0012345"]
          70B3D57ED0012345:
            rx2-data-rate: 8
      """)
    let expected = [
      "lorawan.unknown-devices (env SKYFRAME_LORAWAN_UNKNOWN_DEVICES): 'maybe' is not allowed; expected one of allow, refuse",
      "lorawan.default-places (env SKYFRAME_LORAWAN_DEFAULT_PLACES): 'Berlin;Paris' is not allowed",
      "lorawan.servers.names (env SKYFRAME_LORAWAN_SERVERS_NAMES): 'B' is not allowed",
      "lorawan.servers.a.kind (env SKYFRAME_LORAWAN_SERVERS_A_KIND): 'loriot' is not allowed; expected one of chirpstack, things-stack",
      "lorawan.servers.a.application (env SKYFRAME_LORAWAN_SERVERS_A_APPLICATION): 'a/b' is not allowed",
      "lorawan.servers.a.tenant (env SKYFRAME_LORAWAN_SERVERS_A_TENANT): 'ttn' is not allowed; expected only with kind things-stack",
      "lorawan.servers.a.f-port (env SKYFRAME_LORAWAN_SERVERS_A_F_PORT): '224' is not allowed",
      "lorawan.servers.a.band (env SKYFRAME_LORAWAN_SERVERS_A_BAND): 'eu433' is not allowed; expected one of eu868, us915, au915, as923",
      "lorawan.servers.a.rx2-data-rate (env SKYFRAME_LORAWAN_SERVERS_A_RX2_DATA_RATE): '9' is not allowed; expected a downlink data rate of eu868: 0-7",
      "lorawan.servers.a.rx1-dr-offset (env SKYFRAME_LORAWAN_SERVERS_A_RX1_DR_OFFSET): '6' is not allowed; expected an RX1 offset of eu868: 0-5",
      "lorawan.devices.euis (env SKYFRAME_LORAWAN_DEVICES_EUIS): '70B3D57ED001234' is not allowed; expected DevEUIs of 16 hex digits",
      "lorawan.devices.70B3D57ED0012345.rx2-data-rate (env SKYFRAME_LORAWAN_DEVICES_70B3D57ED0012345_RX2_DATA_RATE): '8' is not allowed; expected a downlink data rate of eu868 (server a): 0-7",
    ]
    for line in expected {
      #expect(
        found.contains { $0.hasPrefix(line) },
        "missing: \(line)\nfound:\n\(found.joined(separator: "\n"))")
    }
    #expect(found.count == expected.count, "\(found.joined(separator: "\n"))")
  }

  @Test func anUnknownKeyInTheSectionIsNamed() async throws {
    let found = try await problems(
      "lorawan:\n  servers:\n    names: [cs]\n    cs:\n      application: app\n      fport: 10\n")
    #expect(found.count == 1)
    #expect(
      found.first?.hasPrefix(
        "lorawan.servers.cs.fport: unknown key; did you mean lorawan.servers.cs.f-port?") == true)
  }

  @Test func dwellTimeIsOnlyForAS923AndRefusesTheSlowRates() async throws {
    let found = try await problems(
      """
      lorawan:
        servers:
          names: [eu, asia]
          eu:
            application: app
            downlink-dwell-time: true
          asia:
            application: app
            band: as923
            downlink-dwell-time: true
            rx2-data-rate: 1
      """)
    #expect(found.count == 2, "\(found)")
    #expect(found.contains { $0.hasPrefix("lorawan.servers.eu.downlink-dwell-time") })
    #expect(
      found.contains {
        $0.hasPrefix("lorawan.servers.asia.rx2-data-rate")
          && $0.hasSuffix("a downlink data rate of as923 under dwell time: 2-7")
      })
  }

  /// AS923 with dwell time and the default RX2 (DR2, 11 bytes): no data rate of the device helps,
  /// so `config check` and `run` warn, naming the key and what works.
  @Test func anRX2ThatCannotCarryATinyFrameIsWarnedAbout() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-rx2-\(UUID().uuidString).yaml")
    try """
    lorawan:
      servers:
        names: [asia, ok]
        asia:
          application: app
          band: as923
          downlink-dwell-time: true
        ok:
          application: app
          band: as923
          downlink-dwell-time: true
          rx2-data-rate: 3
    """.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    var warnings: [String] = []
    _ = try await GatewayConfiguration.load(path: file.path, environment: [:], parts: PartKind.all)
    {
      warnings.append($0)
    }
    #expect(
      warnings == [
        "lorawan.servers.asia.rx2-data-rate: RX2 at DR2 carries 11 bytes in as923 with downlink-dwell-time: true: no tiny frame (48 bytes) fits, so no uplink gets an answer; set rx2-data-rate to a rate that carries 48 bytes (and the network server's RX2 to the same)"
      ], "\(warnings)")
  }

  // MARK: The size rule

  @Test func bothReceiveWindowsBoundTheDownlink() {
    func limit(_ band: LoRaWANBand, rx2: Int, offset: Int = 0, dwell: Bool = false, uplink: Int)
      -> Int
    {
      DownlinkSizer(band: band, rx2DataRate: rx2, rx1Offset: offset, dwellTime: dwell).limit(
        uplinkDataRate: uplink)
    }
    // EU868, RX2 DR0: 51 whatever RX1 carries; TTN's RX2 DR3: 115 once RX1 is DR3 or faster.
    #expect(limit(.eu868, rx2: 0, uplink: 0) == 51)
    #expect(limit(.eu868, rx2: 0, uplink: 5) == 51)
    #expect(limit(.eu868, rx2: 3, uplink: 0) == 51)
    #expect(limit(.eu868, rx2: 3, uplink: 5) == 115)
    #expect(limit(.eu868, rx2: 3, offset: 3, uplink: 5) == 51)
    // US915: DR0 uplink -> RX1 DR10 (242), RX2 DR8: 53.
    #expect(limit(.us915, rx2: 8, uplink: 0) == 53)
    #expect(limit(.us915, rx2: 10, uplink: 0) == 242)
    #expect(limit(.us915, rx2: 10, offset: 2, uplink: 0) == 53)
    #expect(LoRaWANBand.us915.rx1DataRate(uplink: 4, offset: 1, dwellTime: false) == 13)
    #expect(LoRaWANBand.au915.rx1DataRate(uplink: 6, offset: 0, dwellTime: false) == 13)
    #expect(LoRaWANBand.au915.rx1DataRate(uplink: 0, offset: 0, dwellTime: false) == 8)
    // AS923 with downlink dwell time: RX2 DR2 carries 11 bytes, RX1 never below DR2.
    #expect(limit(.as923, rx2: 2, dwell: true, uplink: 5) == 11)
    #expect(limit(.as923, rx2: 3, dwell: true, uplink: 0) == 11)
    #expect(limit(.as923, rx2: 3, dwell: true, uplink: 4) == 53)
    #expect(limit(.as923, rx2: 2, uplink: 0) == 51)
    #expect(LoRaWANBand.as923.rx1DataRate(uplink: 3, offset: 7, dwellTime: false) == 5)
    // A data rate the region does not have: nothing may be sent.
    #expect(limit(.us915, rx2: 8, uplink: 5) == 0)
    #expect(limit(.eu868, rx2: 0, uplink: 8) == 0)
  }

  @Test func theModulationGivesTheDataRate() {
    #expect(LoRaWANBand.eu868.uplinkDataRate(spreadingFactor: 12, bandwidth: 125_000) == 0)
    #expect(LoRaWANBand.eu868.uplinkDataRate(spreadingFactor: 7, bandwidth: 250_000) == 6)
    #expect(LoRaWANBand.us915.uplinkDataRate(spreadingFactor: 10, bandwidth: 125_000) == 0)
    #expect(LoRaWANBand.us915.uplinkDataRate(spreadingFactor: 8, bandwidth: 500_000) == 4)
    #expect(LoRaWANBand.us915.uplinkDataRate(spreadingFactor: 12, bandwidth: 125_000) == nil)
    #expect(LoRaWANBand.au915.uplinkDataRate(spreadingFactor: 8, bandwidth: 500_000) == 6)
    #expect(LoRaWANBand.as923.uplinkDataRate(spreadingFactor: 10, bandwidth: 125_000) == 2)
  }
}
