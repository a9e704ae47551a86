// How much the gateway takes on: `watches`, `cache`, `requests` and `upstream`, each read,
// checked and described by itself (`GatewayConfiguration+ConfigReader.swift` lists them in order).

extension GatewayConfiguration.Watches {
  /// Reads `watches.*` and checks it.
  init(reading keys: KeyReader) {
    self.init()
    defaultSeconds = keys.integer(
      "watches.default-seconds", defaultSeconds, 60...86_400, "seconds, 60-86400")
    minimumSeconds = keys.integer(
      "watches.minimum-seconds", minimumSeconds, 10...86_400, "seconds, 10-86400")
    maximumWatches = keys.integer(
      "watches.maximum", maximumWatches, 0...1_000_000, "0-1000000 watches")
    concurrency = keys.integer(
      "watches.concurrency", concurrency, 1...1_024, "1-1024 pushes at once")
  }

  /// `watches` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    [
      "watches:",
      "  default-seconds: \(defaultSeconds)",
      "  minimum-seconds: \(minimumSeconds)",
      "  maximum: \(maximumWatches)",
      "  concurrency: \(concurrency)",
    ]
  }
}

extension GatewayConfiguration.Cache {
  /// Reads `cache.*` and checks it.
  init(reading keys: KeyReader) {
    self.init()
    ttlSeconds = keys.integer("cache.ttl-seconds", ttlSeconds, 1...86_400, "seconds, 1-86400")
    gridDegrees = keys.number(
      "cache.grid-degrees", gridDegrees, 0.0001...1, "degrees, 0.0001-1")
    staleSeconds = keys.integer(
      "cache.stale-seconds", staleSeconds, 0...604_800, "seconds, 0-604800")
    geocodingTTLSeconds = keys.integer(
      "cache.geocoding-ttl-seconds", geocodingTTLSeconds, 60...2_592_000,
      "seconds, 60-2592000")

    maximumCells = keys.integer(
      "cache.max-cells", maximumCells, 1...10_000_000, "cells, 1-10000000")
    maximumNames = keys.integer(
      "cache.max-names", maximumNames, 1...10_000_000, "names, 1-10000000")
  }

  /// `cache` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    [
      "cache:",
      "  ttl-seconds: \(ttlSeconds)",
      "  grid-degrees: \(gridDegrees)",
      "  stale-seconds: \(staleSeconds)",
      "  geocoding-ttl-seconds: \(geocodingTTLSeconds)",
      "  max-cells: \(maximumCells)",
      "  max-names: \(maximumNames)",
    ]
  }
}

extension GatewayConfiguration.Requests {
  /// Reads `requests.*` and checks it.
  init(reading keys: KeyReader) {
    self.init()
    maximumLocations = keys.integer(
      "requests.max-locations", maximumLocations, 1...16, "1-16 places per request")
    perDevicePerMinute = keys.integer(
      "requests.per-device-per-minute", perDevicePerMinute, 0...100_000,
      "requests a minute, 0 for no limit")
    queueLimit = keys.integer(
      "requests.queue-limit", queueLimit, 1...1_000_000, "requests, 1-1000000")
    workers = keys.integer("requests.workers", workers, 1...1_024, "1-1024")
    maximumDevices = keys.integer(
      "requests.max-devices", maximumDevices, 1...10_000_000, "device ids, 1-10000000")
    deadlineMilliseconds = keys.integer(
      "requests.deadline-ms", deadlineMilliseconds, 0...600_000,
      "milliseconds, 0 (wait for the fetch) to 600000")
  }

  /// `requests` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    [
      "requests:",
      "  max-locations: \(maximumLocations)",
      "  per-device-per-minute: \(perDevicePerMinute)",
      "  queue-limit: \(queueLimit)",
      "  workers: \(workers)",
      "  max-devices: \(maximumDevices)",
      "  deadline-ms: \(deadlineMilliseconds)",
    ]
  }
}

extension GatewayConfiguration.Upstream {
  /// Reads `upstream.*` and checks it; the longest backoff is at least the first.
  init(reading keys: KeyReader) {
    self.init()
    newCellsPerMinute = keys.integer(
      "upstream.new-cells-per-minute", newCellsPerMinute, 0...1_000_000,
      "cells a minute, 0 for no limit")
    newCellsPerDevicePerMinute = keys.integer(
      "upstream.new-cells-per-device-per-minute", newCellsPerDevicePerMinute,
      0...1_000_000, "cells a minute, 0 for no limit")
    reservePercent = keys.integer(
      "upstream.reserve-percent", reservePercent, 0...90, "percent, 0-90")
    breakerFailures = keys.integer(
      "upstream.breaker-failures", breakerFailures, 1...1_000, "failed calls, 1-1000")
    backoffInitialSeconds = keys.integer(
      "upstream.backoff-initial-seconds", backoffInitialSeconds, 1...3_600,
      "seconds, 1-3600")
    backoffMaximumSeconds = keys.integer(
      "upstream.backoff-max-seconds", backoffMaximumSeconds, 1...86_400,
      "seconds, 1-86400")
    if backoffMaximumSeconds < backoffInitialSeconds {
      keys.fail(
        "upstream.backoff-max-seconds", "\(backoffMaximumSeconds)",
        "at least upstream.backoff-initial-seconds (\(backoffInitialSeconds))")
    }
    rateLimitedPauseSeconds = keys.integer(
      "upstream.rate-limited-pause-seconds", rateLimitedPauseSeconds, 1...86_400,
      "seconds, 1-86400")
  }

  /// `upstream` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    [
      "upstream:",
      "  new-cells-per-minute: \(newCellsPerMinute)",
      "  new-cells-per-device-per-minute: \(newCellsPerDevicePerMinute)",
      "  reserve-percent: \(reservePercent)",
      "  breaker-failures: \(breakerFailures)",
      "  backoff-initial-seconds: \(backoffInitialSeconds)",
      "  backoff-max-seconds: \(backoffMaximumSeconds)",
      "  rate-limited-pause-seconds: \(rateLimitedPauseSeconds)",
    ]
  }
}
