import SkyframeCodec
import SkyframeProviders

extension GatewayConfiguration {
  /// The resolved configuration as YAML, secrets replaced by `<redacted>`: what `skyframe config
  /// check` prints.
  public var redactedDescription: String {
    func secret(_ value: String?) -> String { value == nil ? "~" : "<redacted>" }
    func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "~" }
    var lines = [
      "mqtt:",
      "  host: \(text(mqtt.host))",
      "  port: \(mqtt.port)",
      "  client-id: \(text(mqtt.clientID))",
      "  username: \(text(mqtt.username))",
      "  password: \(secret(mqtt.password))",
      "  keepalive-seconds: \(mqtt.keepAliveSeconds)",
      "  protocol: \"\(mqtt.protocolVersion)\"",
      "  tls:",
      "    ca-file: \(text(mqtt.caFile))",
      "    cert-file: \(text(mqtt.certFile))",
      "    key-file: \(text(mqtt.keyFile))",
      "  max-inflight: \(mqtt.maximumInflight)",
      "  receive-maximum: \(mqtt.receiveMaximum)",
      "topics:",
      "  base: \(text(topics.base))",
      "  response-prefix: \(text(topics.responsePrefix))",
      "  response-topic-max-length: \(topics.responseTopicMaximumLength)",
      "  debug-json: \(topics.debugJSON)",
      "  answer-qos: \(topics.answerQoS.rawValue)",
      "weather:",
      "  service: \(weather.service)",
      "  fallback: [\(weather.fallback.joined(separator: ", "))]",
      "  batch-window-ms: \(weather.batchWindowMilliseconds)",
    ]
    for service in WeatherServiceRegistry.all {
      lines.append("\(service.name):")
      lines += (services[service.name]?.describedLines ?? []).map { "  " + $0 }
    }
    lines += [
      "places:",
      "  reverse-geocoding: \(places.reverseGeocoding.name)",
      "  geonames-file: \(text(places.geonamesFile))",
      "  geonames-max-km: \(places.geonamesMaximumKilometres)",
      "watches:",
      "  default-seconds: \(watches.defaultSeconds)",
      "  minimum-seconds: \(watches.minimumSeconds)",
      "  maximum: \(watches.maximumWatches)",
      "  concurrency: \(watches.concurrency)",
      "cache:",
      "  ttl-seconds: \(cache.ttlSeconds)",
      "  grid-degrees: \(cache.gridDegrees)",
      "  stale-seconds: \(cache.staleSeconds)",
      "  geocoding-ttl-seconds: \(cache.geocodingTTLSeconds)",
      "  max-cells: \(cache.maximumCells)",
      "  max-names: \(cache.maximumNames)",
      "requests:",
      "  max-locations: \(requests.maximumLocations)",
      "  per-device-per-minute: \(requests.perDevicePerMinute)",
      "  queue-limit: \(requests.queueLimit)",
      "  workers: \(requests.workers)",
      "  max-devices: \(requests.maximumDevices)",
      "  deadline-ms: \(requests.deadlineMilliseconds)",
      "upstream:",
      "  new-cells-per-minute: \(upstream.newCellsPerMinute)",
      "  new-cells-per-device-per-minute: \(upstream.newCellsPerDevicePerMinute)",
      "  reserve-percent: \(upstream.reservePercent)",
      "  breaker-failures: \(upstream.breakerFailures)",
      "  backoff-initial-seconds: \(upstream.backoffInitialSeconds)",
      "  backoff-max-seconds: \(upstream.backoffMaximumSeconds)",
      "  rate-limited-pause-seconds: \(upstream.rateLimitedPauseSeconds)",
      "air-quality:",
      "  service: \(airQuality.service.rawValue)",
      "  scale: \(airQuality.scale.name)",
      "  url: \(text(airQuality.url))",
      "  ttl-seconds: \(airQuality.ttlSeconds)",
      "  budget-per-minute: \(airQuality.budget.perMinute)",
      "  budget-per-day: \(airQuality.budget.perDay)",
      "alerts:",
      "  enabled: \(alerts.enabled)",
      "  nws:",
      "    enabled: \(alerts.nws.enabled)",
      "    url: \(text(alerts.nws.url))",
      "    user-agent: \(text(alerts.nws.userAgent))",
      "    timeout-seconds: \(alerts.nws.timeoutSeconds)",
      "    ttl-seconds: \(alerts.nws.ttlSeconds)",
      "    budget-per-minute: \(alerts.nws.budget.perMinute)",
      "    budget-per-day: \(alerts.nws.budget.perDay)",
      "cluster:",
      "  group: \(text(cluster.group))",
      "  instance-id: \(text(cluster.resolvedInstanceID()))",
      "  session-expiry-seconds: \(cluster.sessionExpirySeconds)",
      "  key: \(cluster.key == nil ? "~" : "<redacted>")",
      "  owner-wait-ms: \(cluster.ownerWaitMilliseconds)",
      "metrics:",
      "  host: \(text(metrics.host))",
      "  port: \(metrics.port)",
      "  stats-seconds: \(metrics.statsSeconds)",
      "log:",
      "  level: \(logLevel)",
      "locations:",
      "  names: [\(locations.map(\.name).joined(separator: ", "))]",
    ]
    for location in locations {
      lines.append("  \(location.name):")
      switch location.place {
      case .coordinates(let latitude, let longitude):
        lines.append("    latitude: \(latitude)")
        lines.append("    longitude: \(longitude)")
      case .named(let name, let country):
        lines.append("    place: \(text(name))")
        lines.append("    country: \(text(country))")
      }
      lines.append("    refresh-seconds: \(location.refreshSeconds)")
      lines.append("    profiles: \(location.profiles.map { "\($0.name)" }.joined(separator: ","))")
    }
    lines += lorawan.describedLines
    lines += homeAssistant.describedLines
    return lines.joined(separator: "\n")
  }
}
