import SkyframeCodec
import SkyframeProviders

// Where the weather comes from: `weather`, each service's own section, `places`, `air-quality`
// and `alerts`, each read, checked and described by itself
// (`GatewayConfiguration+ConfigReader.swift` lists them in order).

extension GatewayConfiguration.Weather {
  /// Reads `weather.*` and checks it: every name one of `WeatherServiceRegistry`'s.
  init(reading keys: KeyReader) {
    self.init()
    let serviceNames = WeatherServiceRegistry.names
    if let name = keys.text("weather.service") {
      if serviceNames.contains(name) {
        service = name
      } else {
        keys.fail("weather.service", name, "one of " + serviceNames.joined(separator: ", "))
      }
    }
    for name in keys.stringArray("weather.fallback") ?? [] {
      guard serviceNames.contains(name) else {
        keys.fail("weather.fallback", name, "names from " + serviceNames.joined(separator: ", "))
        continue
      }
      fallback.append(name)
    }
    batchWindowMilliseconds = keys.integer(
      "weather.batch-window-ms", batchWindowMilliseconds, 0...1_000, "milliseconds, 0-1000")
  }

  /// `weather` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    [
      "weather:",
      "  service: \(service)",
      "  fallback: [\(fallback.joined(separator: ", "))]",
      "  batch-window-ms: \(batchWindowMilliseconds)",
    ]
  }
}

extension ServiceSections {
  /// Each registered service reads its own section. What a service needs to work is required
  /// when it is in use: named in `weatherOrder` (the service and its fallbacks) or by
  /// `reverseGeocoding`.
  init(
    reading keys: KeyReader, weatherOrder: [String],
    reverseGeocoding: GatewayConfiguration.Places.ReverseGeocoding
  ) {
    self.init()
    for service in WeatherServiceRegistry.all {
      var section = self[service.name] ?? service.init()
      let inUse = weatherOrder.contains(service.name) || reverseGeocoding == .service(service.name)
      section.read(keys, inUse: inUse)
      self[service.name] = section
    }
  }

  /// One section per service, in the registry's order, as each describes itself (secrets
  /// redacted by the service).
  var describedLines: [String] {
    WeatherServiceRegistry.all.flatMap { service in
      ["\(service.name):"] + (self[service.name]?.describedLines ?? []).map { "  " + $0 }
    }
  }
}

extension GatewayConfiguration.Places {
  /// Reads `places.reverse-geocoding` alone: which services are in use depends on it, and their
  /// sections are read between it and the rest of `places` (`readGeoNames`).
  init(readingReverseGeocoding keys: KeyReader) {
    self.init()
    let reverse = keys.choice(
      "places.reverse-geocoding", reverseGeocoding.name, ReverseGeocoding.choices.map(\.name))
    reverseGeocoding = ReverseGeocoding.choices.first { $0.name == reverse } ?? reverseGeocoding
  }

  /// Reads the GeoNames keys of `places`; the file is required with `reverse-geocoding: geonames`.
  mutating func readGeoNames(_ keys: KeyReader) {
    geonamesFile = keys.existingFile("places.geonames-file")
    geonamesMaximumKilometres = keys.number(
      "places.geonames-max-km", geonamesMaximumKilometres, 0.1...500, "kilometres, 0.1-500")
    if reverseGeocoding == .geonames, geonamesFile == nil {
      keys.fail(
        "places.geonames-file", nil,
        "a GeoNames cities file, since places.reverse-geocoding is geonames")
    }
  }

  /// `places` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    [
      "places:",
      "  reverse-geocoding: \(reverseGeocoding.name)",
      "  geonames-file: \(DescribedValue.text(geonamesFile))",
      "  geonames-max-km: \(geonamesMaximumKilometres)",
    ]
  }
}

extension GatewayConfiguration.AirQualitySettings {
  /// Reads `air-quality.*` and checks it.
  init(reading keys: KeyReader) {
    self.init()
    service =
      Service(
        rawValue: keys.choice(
          "air-quality.service", service.rawValue, Service.allCases.map(\.rawValue))) ?? service
    let scaleName = keys.choice(
      "air-quality.scale", "\(scale.name)", AirQuality.Scale.allCases.map { "\($0.name)" })
    scale = AirQuality.Scale.allCases.first { "\($0.name)" == scaleName } ?? scale
    url = keys.url("air-quality.url") ?? url
    ttlSeconds = keys.integer(
      "air-quality.ttl-seconds", ttlSeconds, 60...86_400, "seconds, 60-86400")
    waitMilliseconds = keys.integer(
      "air-quality.wait-ms", waitMilliseconds, 0...30_000, "milliseconds, 0-30000")
    budget = keys.budget("air-quality", budget)
  }

  /// `air-quality` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    [
      "air-quality:",
      "  service: \(service.rawValue)",
      "  scale: \(scale.name)",
      "  url: \(DescribedValue.text(url))",
      "  ttl-seconds: \(ttlSeconds)",
      "  wait-ms: \(waitMilliseconds)",
      "  budget-per-minute: \(budget.perMinute)",
      "  budget-per-day: \(budget.perDay)",
    ]
  }
}

extension GatewayConfiguration.Alerts {
  /// Reads `alerts.*` and checks it.
  init(reading keys: KeyReader) {
    self.init()
    enabled = keys.flag("alerts.enabled", enabled)
    nws = NWS(reading: keys)
  }

  /// `alerts` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    [
      "alerts:",
      "  enabled: \(enabled)",
      "  nws:",
      "    enabled: \(nws.enabled)",
      "    url: \(DescribedValue.text(nws.url))",
      "    user-agent: \(DescribedValue.text(nws.userAgent))",
      "    timeout-seconds: \(nws.timeoutSeconds)",
      "    ttl-seconds: \(nws.ttlSeconds)",
      "    wait-ms: \(nws.waitMilliseconds)",
      "    budget-per-minute: \(nws.budget.perMinute)",
      "    budget-per-day: \(nws.budget.perDay)",
    ]
  }
}

extension GatewayConfiguration.Alerts.NWS {
  /// Reads `alerts.nws.*` and checks it: a user agent must identify the operator.
  init(reading keys: KeyReader) {
    self.init()
    enabled = keys.flag("alerts.nws.enabled", enabled)
    url = keys.url("alerts.nws.url") ?? url
    userAgent = keys.text("alerts.nws.user-agent")
    if let userAgent, !identifiesOperator(userAgent) {
      keys.fail("alerts.nws.user-agent", userAgent, identifyingAgentRule)
    }
    timeoutSeconds = keys.integer(
      "alerts.nws.timeout-seconds", timeoutSeconds, 1...120, "seconds, 1-120")
    ttlSeconds = keys.integer(
      "alerts.nws.ttl-seconds", ttlSeconds, 60...86_400, "seconds, 60-86400")
    waitMilliseconds = keys.integer(
      "alerts.nws.wait-ms", waitMilliseconds, 0...30_000, "milliseconds, 0-30000")
    budget = keys.budget("alerts.nws", budget)
  }
}
