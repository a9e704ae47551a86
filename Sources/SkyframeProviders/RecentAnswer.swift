import SkyframeWeather

extension Forecast {
  /// How long before the call a service's data may end and still be an answer: 3 hours, the
  /// longest the gateway composes frames from one call (`runs.maximum-age-seconds` by default).
  /// See frame-v1.md §5.1.
  public static let maximumDataAgeSeconds: Int64 = 10_800

  /// Throws `.outdated` when the answer is too old to describe the present at `time` (the call's
  /// Unix time): its current conditions were observed, or its last hourly step ended, more than
  /// `maximumDataAgeSeconds` before. A service that keeps serving data it no longer updates (a
  /// stuck mirror, a cache in front of it) would otherwise be answered `ok` with `observed_at`
  /// hours or years back. An answer with neither is not judged.
  public func checkRecent(at time: Int64) throws(ProviderError) {
    let oldest = time - Self.maximumDataAgeSeconds
    if let observed = current.time, observed < oldest {
      throw .outdated(
        "current conditions observed at \(observed), \(Self.hours(time - observed)) before the call"
      )
    }
    if let last = hourly.last {
      let end = last.time + Int64(max(hourlyStepHours, 1)) * 3_600
      if end < oldest {
        throw .outdated(
          "the last hourly step ends at \(end), \(Self.hours(time - end)) before the call")
      }
    }
  }

  private static func hours(_ seconds: Int64) -> String {
    "\(seconds / 3_600) h \(seconds % 3_600 / 60) min"
  }
}
