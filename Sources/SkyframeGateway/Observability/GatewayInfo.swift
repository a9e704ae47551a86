import Foundation
import SkyframeCodec
import SkyframeProviders

/// What a display may want to show about where its weather comes from: retained on
/// `{base}/v1/gateway/info` (JSON) on every connect and after every reload.
package struct GatewayInfo: Codable, Sendable, Equatable {
  struct Source: Codable, Sendable, Equatable {
    var name: String
    /// `weather`, `fallback`, `air-quality` or `alerts`.
    var role: String
    /// The credit to show next to the data.
    var attribution: String
    var license: String
    var url: String
  }

  /// This software's version.
  var version: String
  /// The frame version the gateway sends (`1.1`: the v1.1 fields may be present).
  var frameVersion: String
  var services: [Source]

  package static var softwareVersion: String { SkyframeVersion.current }

  init(_ configuration: GatewayConfiguration) {
    version = Self.softwareVersion
    frameVersion = "1.1"
    services = configuration.weather.order.enumerated().map { index, name in
      Self.source(name, role: index == 0 ? "weather" : "fallback")
    }
    services += SupplementRegistry.all.compactMap { $0.source(configuration) }
  }

  static func source(_ name: String, role: String) -> Source {
    let attribution =
      WeatherServiceRegistry.descriptor(named: name)?.attribution
      ?? Attribution(text: name, license: "", url: "")
    return Source(
      name: name, role: role, attribution: attribution.text, license: attribution.license,
      url: attribution.url)
  }

  func json() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).map { [UInt8]($0) } ?? Array("{}".utf8)
  }
}

/// The one place the software's version is written: `skyframe --version` prints it and the
/// retained `gateway/info` message carries it.
public enum SkyframeVersion {
  public static let current = "0.12.0"
}
