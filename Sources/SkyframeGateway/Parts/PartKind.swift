import SkyframeMQTT

/// One kind of part, as a program lists it: its name, its configuration section if it has one,
/// and how it is made from the gateway's core. The gateway is built from the kinds its
/// configuration names (`GatewayConfiguration.parts`), in that order: the order their routes are
/// tried and their services start.
public struct PartKind: Sendable, Equatable {
  public let name: String
  /// Its section of the configuration file; nil for a part configured by the core's sections.
  let section: (any PartSection.Type)?
  let make: @Sendable (PartContext) throws(MQTTError) -> (any GatewayPart)?

  package init(
    name: String, section: (any PartSection.Type)? = nil,
    make: @escaping @Sendable (PartContext) throws(MQTTError) -> (any GatewayPart)?
  ) {
    self.name = name
    self.section = section
    self.make = make
  }

  /// Kinds are told apart by name.
  public static func == (lhs: PartKind, rhs: PartKind) -> Bool { lhs.name == rhs.name }
}

extension PartKind {
  /// The parts of the core module, in their order. A gateway built without the other modules
  /// (the fleet, LoRaWAN, Home Assistant, the HTTP and CoAP ways in) has these; `skyframe` lists
  /// every part in `SkyframeAssembly` (`PartKind.all`).
  public static let core: [PartKind] = [presence, namedPlaces, watches, fastLane]

  public static let presence = PartKind(name: "presence") { StandalonePresence.part($0) }
  public static let namedPlaces = PartKind(name: "locations") { NamedLocationPublisher.part($0) }
  public static let watches = PartKind(name: "watches") { WatchScheduler.part($0) }
  public static let fastLane = PartKind(name: "fast-lane") { FastLanePart.part($0) }
}

/// A part's own section of the configuration file: read, checked and described by the part's
/// module, kept in `GatewayConfiguration.sections`, compared whole on reload.
package protocol PartSection: Sendable, Equatable {
  /// The defaults (the section absent).
  init()
  /// Reads and checks its keys; problems go to `keys`.
  init(reading keys: KeyReader)
  /// Its lines in `skyframe config check`.
  var describedLines: [String] { get }
  /// Lines said once when the file is loaded: allowed, but probably not meant.
  var warnings: [String] { get }
  /// YAML naming one entry of each of its named lists, with `seedName` and `seedEUI` as the
  /// names (what `skyframe config describe` reads to list their keys), or "".
  static func referenceSeed(name: String, eui: String) -> String
  /// Its keys (or whole sections) that keep their running value until a restart: the list
  /// `skyframe config describe` writes, which every other mention points to.
  static var restartOnlyKeys: [String] { get }
}

extension PartSection {
  package var warnings: [String] { [] }
  package static func referenceSeed(name: String, eui: String) -> String { "" }
  package static var restartOnlyKeys: [String] { [] }

  fileprivate func isEqual(to other: any PartSection) -> Bool {
    (other as? Self).map { $0 == self } ?? false
  }
}

/// The parts' sections of a configuration, by type: a part's module reads its own with
/// `sections[LoRaWANSettings.self]` (the defaults when the section was never read).
public struct PartSections: Sendable, Equatable {
  private var values: [ObjectIdentifier: any PartSection] = [:]

  public init() {}

  package subscript<Section: PartSection>(_ type: Section.Type) -> Section {
    get { values[ObjectIdentifier(type)] as? Section ?? Section() }
    set { values[ObjectIdentifier(type)] = newValue }
  }

  /// Reads the section of each kind that has one, in their order.
  mutating func read(_ kinds: [PartKind], from keys: KeyReader) {
    for section in kinds.compactMap(\.section) {
      values[ObjectIdentifier(section)] = section.init(reading: keys)
    }
  }

  /// The sections of `kinds`, in their order (the defaults of one never read).
  func ordered(_ kinds: [PartKind]) -> [any PartSection] {
    kinds.compactMap(\.section).map { values[ObjectIdentifier($0)] ?? $0.init() }
  }

  public static func == (lhs: PartSections, rhs: PartSections) -> Bool {
    lhs.values.count == rhs.values.count
      && lhs.values.allSatisfy { key, section in
        rhs.values[key].map { section.isEqual(to: $0) } ?? false
      }
  }
}
