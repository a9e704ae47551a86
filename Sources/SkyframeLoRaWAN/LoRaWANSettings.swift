import SkyframeCodec
import SkyframeGateway

/// The `lorawan` section: the network servers whose MQTT integrations the gateway serves
/// LoRaWAN displays through, and the places those displays ask for by index
/// (`schemas/lorawan-uplink-v1.md`). Without servers nothing of it runs.
public struct LoRaWANSettings: Sendable, Equatable {
  public enum UnknownDevices: String, Sendable, Equatable, CaseIterable {
    /// A device not listed under `lorawan.devices` is served with the default places.
    case allow
    /// Only listed devices are served; the others are counted and logged, never answered.
    case refuse
  }

  /// The two network servers whose MQTT shapes the gateway speaks.
  public enum ServerKind: String, Sendable, Equatable, CaseIterable {
    /// ChirpStack v4's MQTT integration.
    case chirpstack
    /// The Things Stack's MQTT server (The Things Network, Cloud, Open Source).
    case thingsStack = "things-stack"
  }

  /// One network server connection.
  public struct Server: Sendable, Equatable {
    public var name: String
    public var kind: ServerKind = .chirpstack
    public var host = "127.0.0.1"
    public var port = 1883
    public var clientID: String
    public var username: String?
    public var password: String?
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// ChirpStack's application id (a UUID) or The Things Stack's application id.
    public var application = ""
    /// The Things Stack's tenant (`ttn` on The Things Network); nil on the open-source
    /// deployment.
    public var tenant: String?
    /// Uplinks on it are requests; answers go out on it (1-223).
    public var fPort = 10
    public var band = LoRaWANBand.eu868
    public var rx2DataRate: Int
    public var rx1Offset = 0
    /// AS923 downlink dwell time (400 ms): slower rates carry less, RX1 never below DR2.
    public var downlinkDwellTime = false

    public init(name: String) {
      self.name = name
      clientID = String("skyframe-lw-\(name)".prefix(23))
      rx2DataRate = LoRaWANBand.eu868.defaultRX2DataRate
    }

    /// The Things Stack's `{application}@{tenant}` (or the application alone): its MQTT user
    /// name's default and its topics' second level.
    public var thingsStackUser: String { tenant.map { "\(application)@\($0)" } ?? application }

    /// The connection's size rule, with a device's own RX settings where it has them.
    /// Why this connection's RX2 (which the network server may always pick) cannot carry a
    /// `tiny` frame, if it cannot: every uplink is then answered with nothing (the answer is
    /// withheld), whatever data rate the device sends at.
    func rx2Problem(for device: Device? = nil) -> String? {
      let rx2 = device?.rx2DataRate ?? rx2DataRate
      let carried = band.maximumPayload(downlinkDataRate: rx2, dwellTime: downlinkDwellTime) ?? 0
      guard carried < TinyLayout.size else { return nil }
      let dwell = downlinkDwellTime ? " with downlink-dwell-time: true" : ""
      return
        "RX2 at DR\(rx2) carries \(carried) bytes in \(band.rawValue)\(dwell): no tiny frame (\(TinyLayout.size) bytes) fits, so no uplink gets an answer; set rx2-data-rate to a rate that carries \(TinyLayout.size) bytes (and the network server's RX2 to the same)"
    }

    func sizer(for device: Device?) -> DownlinkSizer {
      DownlinkSizer(
        band: band, rx2DataRate: device?.rx2DataRate ?? rx2DataRate,
        rx1Offset: device?.rx1Offset ?? rx1Offset, dwellTime: downlinkDwellTime)
    }
  }

  /// What `config check` and `run` warn about: connections (and devices with their own RX2) whose
  /// RX2 cannot carry a tiny frame.
  package var warnings: [String] {
    var lines: [String] = []
    for server in servers {
      if let problem = server.rx2Problem() {
        lines.append("lorawan.servers.\(server.name).rx2-data-rate: \(problem)")
      }
      for (eui, device) in devices.sorted(by: { $0.key < $1.key }) where device.rx2DataRate != nil {
        if let problem = server.rx2Problem(for: device) {
          lines.append("lorawan.devices.\(eui).rx2-data-rate (server \(server.name)): \(problem)")
        }
      }
    }
    return lines
  }

  /// A device listed by its DevEUI.
  public struct Device: Sendable, Equatable {
    /// What its place indexes pick, in order; empty: the default places.
    public var places: [LocationQuery] = []
    /// Its own RX2 data rate and RX1 offset, where they differ from its server's.
    public var rx2DataRate: Int?
    public var rx1Offset: Int?

    public init() {}
  }

  public var servers: [Server] = []
  public var unknownDevices = UnknownDevices.allow
  /// The places of a device that has none of its own.
  public var defaultPlaces: [LocationQuery] = []
  /// By DevEUI in upper case.
  public var devices: [String: Device] = [:]

  public init() {}

  /// The places a device's indexes pick.
  func places(of device: Device?) -> [LocationQuery] {
    guard let device, !device.places.isEmpty else { return defaultPlaces }
    return device.places
  }

  /// 16 hex digits, upper case; nil when `text` is no EUI.
  static func normalizedEUI(_ text: some StringProtocol) -> String? {
    guard text.utf8.count == 16, text.allSatisfy(\.isHexDigit) else { return nil }
    return text.uppercased()
  }
}
