import Foundation
import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Testing

@Suite("Open-Meteo forecasts")
struct OpenMeteoForecastTests {
  @Test("one location: the request asks for SI units and Unix times, every field is mapped")
  func fullSingleLocation() async throws {
    let point = GeoPoint(latitude: 27.70169, longitude: 85.3206)
    let (forecasts, requests) = try await withStubbedOpenMeteo(
      answering: .json(ProviderFixtures.fullSingle)
    ) { provider, server in
      (try await provider.forecasts(for: [point]), server.requests)
    }

    let request = try #require(requests.first)
    #expect(requests.count == 1)
    #expect(request.method == "GET")
    #expect(request.path == "/v1/forecast")
    #expect(
      request.query == [
        "latitude": "27.70169", "longitude": "85.3206",
        "current": "temperature_2m,relative_humidity_2m,apparent_temperature,is_day,precipitation,"
          + "weather_code,cloud_cover,pressure_msl,wind_speed_10m,wind_direction_10m,"
          + "wind_gusts_10m,uv_index,visibility,dew_point_2m",
        "hourly": "temperature_2m,weather_code,precipitation_probability,precipitation,"
          + "wind_speed_10m,wind_gusts_10m",
        "daily": "weather_code,temperature_2m_max,temperature_2m_min,"
          + "precipitation_probability_max,sunrise,sunset,daylight_duration,precipitation_sum,"
          + "uv_index_max,wind_speed_10m_max",
        "timezone": "auto", "timeformat": "unixtime", "wind_speed_unit": "ms",
        "forecast_days": "8", "minutely_15": "precipitation", "forecast_minutely_15": "8",
      ])

    let midnight: Int64 = 1_741_544_100  // 2025-03-10 00:00 at UTC+5:45
    var expected = Forecast(
      place: Forecast.Place(name: "", countryCode: nil, latitude: 27.70169, longitude: 85.3206),
      utcOffsetSeconds: 20_700,
      current: Forecast.Current(
        time: 1_741_596_300, temperature: 21.4, apparentTemperature: 20.1,
        relativeHumidity: 38, pressure: 1016.2, windSpeed: 2.7, windGusts: 6.1,
        windDirection: 247, weatherCode: 2, isDay: true, cloudCover: 45, precipitation: 0,
        uvIndex: 5.35, visibility: 24_140),
      hourly: [
        Forecast.Hour(
          time: midnight, temperature: 9.8, weatherCode: 0, precipitationProbability: 0),
        Forecast.Hour(
          time: midnight + 3_600, temperature: 9.1, weatherCode: 0, precipitationProbability: 0),
        Forecast.Hour(
          time: midnight + 7_200, temperature: 8.7, weatherCode: 1, precipitationProbability: 2),
        Forecast.Hour(
          time: midnight + 10_800, temperature: 8.2, weatherCode: 1, precipitationProbability: 5),
        Forecast.Hour(
          time: midnight + 14_400, temperature: 7.9, weatherCode: 2, precipitationProbability: 8),
        Forecast.Hour(
          time: midnight + 18_000, temperature: 7.6, weatherCode: 3, precipitationProbability: 10),
      ],
      hourlyStepHours: 1,
      daily: [
        Forecast.Day(
          date: 20_157, minimum: 7.6, maximum: 23.9, weatherCode: 2, precipitationProbability: 10,
          sunrise: 1_741_567_140, sunset: 1_741_609_680, daylightSeconds: 42_540.37),
        Forecast.Day(
          date: 20_158, minimum: 10.2, maximum: 19.4, weatherCode: 61,
          precipitationProbability: 85, sunrise: 1_741_653_480, sunset: 1_741_696_140,
          daylightSeconds: 42_661.02),
        Forecast.Day(
          date: 20_159, minimum: 9.5, maximum: 21.0, weatherCode: 80,
          precipitationProbability: 60, sunrise: 1_741_739_820, sunset: 1_741_782_540,
          daylightSeconds: 42_719.88),
      ])
    expected.timeZone = "Asia/Kathmandu"
    #expect(forecasts == [expected])

    // Seen from 14:30 local on 2025-03-10, the frame's day 0 is that date with its sunrise.
    let frame = try #require(forecasts.first).frame(fetchedAt: 1_741_596_300, service: .openMeteo)
    #expect(frame.dailyStart == 20_157)
    #expect(frame.utcOffsetMinutes == 345)
    #expect(frame.sun == .normal)
    #expect(frame.sunrise == 1_741_567_140)
  }

  @Test("quarter hours become precipitation steps that end at each time given")
  func quarterHours() async throws {
    let now = 1_741_600_000
    let body = OpenMeteoFixtures.forecast(
      latitude: 52.52, longitude: 13.41, temperature: 5, now: now,
      minutely15: [0, 0.1, nil, 0.6])
    let point = GeoPoint(latitude: 52.52, longitude: 13.41)
    let forecasts = try await withStubbedOpenMeteo(answering: .json(body)) { provider, _ in
      try await provider.forecasts(for: [point])
    }
    let quarter = Int64(now - now % 900)
    #expect(
      forecasts.first?.precipitationSteps == [
        .init(start: quarter, seconds: 900, millimetres: 0),
        .init(start: quarter + 900, seconds: 900, millimetres: 0.1),
        .init(start: quarter + 1_800, seconds: 900, millimetres: nil),
        .init(start: quarter + 2_700, seconds: 900, millimetres: 0.6),
      ])
  }

  @Test("nulls, short arrays, a null time and a missing current block become nil, never a crash")
  func nullsAndGaps() async throws {
    let point = GeoPoint(latitude: 78.22, longitude: 15.65)
    let forecasts = try await withStubbedOpenMeteo(answering: .json(ProviderFixtures.nullsAndGaps))
    {
      provider, _ in try await provider.forecasts(for: [point])
    }
    let forecast = try #require(forecasts.first)
    #expect(forecast.utcOffsetSeconds == 3_600)
    #expect(forecast.current == Forecast.Current())
    #expect(
      forecast.hourly == [
        Forecast.Hour(time: 1_736_031_600, temperature: -12.5, weatherCode: 3),
        Forecast.Hour(time: 1_736_035_200, weatherCode: 3),
        // The entry with a null time is left out; the rest keep their own index.
        Forecast.Hour(time: 1_736_042_400),
        Forecast.Hour(time: 1_736_046_000, weatherCode: 45),
      ])
    #expect(
      forecast.daily == [
        Forecast.Day(date: 20_093, minimum: -14.5, daylightSeconds: 0),
        Forecast.Day(
          date: 20_094, maximum: -4, weatherCode: 71, sunset: 1_736_150_000, daylightSeconds: 0),
      ])
    let frame = forecast.frame(fetchedAt: 1_736_060_000, service: .openMeteo)
    #expect(frame.sun == .polarNight)
  }

  @Test("a location without current, hourly and daily blocks is an empty forecast")
  func headerOnly() async throws {
    let point = GeoPoint(latitude: 48.137, longitude: 11.575)
    let forecasts = try await withStubbedOpenMeteo(answering: .json(ProviderFixtures.headerOnly)) {
      provider, _ in try await provider.forecasts(for: [point])
    }
    var empty = Forecast(
      place: Forecast.Place(name: "", countryCode: nil, latitude: 48.137, longitude: 11.575),
      utcOffsetSeconds: 3_600, current: Forecast.Current(), hourly: [], daily: [])
    empty.timeZone = "Europe/Berlin"
    #expect(forecasts == [empty])
  }

  @Test("three locations go in one call and come back in request order")
  func threeLocationsOneCall() async throws {
    let points = [
      GeoPoint(latitude: 64.1355, longitude: -21.8954),
      GeoPoint(latitude: 21.30694, longitude: -157.85833),
      GeoPoint(latitude: -33.86882, longitude: 151.20929),
    ]
    let (forecasts, requests) = try await withStubbedOpenMeteo(
      answering: .json(ProviderFixtures.threeLocations)
    ) { provider, server in
      (try await provider.forecasts(for: points), server.requests)
    }
    #expect(requests.count == 1)
    #expect(requests.first?.query["latitude"] == "64.1355,21.30694,-33.86882")
    #expect(requests.first?.query["longitude"] == "-21.8954,-157.85833,151.20929")

    #expect(forecasts.map(\.place.latitude) == points.map(\.latitude))
    #expect(forecasts.map(\.place.longitude) == points.map(\.longitude))
    #expect(forecasts.map(\.utcOffsetSeconds) == [0, -36_000, 39_600])
    #expect(forecasts.map(\.current.temperature) == [-1.5, 24.5, 19.0])
    // Each place's local midnight maps to the same local date, whatever its offset.
    #expect(forecasts.map { $0.daily.map(\.date) } == [[20_157], [20_157], [20_157]])
    #expect(forecasts.map { $0.daily.map(\.maximum) } == [[1.5], [27.5], [23.0]])
    #expect(forecasts[1].hourly.map(\.time) == [1_741_600_800, 1_741_604_400])
  }

  @Test("more points than the batch size take several calls, in order")
  func batches() async throws {
    let points = (0..<5).map { GeoPoint(latitude: Double($0) + 10.5, longitude: -Double($0)) }
    // Echo each requested latitude as the current temperature, to see the order.
    let echo: @Sendable (StubHTTPRequest) async -> StubHTTPResponse = { request in
      let latitudes = (request.query["latitude"] ?? "").split(separator: ",")
      let bodies = latitudes.map {
        #"{"utc_offset_seconds":0,"current":{"time":1741600800,"temperature_2m":\#($0)}}"#
      }
      return .json(latitudes.count == 1 ? bodies[0] : "[" + bodies.joined(separator: ",") + "]")
    }
    var configuration = OpenMeteoConfiguration()
    configuration.maximumBatchSize = 2
    let (forecasts, requests) = try await withStubbedOpenMeteo(
      answering: echo, configuration: configuration
    ) { provider, server in
      #expect(provider.maximumBatchSize == 2)
      return (try await provider.forecasts(for: points), server.requests)
    }
    #expect(
      requests.map { $0.query["latitude"] } == ["10.5,11.5", "12.5,13.5", "14.5"])
    #expect(requests.map { $0.query["longitude"] } == ["0,-1", "-2,-3", "-4"])
    #expect(forecasts.map(\.current.temperature) == [10.5, 11.5, 12.5, 13.5, 14.5])
  }

  @Test("coordinates are sent with at most five decimals and never an exponent")
  func coordinateFormatting() async throws {
    let points = [
      GeoPoint(latitude: 0.000001, longitude: -0.000004),
      GeoPoint(latitude: -0.00001, longitude: 1e-5),
      GeoPoint(latitude: 51.507350001, longitude: -0.127758),
      GeoPoint(latitude: -90, longitude: 180),
    ]
    let requests = try await withStubbedOpenMeteo(answering: .json("[]")) { provider, server in
      _ = try? await provider.forecasts(for: points)
      return server.requests
    }
    #expect(requests.first?.query["latitude"] == "0,-0.00001,51.50735,-90")
    #expect(requests.first?.query["longitude"] == "0,0.00001,-0.12776,180")
  }

  @Test("no points: no call")
  func noPoints() async throws {
    let (forecasts, requests) = try await withStubbedOpenMeteo(answering: .json("[]")) {
      provider, server in (try await provider.forecasts(for: []), server.requests)
    }
    #expect(forecasts.isEmpty)
    #expect(requests.isEmpty)
  }

  @Test("a coordinate out of range or not finite is refused before any call")
  func invalidCoordinates() async throws {
    let requests = try await withStubbedOpenMeteo(answering: .json("{}")) { provider, server in
      for point in [
        GeoPoint(latitude: 90.5, longitude: 0), GeoPoint(latitude: 0, longitude: -180.01),
        GeoPoint(latitude: .nan, longitude: 0), GeoPoint(latitude: 0, longitude: .infinity),
      ] {
        let error = await #expect(throws: ProviderError.self) {
          try await provider.forecasts(for: [GeoPoint(latitude: 1, longitude: 1), point])
        }
        guard case .rejected(status: 0, _) = error else {
          Issue.record("expected .rejected(status: 0, …), got \(String(describing: error))")
          continue
        }
      }
      return server.requests
    }
    #expect(requests.isEmpty)
  }

  @Test("the API key is sent but never logged; each call logs URL, status and duration")
  func apiKeyAndLogging() async throws {
    let capture = LogCapture()
    let point = GeoPoint(latitude: 27.70169, longitude: 85.3206)
    var configuration = OpenMeteoConfiguration()
    configuration.apiKey = "s3cr3t-key"
    let requests = try await withStubbedOpenMeteo(
      answering: .json(ProviderFixtures.fullSingle), configuration: configuration,
      logger: capture.logger
    ) { provider, server in
      _ = try await provider.forecasts(for: [point])
      return server.requests
    }
    #expect(requests.first?.query["apikey"] == "s3cr3t-key")
    let line = try #require(capture.lines.first { $0.metadata["status"] != nil })
    #expect(line.level == .debug)
    #expect(line.metadata["status"] == "200")
    #expect(line.metadata["duration_ms"].flatMap { Int($0) } != nil)
    let url = try #require(line.metadata["url"])
    #expect(url.contains("/v1/forecast?latitude=27.70169&longitude=85.3206"))
    #expect(!capture.lines.contains { "\($0.message) \($0.metadata)".contains("s3cr3t") })
  }
}

@Suite("Open-Meteo forecasts kept as series")
struct OpenMeteoSeriesTests {
  /// A call's answer in the shape Open-Meteo gives when asked for every current variable in
  /// 15-minute steps: two steps, and three days whose last begins in summer time while the call
  /// was in winter time (the offset it gives), values made up here.
  static let body = """
    {"latitude":52.52,"longitude":13.4,"generationtime_ms":0.3,"utc_offset_seconds":3600,\
    "timezone":"Europe/Berlin","timezone_abbreviation":"GMT+1","elevation":38.0,\
    "minutely_15_units":{"time":"unixtime","temperature_2m":"°C"},\
    "minutely_15":{"time":[1824940800,1824941700],"temperature_2m":[9.4,9.1],\
    "relative_humidity_2m":[81,83],"apparent_temperature":[7.0,6.6],"is_day":[0,0],\
    "precipitation":[0.0,0.3],"weather_code":[3,61],"cloud_cover":[100,100],\
    "pressure_msl":[1011.2,1011.0],"wind_speed_10m":[3.1,3.4],"wind_direction_10m":[215,220],\
    "wind_gusts_10m":[7.9,8.4],"uv_index":[0.0,0.0],"visibility":[24000.0,21000.0],\
    "dew_point_2m":[6.3,6.5]},\
    "daily":{"time":[1837551600,1837638000,1837720800],"temperature_2m_max":[12.1,11.0,9.5]}}
    """

  @Test("asked for series: every current variable in 15-minute steps, nine days, no current block")
  func seriesRequest() async throws {
    var configuration = OpenMeteoConfiguration(timeout: .seconds(30))
    configuration.seriesSteps = OpenMeteoService.seriesSteps(for: 10_800)
    #expect(configuration.seriesSteps == 18)
    let point = GeoPoint(latitude: 52.52, longitude: 13.4)
    let (forecasts, requests) = try await withStubbedOpenMeteo(
      answering: .json(Self.body), configuration: configuration
    ) { provider, server in (try await provider.forecasts(for: [point]), server.requests) }
    let query = try #require(requests.first).query
    #expect(query["current"] == nil)
    #expect(
      query["minutely_15"]
        == "temperature_2m,relative_humidity_2m,apparent_temperature,is_day,precipitation,"
        + "weather_code,cloud_cover,pressure_msl,wind_speed_10m,wind_direction_10m,"
        + "wind_gusts_10m,uv_index,visibility,dew_point_2m")
    #expect(query["forecast_minutely_15"] == "18")
    #expect(query["forecast_days"] == "9")

    let forecast = try #require(forecasts.first)
    let steps = try #require(forecast.currentSteps)
    #expect(steps.count == 2)
    #expect(
      steps[1]
        == Forecast.Current(
          time: 1_824_941_700, temperature: 9.1, apparentTemperature: 6.6, relativeHumidity: 83,
          pressure: 1_011.0, windSpeed: 3.4, windGusts: 8.4, windDirection: 220, weatherCode: 61,
          isDay: false, cloudCover: 100, precipitation: 0.3, uvIndex: 0, visibility: 21_000,
          dewPoint: 6.5))
    // Without a current block the first step is the current conditions.
    #expect(forecast.current == steps[0])
    #expect(forecast.timeZone == "Europe/Berlin")
    // 2028-03-25 to 27: the last midnight is at UTC+2, the call's offset +1; it is still the
    // 27th (taking the date below, it was the 26th twice).
    #expect(forecast.daily.map(\.date) == [21_268, 21_269, 21_270])
    #expect(forecast.precipitationSteps?.count == 2)
  }

  @Test("an offset from UTC no place has is a malformed answer, not a trap")
  func offsetOutOfRange() async throws {
    let body = Self.body.replacingOccurrences(
      of: #""utc_offset_seconds":3600"#, with: #""utc_offset_seconds":9000000000000000000"#)
    await #expect(throws: ProviderError.self) {
      try await withStubbedOpenMeteo(answering: .json(body)) { provider, _ in
        try await provider.forecasts(for: [GeoPoint(latitude: 52.52, longitude: 13.4)])
      }
    }
  }
}
