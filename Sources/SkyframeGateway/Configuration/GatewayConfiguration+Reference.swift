import Configuration
import Foundation
import SystemPackage
import Yams

extension GatewayConfiguration {
  /// One key of the configuration as its section reads it: what it takes and its default.
  public struct KeyReference: Sendable, Equatable {
    public var key: String
    public var takes: String
    public var defaultValue: String?
  }

  /// Every key the sections read, in the order they read them, with what each takes and its
  /// default: the sections are read from a file that names one entry of each named section
  /// (`locations`, LoRaWAN servers and devices), whose keys are shown as `{name}` and `{eui}`.
  public static func reference(parts: [PartKind] = PartKind.core) async throws
    -> [KeyReference]
  {
    let seeded =
      """
      locations:
        names: [\(Self.seedName)]
        \(Self.seedName): { latitude: 0, longitude: 0 }

      """
      + parts.compactMap(\.section).map {
        $0.referenceSeed(name: Self.seedName, eui: Self.seedEUI)
      }.joined()
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-reference-\(UUID().uuidString).yaml")
    try seeded.write(to: url, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: url) }
    let file = try await FileProvider<YAMLSnapshot>(filePath: FilePath(url.path))
    let known = KnownKeys()
    // Problems with the seeded values do not matter here: every key was asked for.
    _ = try? GatewayConfiguration(
      reading: ConfigReader(providers: [file]), parts: parts, recording: known)
    // A key read as text names no default; the resolved defaults (`config check` of nothing)
    // say it.
    var resolved = GatewayConfiguration()
    resolved.parts = parts
    let defaults = Self.scalars(inYAML: resolved.redactedDescription)
    func placeholders(_ text: String) -> String {
      text.replacingOccurrences(of: ".\(Self.seedName).", with: ".{name}.")
        .replacingOccurrences(of: ".\(Self.seedEUI).", with: ".{eui}.")
    }
    return known.described.map { entry in
      KeyReference(
        key: placeholders(entry.key), takes: placeholders(entry.takes),
        defaultValue: entry.default ?? defaults[entry.key])
    }
  }

  /// The scalar values of a YAML document by their dotted paths (`~` and empty lists left out).
  static func scalars(inYAML text: String) -> [String: String] {
    guard let root = try? Yams.compose(yaml: text), case .mapping(let mapping) = root else {
      return [:]
    }
    var found: [String: String] = [:]
    func walk(_ mapping: Node.Mapping, prefix: String) {
      for (key, value) in mapping {
        let path = prefix.isEmpty ? (key.string ?? "?") : "\(prefix).\(key.string ?? "?")"
        switch value {
        case .mapping(let nested): walk(nested, prefix: path)
        case .scalar(let scalar) where scalar.string != "~" && !scalar.string.isEmpty:
          found[path] = scalar.string
        case .sequence(let items) where !items.isEmpty:
          found[path] = items.compactMap(\.string).joined(separator: ", ")
        default: break
        }
      }
    }
    walk(mapping, prefix: "")
    return found
  }

  package static let seedName = "seeded-entry"
  package static let seedEUI = "00000000000000A1"

  /// `reference()` as the Markdown page `docs/operators/configuration-reference.md`.
  public static func referenceMarkdown(parts: [PartKind] = PartKind.core) async throws -> String {
    func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
    var lines = [
      "# Configuration reference",
      "",
      "Every key the gateway reads, in the order its sections read them, with what each takes",
      "and its default (none: absent, or worked out from other keys). Written by",
      "`skyframe config describe` from the sections' own readers; a test fails when this page and",
      "the code disagree. Every key can also be given in the environment as `SKYFRAME_` and the",
      "key in capitals, `.` and `-` as `_` (`mqtt.host`: `SKYFRAME_MQTT_HOST`). What each key",
      "does: the comments of `config/skyframe.example.yaml` and [configuration](configuration.md).",
      "",
      "| Key | Takes | Default |",
      "|---|---|---|",
    ]
    for entry in try await reference(parts: parts) {
      let value = entry.defaultValue.map { "`\(cell($0))`" } ?? ""
      lines.append("| `\(entry.key)` | \(cell(entry.takes)) | \(value) |")
    }
    lines += [
      "",
      "## Keys that need a restart",
      "",
      "SIGHUP (`systemctl reload skyframe`) applies everything else. These keep their running",
      "value until a restart, and the log names each one that changed:",
      "",
    ]
    lines += restartOnlyKeys(parts: parts).map { "- `\($0)`" }
    return lines.joined(separator: "\n") + "\n"
  }
}
