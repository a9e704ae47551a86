// How much the gateway takes on: `watches`, `cache`, `requests` and `upstream`, each a list of
// keys that reads, checks and describes it (`GatewayConfiguration+ConfigReader.swift` lists the
// sections in order).

extension GatewayConfiguration.Watches: KeyedSection {
  static let section = "watches"
  static var keys: [SectionKey<Self>] {
    [
      .integer("default-seconds", \.defaultSeconds, 60...86_400, "seconds, 60-86400"),
      .integer("minimum-seconds", \.minimumSeconds, 10...86_400, "seconds, 10-86400"),
      .integer("maximum", \.maximumWatches, 0...1_000_000, "0-1000000 watches"),
      .integer("concurrency", \.concurrency, 1...1_024, "1-1024 pushes at once"),
    ]
  }
}

extension GatewayConfiguration.Cache: KeyedSection {
  static let section = "cache"
  static var keys: [SectionKey<Self>] {
    [
      .integer("ttl-seconds", \.ttlSeconds, 1...86_400, "seconds, 1-86400"),
      .number("grid-degrees", \.gridDegrees, 0.0001...1, "degrees, 0.0001-1"),
      .integer("stale-seconds", \.staleSeconds, 0...604_800, "seconds, 0-604800"),
      .integer(
        "geocoding-ttl-seconds", \.geocodingTTLSeconds, 60...2_592_000, "seconds, 60-2592000"),
      .integer("max-cells", \.maximumCells, 1...10_000_000, "cells, 1-10000000"),
      .integer("max-names", \.maximumNames, 1...10_000_000, "names, 1-10000000"),
    ]
  }
}

extension GatewayConfiguration.Runs: KeyedSection {
  static let section = "runs"
  static var keys: [SectionKey<Self>] {
    [
      .names("models", \.models),
      .url("url", \.url),
      .integer("poll-seconds", \.pollSeconds, 10...3_600, "seconds, 10-3600"),
      .integer("margin-seconds", \.marginSeconds, 0...3_600, "seconds, 0-3600"),
      .integer("maximum-age-seconds", \.maximumAgeSeconds, 600...86_400, "seconds, 600-86400"),
    ]
  }
}

extension GatewayConfiguration.Requests: KeyedSection {
  static let section = "requests"
  static var keys: [SectionKey<Self>] {
    [
      .integer("max-locations", \.maximumLocations, 1...16, "1-16 places per request"),
      .integer(
        "per-device-per-minute", \.perDevicePerMinute, 0...100_000,
        "requests a minute, 0 for no limit"),
      .integer("queue-limit", \.queueLimit, 1...1_000_000, "requests, 1-1000000"),
      .integer("workers", \.workers, 1...1_024, "1-1024"),
      .integer("max-devices", \.maximumDevices, 1...10_000_000, "device ids, 1-10000000"),
      .integer(
        "deadline-ms", \.deadlineMilliseconds, 0...600_000,
        "milliseconds, 0 (wait for the fetch) to 600000"),
      .integer(
        "replay-window-seconds", \.replayWindowSeconds, 0...86_400,
        "seconds, 0 (answer every copy) to 86400"),
    ]
  }
}

extension GatewayConfiguration.Upstream: KeyedSection {
  static let section = "upstream"
  static var keys: [SectionKey<Self>] {
    [
      .integer(
        "new-cells-per-minute", \.newCellsPerMinute, 0...1_000_000,
        "cells a minute, 0 for no limit"),
      .integer(
        "new-cells-per-device-per-minute", \.newCellsPerDevicePerMinute, 0...1_000_000,
        "cells a minute, 0 for no limit"),
      .integer("reserve-percent", \.reservePercent, 0...90, "percent, 0-90"),
      .integer("breaker-failures", \.breakerFailures, 1...1_000, "failed calls, 1-1000"),
      .integer("backoff-initial-seconds", \.backoffInitialSeconds, 1...3_600, "seconds, 1-3600"),
      .integer(
        "backoff-max-seconds", \.backoffMaximumSeconds, 1...86_400, "seconds, 1-86400",
        check: checkBackoff),
      .integer(
        "rate-limited-pause-seconds", \.rateLimitedPauseSeconds, 1...86_400, "seconds, 1-86400"),
    ]
  }

  /// The longest backoff must be at least the first: checked as soon as both are read.
  private static func checkBackoff(_ keys: KeyReader, _ upstream: Self) {
    if upstream.backoffMaximumSeconds < upstream.backoffInitialSeconds {
      keys.fail(
        "upstream.backoff-max-seconds", "\(upstream.backoffMaximumSeconds)",
        "at least upstream.backoff-initial-seconds (\(upstream.backoffInitialSeconds))")
    }
  }
}
