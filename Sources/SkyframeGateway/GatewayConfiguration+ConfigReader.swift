import Configuration
import Foundation
import SkyframeCodec
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
    warn: (String) -> Void = { _ in }
  ) async throws(ConfigurationErrors) -> GatewayConfiguration {
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
        reading: ConfigReader(providers: [variables, file]), recording: known)
    } catch {
      errors = error.errors
    }
    errors += ConfigurationKeys.unknown(fileKeys, known: known.keys, file: path)
    guard let configuration, errors.isEmpty else { throw ConfigurationErrors(errors: errors) }
    for line in ConfigurationKeys.unknownVariables(in: environment, known: known.keys) {
      warn(line)
    }
    return configuration
  }

  /// Reads every key from `reader`; missing keys keep their defaults.
  public init(reading reader: ConfigReader) throws(ConfigurationErrors) {
    try self.init(reading: reader, recording: KnownKeys())
  }

  /// Reads every key from `reader`, and notes in `known` every key it asked for.
  init(reading reader: ConfigReader, recording known: KnownKeys) throws(ConfigurationErrors) {
    self.init()
    let keys = KeyReader(reader: reader, known: known)

    mqtt.host = keys.text("mqtt.host") ?? mqtt.host
    mqtt.port = keys.integer("mqtt.port", mqtt.port, 1...65_535, "a TCP port 1-65535")
    mqtt.clientID = keys.text("mqtt.client-id") ?? mqtt.clientID
    if !(1...23).contains(mqtt.clientID.utf8.count)
      || !mqtt.clientID.allSatisfy(Self.isIdentifierCharacter)
    {
      keys.fail("mqtt.client-id", mqtt.clientID, "1-23 characters of a-z, A-Z, 0-9, '-', '_'")
    }
    mqtt.username = keys.text("mqtt.username")
    mqtt.password = keys.text("mqtt.password", secret: true)
    if let passwordFile = keys.text("mqtt.password-file") {
      do {
        let contents = try String(contentsOfFile: passwordFile, encoding: .utf8)
        mqtt.password = contents.trimmingCharacters(in: .whitespacesAndNewlines)
      } catch {
        keys.fail("mqtt.password-file", passwordFile, "a readable file holding the password")
      }
    }
    mqtt.keepAliveSeconds = keys.integer(
      "mqtt.keepalive-seconds", mqtt.keepAliveSeconds, 5...65_535, "seconds, 5-65535")
    mqtt.protocolVersion = keys.choice("mqtt.protocol", mqtt.protocolVersion, ["5", "3.1.1"])
    mqtt.caFile = keys.existingFile("mqtt.tls.ca-file")
    mqtt.certFile = keys.existingFile("mqtt.tls.cert-file")
    mqtt.keyFile = keys.existingFile("mqtt.tls.key-file")
    if (mqtt.certFile == nil) != (mqtt.keyFile == nil) {
      keys.fail(
        "mqtt.tls.key-file", mqtt.keyFile,
        "a client key and a client certificate together, or neither")
    }
    keys.checkTLSFiles(of: mqtt)

    mqtt.maximumInflight = keys.integer(
      "mqtt.max-inflight", mqtt.maximumInflight, 0...65_535, "0 (no limit) to 65535 messages")
    mqtt.receiveMaximum = keys.integer(
      "mqtt.receive-maximum", mqtt.receiveMaximum, 0...65_535, "0 (65535) to 65535 messages")

    topics.base = keys.text("topics.base") ?? topics.base
    if topics.base.isEmpty || topics.base.contains(where: { "+#".contains($0) })
      || topics.base.hasSuffix("/")
    {
      keys.fail("topics.base", topics.base, "a topic without wildcards or a trailing '/'")
    }
    topics.responsePrefix = keys.text("topics.response-prefix") ?? "\(topics.base)/v1/resp/"
    if topics.responsePrefix.contains(where: { "+#".contains($0) }) {
      keys.fail("topics.response-prefix", topics.responsePrefix, "a topic prefix without wildcards")
    }
    topics.responseTopicMaximumLength = keys.integer(
      "topics.response-topic-max-length", topics.responseTopicMaximumLength, 16...4_096,
      "bytes, 16-4096")
    topics.debugJSON = keys.flag("topics.debug-json", topics.debugJSON)
    topics.answerQoS =
      Topics.AnswerQoS(
        rawValue: keys.choice(
          "topics.answer-qos", topics.answerQoS.rawValue,
          Topics.AnswerQoS.allCases.map(\.rawValue))) ?? topics.answerQoS

    let serviceNames = WeatherServiceRegistry.names
    if let name = keys.text("weather.service") {
      if serviceNames.contains(name) {
        weather.service = name
      } else {
        keys.fail("weather.service", name, "one of " + serviceNames.joined(separator: ", "))
      }
    }
    for name in keys.stringArray("weather.fallback") ?? [] {
      guard serviceNames.contains(name) else {
        keys.fail("weather.fallback", name, "names from " + serviceNames.joined(separator: ", "))
        continue
      }
      weather.fallback.append(name)
    }
    weather.batchWindowMilliseconds = keys.integer(
      "weather.batch-window-ms", weather.batchWindowMilliseconds, 0...1_000, "milliseconds, 0-1000")

    let reverse = keys.choice(
      "places.reverse-geocoding", places.reverseGeocoding.name,
      Places.ReverseGeocoding.choices.map(\.name))
    places.reverseGeocoding =
      Places.ReverseGeocoding.choices.first { $0.name == reverse } ?? places.reverseGeocoding
    // Each service reads its own section; what it needs to work is required when it is used.
    for service in WeatherServiceRegistry.all {
      var section = services[service.name] ?? service.init()
      let inUse =
        weather.order.contains(service.name) || places.reverseGeocoding == .service(service.name)
      section.read(keys, inUse: inUse)
      services[service.name] = section
    }
    places.geonamesFile = keys.existingFile("places.geonames-file")
    places.geonamesMaximumKilometres = keys.number(
      "places.geonames-max-km", places.geonamesMaximumKilometres, 0.1...500, "kilometres, 0.1-500")
    if places.reverseGeocoding == .geonames, places.geonamesFile == nil {
      keys.fail(
        "places.geonames-file", nil,
        "a GeoNames cities file, since places.reverse-geocoding is geonames")
    }

    watches.defaultSeconds = keys.integer(
      "watches.default-seconds", watches.defaultSeconds, 60...86_400, "seconds, 60-86400")
    watches.minimumSeconds = keys.integer(
      "watches.minimum-seconds", watches.minimumSeconds, 10...86_400, "seconds, 10-86400")
    watches.maximumWatches = keys.integer(
      "watches.maximum", watches.maximumWatches, 0...1_000_000, "0-1000000 watches")
    watches.concurrency = keys.integer(
      "watches.concurrency", watches.concurrency, 1...1_024, "1-1024 pushes at once")

    cache.ttlSeconds = keys.integer(
      "cache.ttl-seconds", cache.ttlSeconds, 1...86_400, "seconds, 1-86400")
    cache.gridDegrees = keys.number(
      "cache.grid-degrees", cache.gridDegrees, 0.0001...1, "degrees, 0.0001-1")
    cache.staleSeconds = keys.integer(
      "cache.stale-seconds", cache.staleSeconds, 0...604_800, "seconds, 0-604800")
    cache.geocodingTTLSeconds = keys.integer(
      "cache.geocoding-ttl-seconds", cache.geocodingTTLSeconds, 60...2_592_000,
      "seconds, 60-2592000")

    cache.maximumCells = keys.integer(
      "cache.max-cells", cache.maximumCells, 1...10_000_000, "cells, 1-10000000")
    cache.maximumNames = keys.integer(
      "cache.max-names", cache.maximumNames, 1...10_000_000, "names, 1-10000000")

    requests.maximumLocations = keys.integer(
      "requests.max-locations", requests.maximumLocations, 1...16, "1-16 places per request")
    requests.perDevicePerMinute = keys.integer(
      "requests.per-device-per-minute", requests.perDevicePerMinute, 0...100_000,
      "requests a minute, 0 for no limit")
    requests.queueLimit = keys.integer(
      "requests.queue-limit", requests.queueLimit, 1...1_000_000, "requests, 1-1000000")
    requests.workers = keys.integer("requests.workers", requests.workers, 1...1_024, "1-1024")
    requests.maximumDevices = keys.integer(
      "requests.max-devices", requests.maximumDevices, 1...10_000_000, "device ids, 1-10000000")
    requests.deadlineMilliseconds = keys.integer(
      "requests.deadline-ms", requests.deadlineMilliseconds, 0...600_000,
      "milliseconds, 0 (wait for the fetch) to 600000")

    upstream.newCellsPerMinute = keys.integer(
      "upstream.new-cells-per-minute", upstream.newCellsPerMinute, 0...1_000_000,
      "cells a minute, 0 for no limit")
    upstream.newCellsPerDevicePerMinute = keys.integer(
      "upstream.new-cells-per-device-per-minute", upstream.newCellsPerDevicePerMinute,
      0...1_000_000, "cells a minute, 0 for no limit")
    upstream.reservePercent = keys.integer(
      "upstream.reserve-percent", upstream.reservePercent, 0...90, "percent, 0-90")
    upstream.breakerFailures = keys.integer(
      "upstream.breaker-failures", upstream.breakerFailures, 1...1_000, "failed calls, 1-1000")
    upstream.backoffInitialSeconds = keys.integer(
      "upstream.backoff-initial-seconds", upstream.backoffInitialSeconds, 1...3_600,
      "seconds, 1-3600")
    upstream.backoffMaximumSeconds = keys.integer(
      "upstream.backoff-max-seconds", upstream.backoffMaximumSeconds, 1...86_400,
      "seconds, 1-86400")
    if upstream.backoffMaximumSeconds < upstream.backoffInitialSeconds {
      keys.fail(
        "upstream.backoff-max-seconds", "\(upstream.backoffMaximumSeconds)",
        "at least upstream.backoff-initial-seconds (\(upstream.backoffInitialSeconds))")
    }
    upstream.rateLimitedPauseSeconds = keys.integer(
      "upstream.rate-limited-pause-seconds", upstream.rateLimitedPauseSeconds, 1...86_400,
      "seconds, 1-86400")

    airQuality.service =
      AirQualitySettings.Service(
        rawValue: keys.choice(
          "air-quality.service", airQuality.service.rawValue,
          AirQualitySettings.Service.allCases.map(\.rawValue))) ?? airQuality.service
    let scale = keys.choice(
      "air-quality.scale", "\(airQuality.scale.name)",
      AirQuality.Scale.allCases.map { "\($0.name)" })
    airQuality.scale =
      AirQuality.Scale.allCases.first { "\($0.name)" == scale } ?? airQuality.scale
    airQuality.url = keys.url("air-quality.url") ?? airQuality.url
    airQuality.ttlSeconds = keys.integer(
      "air-quality.ttl-seconds", airQuality.ttlSeconds, 60...86_400, "seconds, 60-86400")
    airQuality.budget = keys.budget("air-quality", airQuality.budget)

    alerts.enabled = keys.flag("alerts.enabled", alerts.enabled)
    alerts.nws.enabled = keys.flag("alerts.nws.enabled", alerts.nws.enabled)
    alerts.nws.url = keys.url("alerts.nws.url") ?? alerts.nws.url
    alerts.nws.userAgent = keys.text("alerts.nws.user-agent")
    if let agent = alerts.nws.userAgent, !identifiesOperator(agent) {
      keys.fail(
        "alerts.nws.user-agent", agent, identifyingAgentRule)
    }
    alerts.nws.timeoutSeconds = keys.integer(
      "alerts.nws.timeout-seconds", alerts.nws.timeoutSeconds, 1...120, "seconds, 1-120")
    alerts.nws.ttlSeconds = keys.integer(
      "alerts.nws.ttl-seconds", alerts.nws.ttlSeconds, 60...86_400, "seconds, 60-86400")
    alerts.nws.budget = keys.budget("alerts.nws", alerts.nws.budget)

    cluster = ClusterSettings(reading: keys)
    if cluster.isEnabled && mqtt.protocolVersion != "5" {
      keys.fail(
        "mqtt.protocol", mqtt.protocolVersion,
        "5 with cluster.group (shared subscriptions and session expiry)")
    }
    metrics.host = keys.text("metrics.host") ?? metrics.host
    metrics.port = keys.integer(
      "metrics.port", metrics.port, 0...65_535, "a TCP port 1-65535, or 0 for none")
    metrics.statsSeconds = keys.integer(
      "metrics.stats-seconds", metrics.statsSeconds, 0...86_400, "seconds, 0 (never) to 86400")

    logLevel = keys.choice(
      "log.level", logLevel, ["trace", "debug", "info", "notice", "warning", "error", "critical"])

    lorawan = LoRaWANSettings(reading: keys)
    homeAssistant = HomeAssistantSettings(reading: keys)
    locations = Self.readLocations(keys)
    if !keys.errors.isEmpty { throw ConfigurationErrors(errors: keys.errors) }
  }

  private static func readLocations(_ keys: KeyReader) -> [NamedLocation] {
    let names = keys.stringArray("locations.names") ?? []
    var result: [NamedLocation] = []
    for name in names {
      let key = "locations.\(name)"
      guard (1...32).contains(name.utf8.count),
        name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }),
        name != "names"
      else {
        keys.fail("locations.names", name, "names of 1-32 characters a-z, 0-9 and '-'")
        continue
      }
      if result.contains(where: { $0.name == name }) {
        keys.fail("locations.names", name, "each name once")
        continue
      }
      let latitude = keys.optionalNumber("\(key).latitude", -90...90, "degrees, -90 to 90")
      let longitude = keys.optionalNumber("\(key).longitude", -180...180, "degrees, -180 to 180")
      let placeName = keys.text("\(key).place")
      let country = keys.text("\(key).country")
      if let country, country.count != 2 || !country.allSatisfy({ $0.isASCII && $0.isLetter }) {
        keys.fail("\(key).country", country, "a two-letter ISO country code")
      }
      let refresh = keys.integer("\(key).refresh-seconds", 600, 60...86_400, "seconds, 60-86400")
      var profiles: [FrameProfile] = []
      let profileText = keys.text("\(key).profiles") ?? "standard"
      for word in profileText.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
      {
        guard let profile = FrameProfile(named: word), !profiles.contains(profile) else {
          keys.fail(
            "\(key).profiles", profileText,
            "profiles separated by commas, each once: standard, large, tiny")
          break
        }
        profiles.append(profile)
      }
      let place: NamedLocation.Place
      switch (latitude, longitude, placeName) {
      case (let latitude?, let longitude?, nil):
        place = .coordinates(latitude: latitude, longitude: longitude)
      case (nil, nil, let placeName?):
        place = .named(placeName, countryCode: country?.uppercased())
      default:
        keys.fail(key, nil, "either latitude and longitude, or place (with an optional country)")
        continue
      }
      result.append(
        NamedLocation(
          name: name, place: place, refreshSeconds: refresh,
          profiles: profiles.isEmpty ? [.standard] : profiles))
    }
    return result
  }

  static func isIdentifierCharacter(_ character: Character) -> Bool {
    character.isASCII
      && (character.isLetter || character.isNumber || character == "-" || character == "_")
  }
}

/// Reads keys as text and checks them, collecting every problem instead of stopping at the first.
/// The weather services read their sections through it (`SectionReader`).
final class KeyReader: SectionReader {
  let reader: ConfigReader
  /// Every key asked for, so that the others can be called unknown.
  let known: KnownKeys
  private(set) var errors: [ConfigurationError] = []

  init(reader: ConfigReader, known: KnownKeys) {
    self.reader = reader
    self.known = known
  }

  func fail(_ key: String, _ value: String?, _ allowed: String) {
    errors.append(ConfigurationError(key: key, value: value, allowed: allowed))
  }

  /// A value of the right kind that cannot be used: `'/x.pem' holds no certificate`.
  func fail(_ key: String, _ value: String, problem: String) {
    errors.append(ConfigurationError(key: key, value: value, problem: problem))
  }

  /// The value, or nil when the key is absent or empty (YAML `~` and `""` count as absent).
  func text(_ key: String, secret: Bool) -> String? {
    known.insert(key)
    guard let value = reader.string(forKey: ConfigKey(key), isSecret: secret),
      !value.isEmpty, value != "~"
    else { return nil }
    return value
  }

  func integer(_ key: String, _ current: Int, _ range: ClosedRange<Int>, _ allowed: String)
    -> Int
  {
    guard let text = text(key) else { return current }
    guard let value = Int(text), range.contains(value) else {
      fail(key, text, allowed)
      return current
    }
    return value
  }

  func number(
    _ key: String, _ current: Double, _ range: ClosedRange<Double>, _ allowed: String
  ) -> Double {
    optionalNumber(key, range, allowed) ?? current
  }

  func optionalNumber(_ key: String, _ range: ClosedRange<Double>, _ allowed: String)
    -> Double?
  {
    guard let text = text(key) else { return nil }
    guard let value = Double(text), value.isFinite, range.contains(value) else {
      fail(key, text, allowed)
      return nil
    }
    return value
  }

  func flag(_ key: String, _ current: Bool) -> Bool {
    guard let text = text(key) else { return current }
    switch text.lowercased() {
    case "true", "yes", "on", "1": return true
    case "false", "no", "off", "0": return false
    default:
      fail(key, text, "true or false")
      return current
    }
  }

  func choice(_ key: String, _ current: String, _ allowed: [String]) -> String {
    guard let text = text(key) else { return current }
    guard allowed.contains(text) else {
      fail(key, text, "one of " + allowed.joined(separator: ", "))
      return current
    }
    return text
  }

  func url(_ key: String) -> String? {
    guard let text = text(key) else { return nil }
    guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme),
      url.host != nil
    else {
      fail(key, text, "an http:// or https:// URL")
      return nil
    }
    return text
  }

  func stringArray(_ key: String) -> [String]? {
    known.insert(key)
    return reader.stringArray(forKey: ConfigKey(key))
  }

  /// A secret given inline (`KEY`) or in a file (`KEY-file`).
  func secretFromValueOrFile(_ key: String) -> String? {
    known.insert(key + "-file")
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

  func budget(_ service: String, _ current: ServiceBudget) -> ServiceBudget {
    ServiceBudget(
      perMinute: integer(
        "\(service).budget-per-minute", current.perMinute, 0...1_000_000,
        "calls a minute, 0 for no limit"),
      perDay: integer(
        "\(service).budget-per-day", current.perDay, 0...100_000_000, "calls a day, 0 for no limit")
    )
  }

  func existingFile(_ key: String) -> String? {
    guard let path = text(key) else { return nil }
    guard FileManager.default.isReadableFile(atPath: path) else {
      fail(key, path, "a readable file")
      return nil
    }
    return path
  }
}
