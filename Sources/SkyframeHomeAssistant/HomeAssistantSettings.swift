import SkyframeGateway
import SkyframeProviders

/// Home Assistant MQTT discovery (`homeassistant` section): every named place, every watched
/// place and the gateway itself appear in Home Assistant as devices with sensors, through
/// retained discovery messages under `discoveryPrefix`.
public struct HomeAssistantSettings: Sendable, Equatable {
  public var enabled = false
  /// Home Assistant's MQTT discovery prefix (its MQTT integration's setting; `homeassistant`
  /// unless changed there).
  public var discoveryPrefix = "homeassistant"

  public init() {}
}

extension HomeAssistantSettings {
  /// Reads `homeassistant.*` and checks it.
  package init(reading keys: KeyReader) {
    self.init()
    enabled = keys.flag("homeassistant.enabled", enabled)
    if let prefix = keys.text("homeassistant.discovery-prefix") {
      // A topic of its own: no wildcards, no empty level, no `$` start (broker topics).
      let levels = prefix.split(separator: "/", omittingEmptySubsequences: false)
      if prefix.utf8.count > 64 || prefix.hasPrefix("$")
        || levels.contains(where: { $0.isEmpty || $0.contains("+") || $0.contains("#") })
      {
        keys.fail(
          "homeassistant.discovery-prefix", prefix,
          "an MQTT topic of 1-64 characters without '+', '#', empty levels or a leading '$'")
      } else {
        discoveryPrefix = prefix
      }
    }
  }

  package var describedLines: [String] {
    [
      "homeassistant:",
      "  enabled: \(enabled)",
      "  discovery-prefix: \"\(discoveryPrefix)\"",
    ]
  }
}
