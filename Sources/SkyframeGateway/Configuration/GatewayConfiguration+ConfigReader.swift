import Configuration
import Foundation
import SkyframeProviders
import SystemPackage

extension GatewayConfiguration {
  /// Reads the YAML file at `path`, with every key overridable by an environment variable named
  /// `SKYFRAME_` + the key path in upper case, `.` and `-` as `_` (`mqtt.host` →
  /// `SKYFRAME_MQTT_HOST`). The file is only read, never written.
  ///
  /// A key in the file that the gateway does not read is an error that names the key, its line and
  /// the closest known key; a `SKYFRAME_*` variable that stands for no key is passed to `warn`.
  ///
  /// - Throws: `ConfigurationErrors` naming every key whose value is not allowed, and every
  ///   unknown key.
  public static func load(
    path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
    parts: [PartKind] = PartKind.core, warn: (String) -> Void = { _ in }
  ) async throws(ConfigurationErrors) -> GatewayConfiguration {
    if let problem = KeyReader.unreadable(path) {
      throw ConfigurationErrors(errors: [
        ConfigurationError(key: "--config", value: path, problem: problem)
      ])
    }
    if let text = try? String(contentsOfFile: path, encoding: .utf8),
      text.allSatisfy({ $0.isWhitespace })
    {
      throw ConfigurationErrors(errors: [
        ConfigurationError(
          key: "--config", value: path,
          problem:
            "is empty: give at least one section (config/skyframe.example.yaml shows them all)")
      ])
    }
    let file: FileProvider<YAMLSnapshot>
    do {
      file = try await FileProvider<YAMLSnapshot>(filePath: FilePath(path))
    } catch {
      throw ConfigurationErrors(errors: [
        ConfigurationError(key: "--config", value: path, allowed: "a readable YAML file (\(error))")
      ])
    }
    var secrets: Set<String> = ["SKYFRAME_MQTT_PASSWORD"]
    for service in WeatherServiceRegistry.all {
      for key in service.secretKeys {
        secrets.insert(ConfigurationError.environmentName(of: "\(service.name).\(key)"))
      }
    }
    let variables = EnvironmentVariablesProvider(
      environmentVariables: environment, secretsSpecifier: .specific(secrets)
    ).prefixKeys(with: "skyframe")
    // The same file once more, for its keys and their lines: a key nobody reads is a mistake.
    let fileKeys: [FileKey]
    do {
      fileKeys = try ConfigurationKeys.keys(inYAML: String(contentsOfFile: path, encoding: .utf8))
    } catch {
      throw ConfigurationErrors(errors: [
        ConfigurationError(key: "--config", value: path, allowed: "a readable YAML file (\(error))")
      ])
    }
    let known = KnownKeys()
    var errors: [ConfigurationError] = []
    var configuration: GatewayConfiguration?
    do {
      configuration = try GatewayConfiguration(
        reading: ConfigReader(providers: [variables, file]), parts: parts, recording: known)
    } catch {
      errors = error.errors
    }
    errors += ConfigurationKeys.wrongShapes(fileKeys, known: known, file: path)
    errors += ConfigurationKeys.unknown(fileKeys, known: known.keys, file: path)
    guard let configuration, errors.isEmpty else { throw ConfigurationErrors(errors: errors) }
    for line in ConfigurationKeys.unknownVariables(in: environment, known: known.keys) {
      warn(line)
    }
    for section in configuration.sections.ordered(parts) {
      for line in section.warnings { warn(line) }
    }
    return configuration
  }

  /// Reads every key from `reader` (the core's sections, then those of `parts`); missing keys
  /// keep their defaults.
  public init(reading reader: ConfigReader, parts: [PartKind] = PartKind.core)
    throws(ConfigurationErrors)
  {
    try self.init(reading: reader, parts: parts, recording: KnownKeys())
  }

  /// Reads every key from `reader`, and notes in `known` every key it asked for. Each section
  /// reads and checks its own keys; problems are collected in the order the keys are read, so
  /// the order of the sections is the order of the messages.
  init(reading reader: ConfigReader, parts: [PartKind], recording known: KnownKeys)
    throws(ConfigurationErrors)
  {
    self.init()
    self.parts = parts
    let keys = KeyReader(reader: reader, known: known)
    mqtt = MQTT(reading: keys)
    topics = Topics(reading: keys)
    weather = Weather(reading: keys)
    // Which services are in use depends on places.reverse-geocoding: it is read before their
    // sections, the rest of places after them.
    places = Places(readingReverseGeocoding: keys)
    services = ServiceSections(
      reading: keys, weatherOrder: weather.order, reverseGeocoding: places.reverseGeocoding)
    places.readGeoNames(keys)
    watches = Watches(reading: keys)
    cache = Cache(reading: keys)
    runs = Runs(reading: keys)
    requests = Requests(reading: keys)
    upstream = Upstream(reading: keys)
    airQuality = AirQualitySettings(reading: keys)
    alerts = Alerts(reading: keys)
    cluster = ClusterSettings(reading: keys)
    if cluster.isEnabled && mqtt.protocolVersion != "5" {
      keys.fail(
        "mqtt.protocol", mqtt.protocolVersion,
        "5 with cluster.group (shared subscriptions and session expiry)")
    }
    metrics = Metrics(reading: keys)
    logLevel = Self.readLogLevel(keys, logLevel)
    locations = [NamedLocation](reading: keys)
    sections.read(parts, from: keys)
    if !keys.errors.isEmpty { throw ConfigurationErrors(errors: keys.errors) }
  }

  package static func isIdentifierCharacter(_ character: Character) -> Bool {
    character.isASCII
      && (character.isLetter || character.isNumber || character == "-" || character == "_")
  }
}

/// Reads keys as text and checks them, collecting every problem instead of stopping at the first.
/// The weather services read their sections through it (`SectionReader`).
package final class KeyReader: SectionReader {
  let reader: ConfigReader
  /// Every key asked for, so that the others can be called unknown.
  let known: KnownKeys
  private(set) var errors: [ConfigurationError] = []

  init(reader: ConfigReader, known: KnownKeys) {
    self.reader = reader
    self.known = known
  }

  package func fail(_ key: String, _ value: String?, _ allowed: String) {
    errors.append(ConfigurationError(key: key, value: value, allowed: allowed))
  }

  /// A value of the right kind that cannot be used: `'/x.pem' holds no certificate`.
  package func fail(_ key: String, _ value: String, problem: String) {
    errors.append(ConfigurationError(key: key, value: value, problem: problem))
  }

  /// The value, or nil when the key is absent or empty (YAML `~` and `""` count as absent).
  package func text(_ key: String, secret: Bool) -> String? {
    known.insert(key)
    known.describe(key, takes: secret ? "text, secret" : "text", default: nil)
    guard let value = reader.string(forKey: ConfigKey(key), isSecret: secret),
      !value.isEmpty, value != "~"
    else { return nil }
    return value
  }

  package func integer(_ key: String, _ current: Int, _ range: ClosedRange<Int>, _ allowed: String)
    -> Int
  {
    known.describe(key, takes: allowed, default: "\(current)")
    guard let text = text(key) else { return current }
    guard let value = Int(text), range.contains(value) else {
      fail(key, text, allowed)
      return current
    }
    return value
  }

  package func number(
    _ key: String, _ current: Double, _ range: ClosedRange<Double>, _ allowed: String
  ) -> Double {
    known.describe(key, takes: allowed, default: "\(current)")
    return optionalNumber(key, range, allowed) ?? current
  }

  package func optionalNumber(_ key: String, _ range: ClosedRange<Double>, _ allowed: String)
    -> Double?
  {
    known.describe(key, takes: allowed, default: nil)
    guard let text = text(key) else { return nil }
    guard let value = Double(text), value.isFinite, range.contains(value) else {
      fail(key, text, allowed)
      return nil
    }
    return value
  }

  package func flag(_ key: String, _ current: Bool) -> Bool {
    known.describe(key, takes: "true or false", default: "\(current)")
    guard let text = text(key) else { return current }
    switch text.lowercased() {
    case "true", "yes", "on", "1": return true
    case "false", "no", "off", "0": return false
    default:
      fail(key, text, "true or false")
      return current
    }
  }

  package func choice(_ key: String, _ current: String, _ allowed: [String]) -> String {
    known.describe(key, takes: "one of " + allowed.joined(separator: ", "), default: current)
    guard let text = text(key) else { return current }
    guard allowed.contains(text) else {
      fail(key, text, "one of " + allowed.joined(separator: ", "))
      return current
    }
    return text
  }

  package func url(_ key: String) -> String? {
    known.describe(key, takes: "an http:// or https:// URL", default: nil)
    guard let text = text(key) else { return nil }
    guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
      url.host != nil
    else {
      fail(key, text, "an http:// or https:// URL")
      return nil
    }
    return text
  }

  package func stringArray(_ key: String) -> [String]? {
    known.insertList(key)
    return reader.stringArray(forKey: ConfigKey(key))
  }

  /// A secret given inline (`KEY`) or in a file (`KEY-file`).
  package func secretFromValueOrFile(_ key: String) -> String? {
    known.insert(key + "-file")
    known.describe(key, takes: "text, secret (or \(key)-file)", default: nil)
    known.describe(key + "-file", takes: "a readable file holding \(key)", default: nil)
    if let value = text(key, secret: true) { return value }
    guard let path = text(key + "-file") else { return nil }
    do {
      return try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(
        in: .whitespacesAndNewlines)
    } catch {
      fail(key + "-file", path, "a readable file holding the secret")
      return nil
    }
  }

  package func budget(_ service: String, _ current: ServiceBudget) -> ServiceBudget {
    ServiceBudget(
      perMinute: integer(
        "\(service).budget-per-minute", current.perMinute, 0...1_000_000,
        "calls a minute, 0 for no limit"),
      perDay: integer(
        "\(service).budget-per-day", current.perDay, 0...100_000_000, "calls a day, 0 for no limit")
    )
  }

  package func existingFile(_ key: String) -> String? {
    known.describe(key, takes: "a readable file", default: nil)
    guard let path = text(key) else { return nil }
    if let problem = Self.unreadable(path) {
      fail(key, path, problem: problem)
      return nil
    }
    return path
  }

  /// Why `path` is no readable file (missing, a directory, no permission), or nil.
  static func unreadable(_ path: String) -> String? {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      return "does not exist"
    }
    if isDirectory.boolValue { return "is a directory, not a file" }
    guard FileManager.default.isReadableFile(atPath: path) else {
      return "cannot be read (permission denied)"
    }
    return nil
  }
}
