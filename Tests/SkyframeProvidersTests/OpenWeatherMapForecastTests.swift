import Foundation
import SkyframeCodec
import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Testing

@Suite("OpenWeatherMap forecasts")
struct OpenWeatherMapForecastTests {
  static let pune = GeoPoint(latitude: 18.5204, longitude: 73.8567)

  @Test("current weather and 3-hour forecast: two metric calls, every field mapped")
  func pune() async throws {
    let (forecasts, requests) = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": .json(OpenWeatherMapFixtures.puneWeather),
        "/data/2.5/forecast": .json(OpenWeatherMapFixtures.puneForecast),
      ])
    ) { provider, server in
      (try await provider.forecasts(for: [Self.pune]), server.requests)
    }

    #expect(requests.count == 2)
    #expect(Set(requests.map(\.path)) == ["/data/2.5/weather", "/data/2.5/forecast"])
    for request in requests {
      #expect(request.method == "GET")
      #expect(
        request.query == [
          "lat": "18.5204", "lon": "73.8567", "units": "metric", "appid": "owm-test-key",
        ])
    }

    let expected = Forecast(
      place: Forecast.Place(name: "", countryCode: nil, latitude: 18.5204, longitude: 73.8567),
      utcOffsetSeconds: 19_800,
      current: Forecast.Current(
        time: 1_741_596_600, temperature: 32.8, apparentTemperature: 31.9, relativeHumidity: 28,
        pressure: 1_011, windSpeed: 3.6, windGusts: 5.1, windDirection: 290, weatherCode: 5,
        isDay: true, cloudCover: 20, precipitation: 0, uvIndex: nil, visibility: 6_000),
      // No `rain` blocks: dry steps are 0 mm, the rain and the thunderstorm unknown amounts.
      hourly: [
        Forecast.Hour(
          time: 1_741_597_200, temperature: 33.1, weatherCode: 1, precipitationProbability: 0,
          precipitation: 0, windSpeed: 2.5, windGusts: 4.0),
        Forecast.Hour(
          time: 1_741_608_000, temperature: 31.2, weatherCode: 2, precipitationProbability: 0,
          precipitation: 0, windSpeed: 2.5, windGusts: 4.0),
        Forecast.Hour(
          time: 1_741_618_800, temperature: 27.5, weatherCode: 61, precipitationProbability: 20,
          precipitation: nil, windSpeed: 2.5, windGusts: 4.0),
        Forecast.Hour(
          time: 1_741_629_600, temperature: 24.9, weatherCode: 3, precipitationProbability: 5,
          precipitation: 0, windSpeed: 2.5, windGusts: 4.0),
        Forecast.Hour(
          time: 1_741_640_400, temperature: 22.3, weatherCode: 0, precipitationProbability: 0,
          precipitation: 0, windSpeed: 2.5, windGusts: 4.0),
        Forecast.Hour(
          time: 1_741_651_200, temperature: 20.8, weatherCode: 0, precipitationProbability: 0,
          precipitation: 0, windSpeed: 2.5, windGusts: 4.0),
        Forecast.Hour(
          time: 1_741_662_000, temperature: 24.6, weatherCode: 5, precipitationProbability: 0,
          precipitation: 0, windSpeed: 2.5, windGusts: 4.0),
        Forecast.Hour(
          time: 1_741_672_800, temperature: 31.0, weatherCode: 1, precipitationProbability: 10,
          precipitation: 0, windSpeed: 2.5, windGusts: 4.0),
        Forecast.Hour(
          time: 1_741_683_600, temperature: 34.2, weatherCode: 95, precipitationProbability: 57,
          precipitation: nil, windSpeed: 2.5, windGusts: 4.0),
        Forecast.Hour(
          time: 1_741_694_400, temperature: 32.0, weatherCode: 63, precipitationProbability: 80,
          precipitation: nil, windSpeed: 2.5, windGusts: 4.0),
      ],
      hourlyStepHours: 3,
      daily: [
        // 2025-03-10: 14:30–23:30 local and the haze now; the rain at 20:30 is the worst.
        // The rain's unknown amount leaves the day's sum unknown; the wind now (3.6 m/s) is
        // the day's highest.
        Forecast.Day(
          date: 20_157, minimum: 24.1, maximum: 33.6, weatherCode: 61,
          precipitationProbability: 20, sunrise: 1_741_569_720, sunset: 1_741_612_260,
          precipitationSum: nil, windSpeedMaximum: 3.6),
        // 2025-03-11 from 02:30 local, which is still the 10th in UTC.
        Forecast.Day(
          date: 20_158, minimum: 20.8, maximum: 34.2, weatherCode: 95,
          precipitationProbability: 80, precipitationSum: nil, windSpeedMaximum: 2.5),
      ])
    #expect(forecasts == [expected])
  }

  @Test("an entry after 18:30 UTC belongs to the next local day at UTC+5:30")
  func localDateDiffersFromUTC() async throws {
    let forecasts = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": .json(OpenWeatherMapFixtures.puneWeather),
        "/data/2.5/forecast": .json(OpenWeatherMapFixtures.puneForecast),
      ])
    ) { provider, _ in try await provider.forecasts(for: [Self.pune]) }
    let forecast = try #require(forecasts.first)
    // The entry of 2025-03-10 21:00 UTC (low 22.0 °C) is 02:30 on the 11th in Pune: grouped by
    // UTC date the 10th's low would be 22.0; by local date it stays 24.1.
    let tenth = try #require(forecast.daily.first { $0.date == 20_157 })
    #expect(tenth.minimum == 24.1)
    #expect(forecast.hourly[4].time == 1_741_640_400)
    #expect(forecast.daily.map(\.date) == [20_157, 20_158])
  }

  @Test("southern and western hemisphere below zero: today from the current weather alone")
  func ushuaia() async throws {
    let point = GeoPoint(latitude: -54.8019, longitude: -68.303)
    let forecasts = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": .json(OpenWeatherMapFixtures.ushuaiaWeather),
        "/data/2.5/forecast": .json(OpenWeatherMapFixtures.ushuaiaForecast),
      ])
    ) { provider, _ in try await provider.forecasts(for: [point]) }
    let forecast = try #require(forecasts.first)
    #expect(forecast.utcOffsetSeconds == -10_800)
    #expect(forecast.hourlyStepHours == 3)
    #expect(
      forecast.current
        == Forecast.Current(
          time: 1_752_630_000, temperature: -2.7, apparentTemperature: -8.1,
          relativeHumidity: 86, pressure: 998, windSpeed: 7.2, windGusts: nil,
          windDirection: 250, weatherCode: 71, isDay: false, cloudCover: 100, precipitation: 0.4,
          uvIndex: nil, visibility: 4_500))
    #expect(
      forecast.hourly.map(\.weatherCode) == [71, 73, 71, 3, 3, 85])
    #expect(forecast.hourly.map(\.precipitationProbability) == [30, 60, 45, 10, 0, 25])
    // Snow without `snow` blocks: unknown amounts; cloud without them: dry.
    #expect(forecast.hourly.map(\.precipitation) == [nil, nil, nil, 0, 0, nil])
    #expect(forecast.hourly.map(\.windGusts) == [4.0, 4.0, 4.0, 4.0, 4.0, 4.0])
    #expect(
      forecast.daily == [
        // 2025-07-15, 22:40 local: no forecast entry is left, the observation is the day: its
        // wind is the day's highest; no step, no precipitation sum (its last hour is not one).
        Forecast.Day(
          date: 20_284, minimum: -2.7, maximum: -2.7, weatherCode: 71, sunrise: 1_752_584_100,
          sunset: 1_752_610_500, precipitationSum: nil, windSpeedMaximum: 7.2),
        Forecast.Day(
          date: 20_285, minimum: -5.6, maximum: -0.4, weatherCode: 85,
          precipitationProbability: 60, precipitationSum: nil, windSpeedMaximum: 2.5),
      ])
  }

  @Test("missing blocks, nulls, sunrise 0, an unknown id and an entry without dt")
  func sparse() async throws {
    let point = GeoPoint(latitude: 78.22, longitude: 15.63)
    let forecasts = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": .json(OpenWeatherMapFixtures.sparseWeather),
        "/data/2.5/forecast": .json(OpenWeatherMapFixtures.sparseForecast),
      ])
    ) { provider, _ in try await provider.forecasts(for: [point]) }
    let forecast = try #require(forecasts.first)
    // Without `timezone` in the weather answer, the forecast's `city.timezone` is used.
    #expect(forecast.utcOffsetSeconds == 3_600)
    // Heavy rain without a `rain` block: the amount is unknown, not 0; no d/n and no sunrise:
    // day or night unknown.
    #expect(forecast.current == Forecast.Current(time: 1_736_060_000, weatherCode: 65))
    #expect(
      forecast.hourly == [
        Forecast.Hour(time: 1_736_067_600, temperature: -11.5),
        Forecast.Hour(time: 1_736_078_400),
      ])
    #expect(
      forecast.daily == [
        Forecast.Day(date: 20_093, minimum: -11.5, maximum: -11.5, weatherCode: 65)
      ])
  }

  @Test("One Call without timezone_offset (older answers): the offset of the IANA timezone")
  func oneCallWithoutOffset() async throws {
    let point = GeoPoint(latitude: 47.5615, longitude: -52.7126)
    let winter = OpenWeatherMapFixtures.stJohnsOneCall.replacingOccurrences(
      of: #""timezone_offset":-12600,"#, with: "")
    // The same answer in July, when St. John's keeps daylight saving time (UTC-2:30).
    let summer = winter.replacingOccurrences(of: #""dt":1737381900"#, with: #""dt":1752919500"#)
    for (body, offset) in [(winter, -12_600), (summer, -9_000)] {
      let forecasts = try await withStubbedOpenWeatherMap(
        answering: routing(["/data/3.0/onecall": .json(body)]),
        configuration: OpenWeatherMapConfiguration(apiKey: "k1", useOneCall: true)
      ) { provider, _ in try await provider.forecasts(for: [point]) }
      #expect(forecasts.first?.utcOffsetSeconds == offset)
    }
  }

  @Test("One Call: one call, hourly steps, days by local date, sunrise 0 is none")
  func oneCall() async throws {
    let point = GeoPoint(latitude: 47.5615, longitude: -52.7126)
    let (forecasts, requests) = try await withStubbedOpenWeatherMap(
      answering: routing(["/data/3.0/onecall": .json(OpenWeatherMapFixtures.stJohnsOneCall)]),
      configuration: OpenWeatherMapConfiguration(apiKey: "k1", useOneCall: true)
    ) { provider, server in
      (try await provider.forecasts(for: [point]), server.requests)
    }
    #expect(requests.map(\.path) == ["/data/3.0/onecall"])
    #expect(
      requests.first?.query == [
        "lat": "47.5615", "lon": "-52.7126", "units": "metric", "exclude": "alerts",
        "appid": "k1",
      ])
    let expected = Forecast(
      place: Forecast.Place(name: "", countryCode: nil, latitude: 47.5615, longitude: -52.7126),
      utcOffsetSeconds: -12_600,
      current: Forecast.Current(
        time: 1_737_381_900, temperature: -6.3, apparentTemperature: -12.9,
        relativeHumidity: 74, pressure: 1_021, windSpeed: 6.7, windGusts: 11.2,
        windDirection: 300, weatherCode: 2, isDay: true, cloudCover: 40, precipitation: 0,
        uvIndex: 0.8, visibility: 10_000, dewPoint: -10.2),
      hourly: [
        Forecast.Hour(
          time: 1_737_381_600, temperature: -6.5, weatherCode: 2, precipitationProbability: 0,
          precipitation: 0, windSpeed: 6.5, windGusts: 11.0),
        Forecast.Hour(
          time: 1_737_385_200, temperature: -5.9, weatherCode: 3, precipitationProbability: 10,
          precipitation: 0, windSpeed: 6.1, windGusts: 10.4),
        Forecast.Hour(
          time: 1_737_388_800, temperature: -5.2, weatherCode: 71, precipitationProbability: 35,
          precipitation: 0.21, windSpeed: 5.8, windGusts: 9.9),
        Forecast.Hour(
          time: 1_737_392_400, temperature: -5.0, weatherCode: 73, precipitationProbability: 72,
          precipitation: 0.83, windSpeed: 5.6, windGusts: 9.5),
      ],
      hourlyStepHours: 1,
      daily: [
        Forecast.Day(
          date: 20_108, minimum: -9.8, maximum: -4.6, weatherCode: 71,
          precipitationProbability: 72, sunrise: 1_737_373_560, sunset: 1_737_406_500,
          precipitationSum: 1.9, uvIndexMaximum: 1.0, windSpeedMaximum: 6.7),
        // Clear without `rain` or `snow`: 0 mm; no `wind_speed`: no maximum.
        Forecast.Day(
          date: 20_109, minimum: -12.1, maximum: -7.5, weatherCode: 0,
          precipitationProbability: 0, sunrise: 1_737_459_900, sunset: 1_737_493_020,
          precipitationSum: 0, uvIndexMaximum: 1.4),
        // Rain 3.2 and snow 1.1: 4.3 mm exactly (added in binary, 4.300000000000001).
        Forecast.Day(
          date: 20_110, minimum: -3.0, maximum: 1.5, weatherCode: 69,
          precipitationProbability: 100, precipitationSum: 4.3, uvIndexMaximum: 0.5),
      ])
    #expect(forecasts == [expected])
  }

  @Test("One Call with alerts: kept once each (without severity), minutely in one-minute steps")
  func oneCallAlertsAndMinutes() async throws {
    let point = GeoPoint(latitude: 47.5615, longitude: -52.7126)
    var body = OpenWeatherMapFixtures.stJohnsOneCall.trimmingCharacters(in: .whitespacesAndNewlines)
    body.removeLast()
    body += """
      ,"minutely":[{"dt":1737381900,"precipitation":0},{"dt":1737381960,"precipitation":6.0},\
      {"dt":1737382020,"precipitation":12.0}],\
      "alerts":[{"sender_name":"Environment Canada","event":"snowfall warning","start":1737378000,\
      "end":1737410400,"description":"Snowfall of 15 to 25 cm.","tags":["Snow/Ice"]},\
      {"sender_name":"Environment Canada","event":"snowfall warning","start":1737378000,\
      "end":1737410400,"description":"Chutes de neige de 15 à 25 cm.","tags":["Snow/Ice"]}]}
      """
    var configuration = OpenWeatherMapConfiguration(apiKey: "k1", useOneCall: true)
    configuration.alerts = true
    let (forecasts, requests) = try await withStubbedOpenWeatherMap(
      answering: routing(["/data/3.0/onecall": .json(body)]), configuration: configuration
    ) { provider, server in
      (try await provider.forecasts(for: [point]), server.requests)
    }
    #expect(requests.first?.query["exclude"] == nil)
    let forecast = try #require(forecasts.first)
    // The warning comes twice (in English and in French): one alert.
    #expect(
      forecast.alerts == [
        Forecast.Alert(
          severity: nil, start: 1_737_378_000, end: 1_737_410_400, event: "snowfall warning")
      ])
    #expect(
      forecast.precipitationSteps == [
        .init(start: 1_737_381_900, seconds: 60, millimetres: 0),
        .init(start: 1_737_381_960, seconds: 60, millimetres: 0.1),
        .init(start: 1_737_382_020, seconds: 60, millimetres: 0.2),
      ])
    let frame = forecast.frame(fetchedAt: 1_737_381_930, service: .openWeatherMap)
    #expect(frame.alerts == AlertSummary(count: 1, highest: .unknown))
  }

  @Test("several points: one point after the other, in order, two calls each")
  func severalPoints() async throws {
    let points = [Self.pune, GeoPoint(latitude: -54.8019, longitude: -68.303)]
    let byLatitude: @Sendable (StubHTTPRequest) async -> StubHTTPResponse = { request in
      let south = request.query["lat"]?.hasPrefix("-") == true
      switch request.path {
      case "/data/2.5/weather":
        return .json(
          south ? OpenWeatherMapFixtures.ushuaiaWeather : OpenWeatherMapFixtures.puneWeather)
      default:
        return .json(
          south ? OpenWeatherMapFixtures.ushuaiaForecast : OpenWeatherMapFixtures.puneForecast)
      }
    }
    let (forecasts, requests, batchSize) = try await withStubbedOpenWeatherMap(
      answering: byLatitude
    ) { provider, server in
      (try await provider.forecasts(for: points), server.requests, provider.maximumBatchSize)
    }
    #expect(batchSize == 1)
    #expect(requests.count == 4)
    #expect(forecasts.map(\.utcOffsetSeconds) == [19_800, -10_800])
    #expect(forecasts.map(\.place.latitude) == [18.5204, -54.8019])
  }

  @Test("a coordinate out of range is refused before any call")
  func invalidCoordinate() async throws {
    let (error, requests) = try await withStubbedOpenWeatherMap(answering: routing([:])) {
      provider, server in
      let error = await #expect(throws: ProviderError.self) {
        try await provider.forecasts(for: [GeoPoint(latitude: 91, longitude: 0)])
      }
      return (error, server.requests)
    }
    #expect(error == .rejected(status: 0, reason: "latitude 91.0 is not in -90…90"))
    #expect(requests.isEmpty)
  }

  @Test("the service is OpenWeatherMap; a point costs two calls, or one with One Call")
  func serviceAndCallCount() async throws {
    let (service, calls) = try await withStubbedOpenWeatherMap(answering: routing([:])) {
      provider, _ in (provider.service, provider.upstreamCallsPerForecast)
    }
    #expect(service == .openWeatherMap)
    #expect(calls == 2)
    let oneCallCalls = try await withStubbedOpenWeatherMap(
      answering: routing([:]),
      configuration: OpenWeatherMapConfiguration(apiKey: "k", useOneCall: true)
    ) { provider, _ in provider.upstreamCallsPerForecast }
    #expect(oneCallCalls == 1)
  }
}
