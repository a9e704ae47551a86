import SkyframeProviders

/// A key of a configuration section that is read, checked and described like the others of its
/// kind: where its value goes, how `KeyReader` checks it and how `skyframe config check` prints
/// it. One list of them, in order, both reads a section and describes it (`KeyedSection`).
struct SectionKey<Section> {
  /// The key within its section: `ttl-seconds` of `cache`.
  var name: String
  /// Reads the key, given its full path, into the section.
  var read: (KeyReader, String, inout Section) -> Void
  /// The value as the section's YAML shows it.
  var described: (Section) -> String

  /// An integer within `range`; `allowed` says what may be there. `check`, when given, looks at
  /// the section right after the key is read (a bound another key sets).
  static func integer(
    _ name: String, _ value: WritableKeyPath<Section, Int>, _ range: ClosedRange<Int>,
    _ allowed: String, check: ((KeyReader, Section) -> Void)? = nil
  ) -> Self {
    SectionKey(
      name: name,
      read: { keys, key, section in
        section[keyPath: value] = keys.integer(key, section[keyPath: value], range, allowed)
        check?(keys, section)
      },
      described: { "\($0[keyPath: value])" })
  }

  /// A finite number within `range`.
  static func number(
    _ name: String, _ value: WritableKeyPath<Section, Double>, _ range: ClosedRange<Double>,
    _ allowed: String
  ) -> Self {
    SectionKey(
      name: name,
      read: { keys, key, section in
        section[keyPath: value] = keys.number(key, section[keyPath: value], range, allowed)
      },
      described: { "\($0[keyPath: value])" })
  }

  /// An http:// or https:// URL; absent keeps the default. Printed quoted.
  static func url(_ name: String, _ value: WritableKeyPath<Section, String>) -> Self {
    SectionKey(
      name: name,
      read: { keys, key, section in
        section[keyPath: value] = keys.url(key) ?? section[keyPath: value]
      },
      described: { DescribedValue.text($0[keyPath: value]) })
  }

  /// A list of names, each 1-64 of a-z, 0-9, `_` and `-`, each once; absent keeps the default.
  /// Printed as a flow sequence.
  static func names(_ name: String, _ value: WritableKeyPath<Section, [String]>) -> Self {
    SectionKey(
      name: name,
      read: { keys, key, section in
        guard let names = keys.stringArray(key) else { return }
        var kept: [String] = []
        for name in names {
          let allowed = name.utf8.allSatisfy {
            (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D
          }
          if name.isEmpty || name.utf8.count > 64 || !allowed {
            keys.fail(key, name, "names of 1-64 characters a-z, 0-9, '_' and '-'")
          } else if kept.contains(name) {
            keys.fail(key, name, "each name once")
          } else {
            kept.append(name)
          }
        }
        section[keyPath: value] = kept
      },
      described: {
        "[" + $0[keyPath: value].map { DescribedValue.text($0) }.joined(separator: ", ") + "]"
      })
  }

  /// Any text; absent or empty keeps the default. Printed quoted.
  static func text(_ name: String, _ value: WritableKeyPath<Section, String>) -> Self {
    SectionKey(
      name: name,
      read: { keys, key, section in
        section[keyPath: value] = keys.text(key) ?? section[keyPath: value]
      },
      described: { DescribedValue.text($0[keyPath: value]) })
  }
}

/// A section made of nothing but `SectionKey`s, read and described in the order of `keys`.
protocol KeyedSection {
  /// The section's name: the first part of its keys' paths and its line in the YAML.
  static var section: String { get }
  static var keys: [SectionKey<Self>] { get }
  /// The defaults.
  init()
}

extension KeyedSection {
  /// Reads `{section}.*` and checks it.
  init(reading keys: KeyReader) {
    self.init()
    for key in Self.keys { key.read(keys, "\(Self.section).\(key.name)", &self) }
  }

  /// The section in `skyframe config check`'s YAML.
  var describedLines: [String] {
    ["\(Self.section):"] + Self.keys.map { "  \($0.name): \($0.described(self))" }
  }
}
