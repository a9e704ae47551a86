import SkyframeProviders
import SkyframeWeather
import Testing

/// What is too old to be an answer (frame-v1.md §5.1): the same rule for every service.
@Suite struct RecentAnswerTests {
  static let now: Int64 = 1_770_000_000
  static let limit = Forecast.maximumDataAgeSeconds

  func forecast(observed: Int64?, hours: [Int64], step: Int = 1) -> Forecast {
    Forecast(
      place: .init(name: "", countryCode: nil, latitude: 59.91, longitude: 10.75),
      utcOffsetSeconds: 3_600, current: .init(time: observed, temperature: 1),
      hourly: hours.map { Forecast.Hour(time: $0, temperature: 1) }, hourlyStepHours: step,
      daily: [])
  }

  @Test func currentConditionsOlderThanTheLimitAreOutdated() {
    let now = Self.now
    #expect(throws: Never.self) {
      try forecast(observed: now - Self.limit, hours: [now]).checkRecent(at: now)
    }
    #expect(
      throws: ProviderError.outdated(
        "current conditions observed at \(now - Self.limit - 60), 3 h 1 min before the call")
    ) {
      try forecast(observed: now - Self.limit - 60, hours: [now]).checkRecent(at: now)
    }
  }

  @Test func hourlyStepsThatEndedLongerAgoThanTheLimitAreOutdated() {
    let now = Self.now
    // Three-hour steps: the last one, started 6 h ago, ended 3 h ago.
    #expect(throws: Never.self) {
      try forecast(observed: nil, hours: [now - 6 * 3_600], step: 3).checkRecent(at: now)
    }
    #expect(throws: ProviderError.self) {
      try forecast(observed: nil, hours: [now - 4 * 3_600 - 1]).checkRecent(at: now)
    }
    // With neither there is nothing to judge.
    #expect(throws: Never.self) { try forecast(observed: nil, hours: []).checkRecent(at: now) }
  }
}
