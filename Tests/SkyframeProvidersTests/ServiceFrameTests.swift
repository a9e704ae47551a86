import SkyframeCodec
import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Testing

/// Each service's full answer, compacted and encoded as a gateway would send it.
@Suite("Frames from OpenWeatherMap and WeatherAPI.com")
struct ServiceFrameTests {
  /// Encodes `frame`, checks the size and that it decodes to itself.
  private func roundTrip(_ frame: WeatherFrame) throws {
    let bytes = try frame.encoded()
    #expect(bytes.count == WeatherFrame.size)
    #expect(try WeatherFrame(decoding: bytes) == frame)
  }

  @Test("OpenWeatherMap 5 day / 3 hour: step 3, 12 slots over 36 hours, today in slot 0")
  func openWeatherMap() async throws {
    let now = 1_741_596_600  // Pune weather fixture: 14:20 local on 2025-03-10
    let first = 1_741_597_200
    let forecasts = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": .json(OpenWeatherMapFixtures.puneWeather),
        "/data/2.5/forecast": .json(
          OpenWeatherMapFixtures.fullForecast(start: first, offset: 19_800)),
      ])
    ) { provider, _ in
      try await provider.forecasts(for: [GeoPoint(latitude: 18.5204, longitude: 73.8567)])
    }
    let forecast = try #require(forecasts.first)
    #expect(forecast.hourly.count == 40)
    let frame = forecast.frame(fetchedAt: Int64(now), service: .openWeatherMap)
    #expect(frame.service == .openWeatherMap)
    #expect(frame.hourlyStepHours == 3)
    #expect(frame.hourlyStart == UInt32(first))
    for slot in 0..<WeatherFrame.hourlyCount {
      #expect(frame.hourly[slot].temperature != nil, "slot \(slot)")
    }
    #expect(frame.utcOffsetMinutes == 330)
    #expect(frame.dailyStart == 20_157)
    #expect(frame.sun == .normal)
    #expect(frame.sunrise == 1_741_569_720)
    // 40 entries from 14:30 local on the 10th reach 11:30 on the 15th: six local dates.
    #expect(forecast.daily.map(\.date) == Array(20_157...20_162))
    #expect(frame.daily[5].maximum != nil)
    #expect(frame.daily[6].maximum == nil)
    try roundTrip(frame)
  }

  @Test("OpenWeatherMap One Call: step 1, 8 days")
  func oneCall() async throws {
    let now = 1_737_381_900
    let forecasts = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/3.0/onecall": .json(OpenWeatherMapFixtures.fullOneCall(now: now, offset: -12_600))
      ]),
      configuration: OpenWeatherMapConfiguration(apiKey: "k", useOneCall: true)
    ) { provider, _ in
      try await provider.forecasts(for: [GeoPoint(latitude: 47.5615, longitude: -52.7126)])
    }
    let forecast = try #require(forecasts.first)
    #expect(forecast.hourly.count == 48)
    #expect(forecast.daily.count == 8)
    let frame = forecast.frame(fetchedAt: Int64(now), service: .openWeatherMap)
    #expect(frame.hourlyStepHours == 1)
    #expect(frame.hourlyStart == UInt32(now - now % 3_600))
    #expect(frame.utcOffsetMinutes == -210)
    #expect(frame.dailyStart == 20_108)
    #expect(frame.daily[6].maximum != nil)
    try roundTrip(frame)
  }

  @Test("WeatherAPI.com: step 1 from the hour containing now, today in slot 0")
  func weatherAPI() async throws {
    let now = 1_741_576_837  // 09:05 at +5:45 on 2025-03-10
    let forecasts = try await withStubbedWeatherAPI(
      answering: routing([
        "/v1/forecast.json": .json(WeatherAPIFixtures.full(now: now, offset: 20_700))
      ])
    ) { provider, _ in
      try await provider.forecasts(for: [GeoPoint(latitude: 27.72, longitude: 85.32)])
    }
    let forecast = try #require(forecasts.first)
    #expect(forecast.utcOffsetSeconds == 20_700)
    #expect(forecast.hourly.count == 72)
    let frame = forecast.frame(fetchedAt: Int64(now), service: .weatherAPI)
    #expect(frame.service == .weatherAPI)
    #expect(frame.hourlyStepHours == 1)
    // Local hours start at :15 UTC here; 09:00 local is 03:15 UTC.
    #expect(frame.hourlyStart == 1_741_576_500)
    #expect(frame.hourly[0].temperature == 55)  // 9 - 3.5 °C
    #expect(frame.utcOffsetMinutes == 345)
    #expect(frame.dailyStart == 20_157)
    // "07:05 AM" local on the 10th, whose midnight is 1 741 544 100.
    let sunrise: UInt32 = 1_741_544_100 + 7 * 3_600 + 5 * 60
    #expect(frame.sunrise == sunrise)
    #expect(frame.daily[2].maximum == 140)
    #expect(frame.daily[3].maximum == nil)
    try roundTrip(frame)
  }
}
