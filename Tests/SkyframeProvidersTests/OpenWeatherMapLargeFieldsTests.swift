import SkyframeCodec
import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Testing

/// The fields only the `large` frame carries (`schemas/frame-profiles.md` §2, §2.1), from One
/// Call 3.0 and from the 2.5 weather and 3-hour forecast.
@Suite("OpenWeatherMap: the large frame's fields")
struct OpenWeatherMapLargeFieldsTests {
  static let bergen = GeoPoint(latitude: 60.3913, longitude: 5.3221)
  static let vancouver = GeoPoint(latitude: 49.2827, longitude: -123.1207)
  static let bergenNow: Int64 = 1_764_924_000
  static let vancouverNow: Int64 = 1_763_676_600

  private func bergenForecast() async throws -> Forecast {
    let forecasts = try await withStubbedOpenWeatherMap(
      answering: routing(["/data/3.0/onecall": .json(OpenWeatherMapFixtures.bergenOneCall)]),
      configuration: OpenWeatherMapConfiguration(apiKey: "k1", useOneCall: true)
    ) { provider, _ in try await provider.forecasts(for: [Self.bergen]) }
    return try #require(forecasts.first)
  }

  private func vancouverForecast(amountOfStep4: Bool = true) async throws -> Forecast {
    let forecasts = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": .json(OpenWeatherMapFixtures.vancouverWeather),
        "/data/2.5/forecast": .json(
          OpenWeatherMapFixtures.vancouverForecast(amountOfStep4: amountOfStep4)),
      ])
    ) { provider, _ in try await provider.forecasts(for: [Self.vancouver]) }
    return try #require(forecasts.first)
  }

  @Test("One Call: dew point, hourly 1h amounts and winds, daily totals, UV and wind maxima")
  func oneCall() async throws {
    let forecast = try await bergenForecast()
    #expect(forecast.current.dewPoint == 2.9)
    // Rain, then rain 0.5 with snow 0.25, then 2.5; rain without a `rain` block is unknown;
    // overcast without one is dry.
    #expect(forecast.hourly.map(\.precipitation) == [0.75, 0.75, 2.5, nil, 0])
    #expect(forecast.hourly.map(\.windSpeed) == [8.0, 8.5, 9.25, 6.0, 5.5])
    #expect(forecast.hourly.map(\.windGusts) == [14.5, 15.5, nil, 10.0, 9.0])
    #expect(forecast.daily.map(\.date) == [20_427, 20_428, 20_429])
    // Bare numbers: 6.5 rain and 0.5 snow; a dry day without the keys is 0, a day of rain
    // without them unknown.
    #expect(forecast.daily.map(\.precipitationSum) == [7.0, 0, nil])
    #expect(forecast.daily.map(\.uvIndexMaximum) == [0.3, 0.4, nil])
    #expect(forecast.daily.map(\.windSpeedMaximum) == [9.5, 4.5, nil])
  }

  @Test("2.5: 3h amounts per step, day sums and wind maxima by local date, no dew point or UV")
  func fiveDayForecast() async throws {
    let forecast = try await vancouverForecast()
    #expect(forecast.current.dewPoint == nil)
    #expect(forecast.hourlyStepHours == 3)
    // Each step keeps its 3 hours' amount; rain and snow of one step add up.
    #expect(forecast.hourly.map(\.precipitation) == [0.5, 1.25, 0, 1.0, 2.5, 0.5, 0, 0])
    #expect(forecast.hourly.map(\.windSpeed) == [4.0, 5.5, 3.0, 7.25, 8.5, 6.0, 5.0, 4.5])
    #expect(forecast.hourly.map(\.windGusts) == [7.5, 9.5, 5.0, 12.0, 14.0, nil, 8.0, 6.5])
    // 00:00–06:00 UTC on the 21st are 16:00–22:00 on the local 20th.
    #expect(forecast.daily.map(\.date) == [20_412, 20_413])
    // The 20th: the steps still to come (0.5 + 1.25 + 0); the 21st up to the last step.
    #expect(forecast.daily.map(\.precipitationSum) == [1.75, 4.0])
    // The 20th's steps blow at most 5.5 m/s; the current 6.5 m/s counts as part of today.
    #expect(forecast.daily.map(\.windSpeedMaximum) == [6.5, 8.5])
    #expect(forecast.daily.map(\.uvIndexMaximum) == [nil, nil])
    // The other day values are as before.
    #expect(forecast.daily.map(\.minimum) == [5.9, 0.9])
    #expect(forecast.daily.map(\.maximum) == [7.5, 4.0])
    #expect(forecast.daily.map(\.weatherCode) == [63, 73])
  }

  @Test("2.5: a step of snow without its amount leaves its day's sum unknown, not short")
  func unknownStepAmount() async throws {
    let forecast = try await vancouverForecast(amountOfStep4: false)
    #expect(forecast.hourly[4].precipitation == nil)
    #expect(forecast.hourly[4].weatherCode == 73)
    #expect(forecast.daily.map(\.precipitationSum) == [1.75, nil])
    #expect(forecast.daily.map(\.windSpeedMaximum) == [6.5, 8.5])
  }

  @Test("the large frame built from One Call carries the dew point, amounts, winds and maxima")
  func largeFrameFromOneCall() async throws {
    let forecast = try await bergenForecast()
    let now = Self.bergenNow
    let standard = try forecast.frame(fetchedAt: now, service: .openWeatherMap).encoded()
    let large = try forecast.largeFrame(standard: standard, fetchedAt: now)
    try large.withUnsafeBytes { bytes in
      typealias L = LargeLayout
      let view = try ProfileView(checking: bytes)
      #expect(view.value(L.dewPoint) == 29)
      #expect(view.value(L.hourlyStep) == 1)
      #expect(view.value(L.hourlyStart) == 1_764_921_600)
      // 0.1 mm; 0.75 rounds half away from zero.
      #expect(
        (0..<6).map { view.value(L.hourlyPrecipitationAmount, $0) } == [8, 8, 25, nil, 0, nil])
      // 0.5 m/s.
      #expect((0..<5).map { view.value(L.hourlyWindSpeed, $0) } == [16, 17, 19, 12, 11])
      #expect((0..<5).map { view.value(L.hourlyWindGust, $0) } == [29, 31, nil, 20, 18])
      #expect((0..<4).map { view.value(L.dailyPrecipitationSum, $0) } == [70, 0, nil, nil])
      #expect((0..<4).map { view.value(L.dailyUVMaximum, $0) } == [3, 4, nil, nil])
      #expect((0..<4).map { view.value(L.dailyWindMaximum, $0) } == [19, 9, nil, nil])
    }
  }

  @Test("the large frame built from the 2.5 answers: 3-hour amounts, day sums, no dew point")
  func largeFrameFromFiveDayForecast() async throws {
    let forecast = try await vancouverForecast()
    let now = Self.vancouverNow
    let standard = try forecast.frame(fetchedAt: now, service: .openWeatherMap).encoded()
    let large = try forecast.largeFrame(standard: standard, fetchedAt: now)
    try large.withUnsafeBytes { bytes in
      typealias L = LargeLayout
      let view = try ProfileView(checking: bytes)
      #expect(view.value(L.dewPoint) == nil)
      #expect(view.value(L.hourlyStep) == 3)
      #expect(view.value(L.hourlyStart) == 1_763_683_200)
      #expect(
        (0..<9).map { view.value(L.hourlyPrecipitationAmount, $0) }
          == [5, 13, 0, 10, 25, 5, 0, 0, nil])
      #expect((0..<8).map { view.value(L.hourlyWindSpeed, $0) } == [8, 11, 6, 15, 17, 12, 10, 9])
      #expect(
        (0..<8).map { view.value(L.hourlyWindGust, $0) } == [15, 19, 10, 24, 28, nil, 16, 13])
      #expect((0..<3).map { view.value(L.dailyPrecipitationSum, $0) } == [18, 40, nil])
      #expect((0..<3).map { view.value(L.dailyWindMaximum, $0) } == [13, 17, nil])
      #expect((0..<3).map { view.value(L.dailyUVMaximum, $0) } == [nil, nil, nil])
    }
  }

  @Test("sums and rates are exact: 2.34 + 0.01 mm is 2.35, 1.4 mm/h for 15 minutes is 0.35 mm")
  func exactSumsAndRates() async throws {
    let now = 1_764_923_400  // a quarter hour
    let minutes = (0..<60).map { #"{"dt":\#(now + $0 * 60),"precipitation":1.4}"# }
    let body = """
      {"lat":60.39,"lon":5.32,"timezone":"Europe/Oslo","timezone_offset":3600,
      "current":{"dt":\(now),"temp":4.5,"weather":[{"id":500,"icon":"10d"}]},
      "minutely":[\(minutes.joined(separator: ","))],
      "hourly":[{"dt":\(now - 900),"temp":4.5,"weather":[{"id":615,"icon":"13d"}],"pop":0.155,
      "rain":{"1h":2.34},"snow":{"1h":0.01}}],"daily":[]}
      """
    let forecasts = try await withStubbedOpenWeatherMap(
      answering: routing(["/data/3.0/onecall": .json(body)]),
      configuration: OpenWeatherMapConfiguration(apiKey: "k1", useOneCall: true)
    ) { provider, _ in try await provider.forecasts(for: [Self.bergen]) }
    let forecast = try #require(forecasts.first)
    // In binary 2.34 + 0.01 is 2.3499999999999996.
    #expect(forecast.hourly.first?.precipitation == 2.35)
    #expect(forecast.hourly.first?.precipitationProbability == 15.5)
    let frame = forecast.frame(fetchedAt: Int64(now), service: .openWeatherMap)
    #expect(frame.hourly[0].precipitationProbability == 16)
    let large = try forecast.largeFrame(standard: try frame.encoded(), fetchedAt: Int64(now))
    try large.withUnsafeBytes { bytes in
      typealias L = LargeLayout
      let view = try ProfileView(checking: bytes)
      #expect(view.value(L.hourlyPrecipitationAmount, 0) == 24)
      // Fifteen minutes of 1.4 mm/h: 0.35 mm, 4 in 0.1 mm (summed in binary: 0.3499999999999999).
      #expect((0..<4).map { view.value(L.minutelyPrecipitation, $0) } == [4, 4, 4, 4])
    }
  }
}
