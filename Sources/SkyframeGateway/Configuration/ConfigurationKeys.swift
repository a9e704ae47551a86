import Foundation
import Yams

/// Keys the configuration reader asked for, so that whatever else a file or the environment
/// holds can be named as unknown: a misspelt key is refused, not silently ignored.
final class KnownKeys {
  private(set) var keys: Set<String> = []
  /// The keys read as lists; every other key takes a single value.
  private(set) var lists: Set<String> = []
  /// What each key takes and its default, as the reader asked for it: the configuration
  /// reference (`skyframe config describe`), in the order the keys are read.
  private(set) var described: [(key: String, takes: String, default: String?)] = []
  private var describedKeys: Set<String> = []

  func insert(_ key: String) { keys.insert(key) }

  func insertList(_ key: String) {
    keys.insert(key)
    lists.insert(key)
    describe(key, takes: "a list", default: nil)
  }

  /// Notes what `key` takes; the first description of a key stays.
  func describe(_ key: String, takes: String, default value: String?) {
    guard describedKeys.insert(key).inserted else { return }
    described.append((key, takes, value))
  }
}

/// A key as written in the configuration file: its dotted path, the line it is on and the shape
/// of its value.
struct FileKey: Equatable {
  enum Shape: Equatable {
    case value
    case list
    /// A mapping with no keys (`{}`).
    case emptyMapping
    /// No value (`key:`, `~`, `null`, `""`): absent, whatever the key takes (a list whose items
    /// were all commented out, say).
    case empty
  }

  var path: String
  var line: Int
  var shape: Shape = .value
}

enum ConfigurationKeys {
  /// Every key in a YAML document, nested mappings joined with `.`; a sequence or a scalar ends a
  /// path. Throws when the text is not YAML.
  static func keys(inYAML text: String) throws -> [FileKey] {
    guard let root = try Yams.compose(yaml: text), case .mapping(let mapping) = root else {
      return []
    }
    var found: [FileKey] = []
    func walk(_ mapping: Node.Mapping, prefix: String) {
      for (key, value) in mapping {
        let name = key.string ?? "?"
        let path = prefix.isEmpty ? name : "\(prefix).\(name)"
        switch value {
        case .mapping(let nested) where !nested.isEmpty:
          walk(nested, prefix: path)
        case .mapping:
          found.append(FileKey(path: path, line: key.mark?.line ?? 0, shape: .emptyMapping))
        case .sequence:
          found.append(FileKey(path: path, line: key.mark?.line ?? 0, shape: .list))
        case .scalar(let scalar)
        where ["", "~", "null"].contains(scalar.string.lowercased()) && scalar.style == .plain
          || scalar.string.isEmpty:
          found.append(FileKey(path: path, line: key.mark?.line ?? 0, shape: .empty))
        default:
          found.append(FileKey(path: path, line: key.mark?.line ?? 0))
        }
      }
    }
    walk(mapping, prefix: "")
    return found
  }

  /// The problems with keys in the file that the reader never asked for.
  static func unknown(_ fileKeys: [FileKey], known: Set<String>, file: String)
    -> [ConfigurationError]
  {
    fileKeys.filter { !known.contains($0.path) && !isSection($0.path, known) }.map { key in
      ConfigurationError(
        unknownKey: key.path, at: "\(file), line \(key.line)", hint: hint(for: key.path, in: known))
    }
  }

  /// The problems with values of the wrong shape: a list where a single value is read, a single
  /// value where a list is, a value or a list where a section of keys is (`mqtt: broker.lan`).
  /// Each would otherwise leave the key's default in place without a word.
  static func wrongShapes(_ fileKeys: [FileKey], known: KnownKeys, file: String)
    -> [ConfigurationError]
  {
    fileKeys.compactMap { key in
      let location = "\(file), line \(key.line)"
      let given = key.shape == .list ? "a list" : "a single value"
      if known.keys.contains(key.path) {
        let expectsList = known.lists.contains(key.path)
        switch (key.shape, expectsList) {
        case (.list, false):
          return ConfigurationError(
            key: key.path, shape: given, expected: "a single value", at: location)
        case (.value, true):
          return ConfigurationError(
            key: key.path, shape: given, expected: "a list ([a, b] or one item a line)",
            at: location)
        case (.emptyMapping, _):
          return ConfigurationError(
            key: key.path, shape: "a mapping",
            expected: expectsList ? "a list" : "a single value", at: location)
        default:
          return nil
        }
      }
      guard key.shape != .emptyMapping, key.shape != .empty, isSection(key.path, known.keys) else {
        return nil
      }
      let inside = known.keys.filter { $0.hasPrefix(key.path + ".") }.sorted().prefix(3)
      return ConfigurationError(
        key: key.path, shape: given,
        expected: "a section of keys (\(inside.joined(separator: ", ")), …)", at: location)
    }
  }

  /// Whether `path` names a section: some known key lies below it.
  static func isSection(_ path: String, _ known: Set<String>) -> Bool {
    known.contains { $0.hasPrefix(path + ".") }
  }

  /// Warnings for `SKYFRAME_*` variables that stand for no key.
  static func unknownVariables(in environment: [String: String], known: Set<String>) -> [String] {
    let names = Dictionary(
      known.map { (ConfigurationError.environmentName(of: $0), $0) },
      uniquingKeysWith: { a, _ in a }
    )
    return environment.keys.filter { $0.hasPrefix("SKYFRAME_") && names[$0] == nil }.sorted().map {
      variable in
      let closest = closest(to: variable, among: names.keys)
      return "\(variable) is set but is no configuration variable; ignored"
        + (closest.map { "; did you mean \($0)?" } ?? "")
    }
  }

  /// What to say after "unknown key": the closest known key, or why a place's key is unknown.
  static func hint(for key: String, in known: Set<String>) -> String? {
    let parts = key.split(separator: ".")
    if parts.count == 3, parts[0] == "locations",
      ["latitude", "longitude", "place", "country", "refresh-seconds", "profiles"].contains(
        parts[2])
    {
      return "'\(parts[1])' is not listed in locations.names"
    }
    if let closest = closest(to: key, among: known) { return "did you mean \(closest)?" }
    // The right key in the wrong section: `mqtt.ttl-seconds` for `cache.ttl-seconds`.
    if let leaf = parts.last,
      let moved = known.sorted().first(where: { $0.split(separator: ".").last == leaf })
    {
      return "did you mean \(moved)?"
    }
    return nil
  }

  /// The candidate within a few edits of `text` (fewest first, then alphabetical), if any.
  static func closest(to text: String, among candidates: some Sequence<String>) -> String? {
    let limit = max(2, text.count / 4)
    var best: (distance: Int, key: String)?
    for candidate in candidates {
      let distance = editDistance(text, candidate)
      guard distance <= limit else { continue }
      if best == nil || (distance, candidate) < (best!.distance, best!.key) {
        best = (distance, candidate)
      }
    }
    return best?.key
  }

  /// Insertions, deletions, substitutions and swaps of two neighbours that turn `a` into `b`
  /// (optimal string alignment distance).
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a.utf8)
    let b = Array(b.utf8)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var before = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], before[j - 2] + 1)
        }
      }
      (before, previous, current) = (previous, current, before)
    }
    return previous[b.count]
  }
}
