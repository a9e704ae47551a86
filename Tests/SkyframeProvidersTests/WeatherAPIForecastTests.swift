import Foundation
import SkyframeCodec
import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Testing

@Suite("WeatherAPI.com forecasts")
struct WeatherAPIForecastTests {
  static let kathmandu = GeoPoint(latitude: 27.72, longitude: 85.32)

  @Test("one call per point: coordinates in q, every field mapped and converted to SI")
  func kathmandu() async throws {
    let (forecasts, requests) = try await withStubbedWeatherAPI(
      answering: routing(["/v1/forecast.json": .json(WeatherAPIFixtures.kathmandu)])
    ) { provider, server in
      (try await provider.forecasts(for: [Self.kathmandu]), server.requests)
    }
    let request = try #require(requests.first)
    #expect(requests.count == 1)
    #expect(request.method == "GET")
    #expect(request.path == "/v1/forecast.json")
    #expect(request.uri.contains("q=27.72,85.32&"))
    #expect(
      request.query == [
        "q": "27.72,85.32", "days": "3", "aqi": "no", "alerts": "no", "key": "wapi-test-key",
      ])

    let expected = Forecast(
      place: Forecast.Place(name: "", countryCode: nil, latitude: 27.72, longitude: 85.32),
      // "2025-03-10 9:05" at 03:20:37 UTC: +5:45.
      utcOffsetSeconds: 20_700,
      // An older answer: no dewpoint_c, so no dew point.
      current: Forecast.Current(
        time: 1_741_576_500, temperature: 14.2, apparentTemperature: 13.1, relativeHumidity: 62,
        pressure: 1_017, windSpeed: metresPerSecond(7.2), windGusts: metresPerSecond(13.0),
        windDirection: 135,
        weatherCode: 2, isDay: true, cloudCover: 25, precipitation: 0, uvIndex: 4,
        visibility: 8_000),
      hourly: [
        Forecast.Hour(
          time: 1_741_544_100, temperature: 9.9, weatherCode: 0, precipitationProbability: 0,
          precipitation: 0, windSpeed: metresPerSecond(5.4), windGusts: metresPerSecond(9.0)),
        Forecast.Hour(
          time: 1_741_547_700, temperature: 9.2, weatherCode: 0, precipitationProbability: 0,
          precipitation: 0, windSpeed: metresPerSecond(3.6), windGusts: metresPerSecond(7.2)),
        Forecast.Hour(
          time: 1_741_551_300, temperature: 8.6, weatherCode: 10, precipitationProbability: 0,
          precipitation: 0, windSpeed: metresPerSecond(1.8), windGusts: metresPerSecond(4.3)),
        Forecast.Hour(
          time: 1_741_680_900, temperature: 20.7, weatherCode: 63, precipitationProbability: 65,
          precipitation: 2.1, windSpeed: metresPerSecond(14.4), windGusts: metresPerSecond(30.6)),
        // Chances sent as strings ("40") by older versions of the service still count.
        Forecast.Hour(
          time: 1_741_684_500, temperature: 19.8, weatherCode: 80, precipitationProbability: 40,
          precipitation: 0.7, windSpeed: metresPerSecond(10.8), windGusts: metresPerSecond(19.4)),
      ],
      hourlyStepHours: 1,
      daily: [
        // "06:17 AM" and "06:04 PM" on 2025-03-10 at +5:45. Its hours (night) have UV 0: the
        // day's own uv (5) is the highest.
        Forecast.Day(
          date: 20_157, minimum: 8.1, maximum: 24.5, weatherCode: 0, precipitationProbability: 0,
          sunrise: 1_741_566_720, sunset: 1_741_609_140, precipitationSum: 0,
          uvIndexMaximum: 5, windSpeedMaximum: metresPerSecond(11.5)),
        // The 14:00 hour's UV (6) is above the day's own (3).
        Forecast.Day(
          date: 20_158, minimum: 9.4, maximum: 21.3, weatherCode: 95,
          precipitationProbability: 78, sunrise: 1_741_653_060, sunset: 1_741_695_600,
          precipitationSum: 4.9, uvIndexMaximum: 6, windSpeedMaximum: metresPerSecond(16.2)),
      ])
    #expect(forecasts == [expected])
  }

  @Test("alerts=yes: each alert's CAP severity (null is unknown), when it is in force, once")
  func alerts() async throws {
    var body = WeatherAPIFixtures.kathmandu.trimmingCharacters(in: .whitespacesAndNewlines)
    body.removeLast()
    body += """
      ,"alerts":{"alert":[{"headline":"Flood Watch","msgtype":null,"severity":null,"urgency":null,\
      "areas":null,"category":"Flood","certainty":null,"event":"Flood Watch","note":null,\
      "effective":"2025-03-10T02:00:00+00:00","expires":"2025-03-10T20:00:00+05:45","desc":"...",\
      "instruction":""},{"headline":"Wind","msgtype":"Alert","severity":"Severe","urgency":"Expected",\
      "areas":"Valley","category":"Met","certainty":"Likely","event":"Wind Warning","note":"",\
      "effective":"2025-03-11T00:00:00+00:00","expires":"2025-03-11T12:00:00+00:00","desc":"",\
      "instruction":""},{"headline":"Wind","msgtype":"Alert","severity":"Severe",\
      "urgency":"Expected","areas":"Hills","category":"Met","certainty":"Likely",\
      "event":"Wind Warning","note":"","effective":"2025-03-11T05:45:00+05:45",\
      "expires":"2025-03-11T12:00:00+00:00","desc":"","instruction":""}]}}
      """
    var configuration = WeatherAPIConfiguration(apiKey: "wapi-test-key", timeout: .seconds(30))
    configuration.alerts = true
    let (forecasts, requests) = try await withStubbedWeatherAPI(
      answering: routing(["/v1/forecast.json": .json(body)]), configuration: configuration
    ) { provider, server in
      (try await provider.forecasts(for: [Self.kathmandu]), server.requests)
    }
    #expect(requests.first?.query["alerts"] == "yes")
    let forecast = try #require(forecasts.first)
    // The wind warning is listed twice (for two areas, its start written at another offset):
    // it counts once.
    #expect(
      forecast.alerts == [
        Forecast.Alert(
          severity: nil, start: 1_741_572_000, end: 1_741_616_100, event: "Flood Watch"),
        Forecast.Alert(
          severity: .severe, start: 1_741_651_200, end: 1_741_694_400, event: "Wind Warning"),
      ])
    // On the 10th only the watch is in force; on the 11th only the warning.
    #expect(
      forecast.alertSummary(at: 1_741_600_000) == AlertSummary(count: 1, highest: .unknown))
    #expect(
      forecast.alertSummary(at: 1_741_660_000) == AlertSummary(count: 1, highest: .severe))
    #expect(forecast.alertSummary(at: 1_741_700_000) == AlertSummary.none)
  }

  @Test("polar night: \"No sunrise\" and \"No sunset\" with dark hours are 0 s of daylight")
  func polarNight() async throws {
    let point = GeoPoint(latitude: 69.65, longitude: 18.96)
    let forecasts = try await withStubbedWeatherAPI(
      answering: routing(["/v1/forecast.json": .json(WeatherAPIFixtures.tromso)])
    ) { provider, _ in try await provider.forecasts(for: [point]) }
    let forecast = try #require(forecasts.first)
    // "2025-12-20 0:07" at 23:07:12 UTC the day before: +1:00.
    #expect(forecast.utcOffsetSeconds == 3_600)
    #expect(
      forecast.current
        == Forecast.Current(
          time: 1_766_185_200, temperature: -7.4, apparentTemperature: -13.6,
          relativeHumidity: 88, pressure: 1_003, windSpeed: 5, windGusts: metresPerSecond(27.4),
          windDirection: 160, weatherCode: 71, isDay: false, cloudCover: 90, precipitation: 0.1,
          uvIndex: 0, visibility: 6_000, dewPoint: -9.1))
    #expect(forecast.hourly.map(\.weatherCode) == [71, 73, 86, 38, 75, 3])
    // precip_mm, not snow_cm (a depth of snow, not an amount of water).
    #expect(forecast.hourly.map(\.precipitation) == [0.2, nil, nil, nil, nil, nil])
    #expect(forecast.hourly.map(\.precipitationProbability) == [80, 91, 88, nil, nil, nil])
    #expect(
      forecast.daily == [
        Forecast.Day(
          date: 20_442, minimum: -9.3, maximum: -5.9, weatherCode: 73,
          precipitationProbability: 91, daylightSeconds: 0),
        // Hours that disagree about the light leave the day's daylight unknown.
        Forecast.Day(
          date: 20_443, minimum: -8.8, maximum: -4.0, weatherCode: 38,
          precipitationProbability: 35),
      ])
    let frame = forecast.frame(fetchedAt: 1_766_185_632, service: .weatherAPI)
    #expect(frame.sun == .polarNight)
    #expect(frame.sunrise == nil)
    #expect(frame.dailyStart == 20_442)
  }

  @Test("midnight sun: \"No sunrise\" and \"No sunset\" with light hours are a whole day")
  func polarDay() async throws {
    let point = GeoPoint(latitude: 69.65, longitude: 18.96)
    let forecasts = try await withStubbedWeatherAPI(
      answering: routing(["/v1/forecast.json": .json(WeatherAPIFixtures.polarDay)])
    ) { provider, _ in try await provider.forecasts(for: [point]) }
    let forecast = try #require(forecasts.first)
    #expect(forecast.utcOffsetSeconds == 7_200)
    #expect(forecast.current == Forecast.Current())
    #expect(forecast.daily == [Forecast.Day(date: 20_261, daylightSeconds: 86_400)])
    #expect(forecast.frame(fetchedAt: 1_750_543_300, service: .weatherAPI).sun == .polarDay)
  }

  @Test("western hemisphere at -3:30, keys missing, nulls, unknown codes, a day by date_epoch")
  func sparse() async throws {
    let point = GeoPoint(latitude: 47.56, longitude: -52.71)
    let forecasts = try await withStubbedWeatherAPI(
      answering: routing(["/v1/forecast.json": .json(WeatherAPIFixtures.stJohnsSparse)])
    ) { provider, _ in try await provider.forecasts(for: [point]) }
    let forecast = try #require(forecasts.first)
    // "2025-01-20 9:41" at 13:11:22 UTC: -3:30.
    #expect(forecast.utcOffsetSeconds == -12_600)
    #expect(
      forecast.current
        == Forecast.Current(
          time: 1_737_378_000, temperature: -3.0, apparentTemperature: -9.8,
          relativeHumidity: 93, pressure: 1_009, windSpeed: 10, windDirection: 250, isDay: true,
          cloudCover: 100, precipitation: 0.3))
    #expect(
      forecast.hourly == [
        Forecast.Hour(
          time: 1_737_376_200, temperature: -3.4, weatherCode: 71, precipitationProbability: 58),
        Forecast.Hour(time: 1_737_383_400),
      ])
    #expect(
      forecast.daily == [
        Forecast.Day(date: 20_108, minimum: -6.2, maximum: -1.1),
        // "08:15 AM" and "04:41 PM" on 2025-01-21 at -3:30.
        Forecast.Day(date: 20_109, sunrise: 1_737_459_900, sunset: 1_737_490_260),
      ])
  }

  @Test("the large frame: hourly amounts, winds and gusts, daily sums and maxima, dew point")
  func largeFrame() async throws {
    let now = 1_741_576_837  // 09:05 at +5:45 on 2025-03-10
    let forecasts = try await withStubbedWeatherAPI(
      answering: routing([
        "/v1/forecast.json": .json(WeatherAPIFixtures.full(now: now, offset: 20_700, days: 8))
      ])
    ) { provider, _ in try await provider.forecasts(for: [Self.kathmandu]) }
    let forecast = try #require(forecasts.first)
    #expect(forecast.current.dewPoint == 6.5)
    #expect(forecast.hourly[6].precipitation == 1.2)
    #expect(forecast.hourly[9].windSpeed == metresPerSecond(18.0))
    #expect(forecast.hourly[9].windGusts == metresPerSecond(21.6))
    #expect(forecast.daily[3].precipitationSum == 3.5)
    #expect(forecast.daily[3].uvIndexMaximum == 6)
    #expect(forecast.daily[3].windSpeedMaximum == metresPerSecond(72.0))

    let standard = try forecast.frame(fetchedAt: Int64(now), service: .weatherAPI).encoded()
    let large = try forecast.largeFrame(standard: standard, fetchedAt: Int64(now))
    try large.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      #expect(view.value(LargeLayout.dewPoint) == 65)
      // Slot 0 is 09:00 local: wind 5 m/s, gusts 6 m/s (0.5 m/s units), no rain whatever the
      // snow depth; 06:00 the next day is slot 21.
      #expect(view.value(LargeLayout.hourlyWindSpeed, 0) == 10)
      #expect(view.value(LargeLayout.hourlyWindGust, 0) == 12)
      #expect(view.value(LargeLayout.hourlyPrecipitationAmount, 0) == 0)
      #expect(view.value(LargeLayout.hourlyPrecipitationAmount, 21) == 12)
      #expect(view.value(LargeLayout.hourlyWindSpeed, 47) != nil)
      for day in 0..<8 {
        #expect(view.value(LargeLayout.dailyPrecipitationSum, day) == Int64(day * 10 + 5))
        #expect(view.value(LargeLayout.dailyUVMaximum, day) == Int64(day * 10 + 30))
        #expect(view.value(LargeLayout.dailyWindMaximum, day) == Int64(day * 10 + 10))
      }
    }
  }

  @Test("km/h and km are converted exactly: 11.7 km/h is 3.25 m/s, a half step that rounds up")
  func exactConversions() async throws {
    let now = 1_741_576_837  // 09:05 at +5:45 on 2025-03-10
    let body = WeatherAPIFixtures.full(now: now, offset: 20_700)
      .replacingOccurrences(
        of: #""wind_kph":10.8,"dewpoint_c""#,
        with: #""wind_kph":11.7,"gust_kph":4.14,"vis_km":1.005,"dewpoint_c""#
      )
      .replacingOccurrences(of: #""wind_kph":18.0,"#, with: #""wind_kph":11.7,"#)
    let forecasts = try await withStubbedWeatherAPI(
      answering: routing(["/v1/forecast.json": .json(body)])
    ) { provider, _ in try await provider.forecasts(for: [Self.kathmandu]) }
    let forecast = try #require(forecasts.first)
    // In binary 11.7 / 3.6 is 3.2499999999999996 and 1.005 × 1000 is 1004.9999999999999.
    #expect(forecast.current.windSpeed == 3.25)
    #expect(forecast.current.windGusts == 1.15)
    #expect(forecast.current.visibility == 1_005)
    let frame = forecast.frame(fetchedAt: Int64(now), service: .weatherAPI)
    #expect(frame.current.windSpeed == 33)  // 3.3 m/s
    #expect(frame.current.windGust == 12)  // 1.15 → 1.2 m/s
    #expect(frame.current.visibility == 101)  // 1010 m
    // Hours 4, 9, 14 and 19 had 18.0 km/h, now 11.7: 3.5 m/s in 0.5 m/s steps (slot 0 is 09:00).
    let large = try forecast.largeFrame(standard: try frame.encoded(), fetchedAt: Int64(now))
    try large.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      for slot in [0, 5, 10, 19] {
        #expect(view.value(LargeLayout.hourlyWindSpeed, slot) == 7, "slot \(slot)")
      }
    }
  }

  @Test("days are clamped to 1…14 and a language other than English is sent as lang")
  func daysAndLanguage() async throws {
    for (days, language, expectedDays, expectedLanguage) in [
      (0, "en", "1", nil), (7, "de", "7", "de"), (30, "EN", "14", nil),
    ] {
      let configuration = WeatherAPIConfiguration(apiKey: "k", days: days, language: language)
      let requests = try await withStubbedWeatherAPI(
        answering: routing(["/v1/forecast.json": .json(WeatherAPIFixtures.kathmandu)]),
        configuration: configuration
      ) { provider, server in
        _ = try await provider.forecasts(for: [Self.kathmandu])
        return server.requests
      }
      #expect(requests.first?.query["days"] == expectedDays)
      #expect(requests.first?.query["lang"] == expectedLanguage)
    }
  }

  @Test("several points: one call each, in order; the batch size is 1")
  func severalPoints() async throws {
    let points = [Self.kathmandu, GeoPoint(latitude: 69.65, longitude: 18.96)]
    let byQuery: @Sendable (StubHTTPRequest) async -> StubHTTPResponse = { request in
      .json(
        request.query["q"] == "27.72,85.32"
          ? WeatherAPIFixtures.kathmandu : WeatherAPIFixtures.tromso)
    }
    let (forecasts, requests, batchSize, service) = try await withStubbedWeatherAPI(
      answering: byQuery
    ) { provider, server in
      (
        try await provider.forecasts(for: points), server.requests, provider.maximumBatchSize,
        provider.service
      )
    }
    #expect(batchSize == 1)
    #expect(service == .weatherAPI)
    #expect(requests.map { $0.query["q"] } == ["27.72,85.32", "69.65,18.96"])
    #expect(forecasts.map(\.utcOffsetSeconds) == [20_700, 3_600])
  }
}

/// `kilometresPerHour` (one decimal) in m/s: the `Double` nearest the exact ratio (× 5 / 18).
func metresPerSecond(_ kilometresPerHour: Double) -> Double {
  Double(Int((kilometresPerHour * 10).rounded()) * 5) / 180
}
