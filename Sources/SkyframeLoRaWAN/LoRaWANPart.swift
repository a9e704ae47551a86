import SkyframeGateway
import SkyframeMQTT

/// LoRaWAN in the gateway: its `lorawan` section and its part, listed by the program that builds
/// the gateway (`SkyframeAssembly`).
extension PartKind {
  public static let lorawan = PartKind(name: "lorawan", section: LoRaWANSettings.self) {
    context throws(MQTTError) in try LoRaWANGateway.part(context)
  }
}

extension LoRaWANSettings: PartSection {
  package static var restartOnlyKeys: [String] { ["lorawan.servers"] }

  package static func referenceSeed(name: String, eui: String) -> String {
    """
    lorawan:
      servers:
        names: [\(name)]
        \(name): { kind: things-stack, application: app }
      devices:
        euis: ["\(eui)"]

    """
  }
}

extension GatewayConfiguration {
  /// LoRaWAN displays through network servers' MQTT integrations (`lorawan` section).
  public var lorawan: LoRaWANSettings {
    get { sections[LoRaWANSettings.self] }
    set { sections[LoRaWANSettings.self] = newValue }
  }
}
