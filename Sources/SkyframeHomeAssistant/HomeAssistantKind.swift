import SkyframeGateway

/// Home Assistant in the gateway: its `homeassistant` section and its part, listed by the
/// program that builds the gateway (`SkyframeAssembly`).
extension PartKind {
  public static let homeAssistant = PartKind(
    name: "homeassistant", section: HomeAssistantSettings.self
  ) { HomeAssistantPart.part($0) }
}

extension HomeAssistantSettings: PartSection {
  package static var restartOnlyKeys: [String] { ["homeassistant.discovery-prefix"] }
}

extension GatewayConfiguration {
  /// Home Assistant MQTT discovery (`homeassistant` section).
  public var homeAssistant: HomeAssistantSettings {
    get { sections[HomeAssistantSettings.self] }
    set { sections[HomeAssistantSettings.self] = newValue }
  }
}
