import Configuration
import Foundation
import SystemPackage
import Testing

@testable import SkyframeGateway

/// `config/skyframe.example.yaml` is the configuration's reference (docs/operators/configuration.md
/// says it documents every key): it must load, and every key the sections read must be written
/// in it. A key added to a section's reader without a line there fails this test.
@Suite struct ConfigurationReferenceTests {
  static let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("config/skyframe.example.yaml")

  @Test func theExampleNamesEveryKeyTheSectionsRead() async throws {
    let text = try String(contentsOf: Self.example, encoding: .utf8)
    let file = try await FileProvider<YAMLSnapshot>(filePath: FilePath(Self.example.path))
    let known = KnownKeys()
    _ = try GatewayConfiguration(reading: ConfigReader(providers: [file]), recording: known)
    let written = Set(try ConfigurationKeys.keys(inYAML: text).map(\.path))
    // A key of a named entry (`locations.{name}.country`) may be shown for another entry of the
    // same section only (the example gives Berlin by name and Sydney by coordinates): the same
    // path but for one part.
    let writtenParts = written.map { $0.split(separator: ".") }
    let missing = known.keys.subtracting(written).filter { key in
      let parts = key.split(separator: ".")
      return !writtenParts.contains { other in
        parts.count >= 3 && other.count == parts.count && other[0] == parts[0]
          && zip(other, parts).filter { $0 != $1 }.count == 1
      }
    }
    #expect(
      missing.isEmpty, "keys read but not in config/skyframe.example.yaml: \(missing.sorted())")
    #expect(!known.keys.isEmpty)
  }
}
