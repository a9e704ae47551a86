import Configuration
import Foundation
import SkyframeAssembly
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
    _ = try GatewayConfiguration(
      reading: ConfigReader(providers: [file]), parts: PartKind.all, recording: known)
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

  /// docs/operators/configuration-reference.md is what `skyframe config describe` writes from
  /// the sections' own readers: a key added, removed or changed in the code and not in the page
  /// (or the other way round) fails here.
  @Test func theReferencePageIsWhatTheReadersRead() async throws {
    let page = Self.example.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("docs/operators/configuration-reference.md")
    let written = try String(contentsOf: page, encoding: .utf8)
    let generated = try await GatewayConfiguration.referenceMarkdown(parts: PartKind.all)
    #expect(
      written == generated,
      "docs/operators/configuration-reference.md is out of date: skyframe config describe > docs/operators/configuration-reference.md"
    )
    // Every key the example configuration is read for is on the page (named entries as
    // {name} and {eui}).
    let keys = Set(try await GatewayConfiguration.reference(parts: PartKind.all).map(\.key))
    let file = try await FileProvider<YAMLSnapshot>(filePath: FilePath(Self.example.path))
    let known = KnownKeys()
    _ = try GatewayConfiguration(
      reading: ConfigReader(providers: [file]), parts: PartKind.all, recording: known)
    let names = ["berlin", "sydney"]
    let missing = known.keys.filter { key in
      var general = key
      for name in names {
        general = general.replacingOccurrences(of: ".\(name).", with: ".{name}.")
      }
      return !keys.contains(general)
    }
    #expect(missing.isEmpty, "read but not on the page: \(missing.sorted())")
  }
}
