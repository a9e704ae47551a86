import Foundation
import SkyframeCodec
import SkyframeTestSupport
import SkyframeWeather
import Testing

@testable import SkyframeProviders

/// Locationforecast 2.0 `compact` mapped onto the normalized forecast.
struct METNorwayForecastTests {
  /// Three hourly steps, then a six-hourly one the next day, in the service's shape.
  static let body = #"""
    {"type":"Feature","geometry":{"type":"Point","coordinates":[10.7522,59.9139,5]},
     "properties":{"meta":{"updated_at":"2026-02-06T20:27:06Z","units":{"air_temperature":"celsius"}},
      "timeseries":[
       {"time":"2026-02-06T21:00:00Z","data":{"instant":{"details":{"air_pressure_at_sea_level":1014.6,"air_temperature":-5.8,"cloud_area_fraction":100.0,"relative_humidity":66.5,"wind_from_direction":37.0,"wind_speed":6.0}},
         "next_12_hours":{"summary":{"symbol_code":"lightsnow"},"details":{}},
         "next_1_hours":{"summary":{"symbol_code":"snow"},"details":{"precipitation_amount":0.5}},
         "next_6_hours":{"summary":{"symbol_code":"snow"},"details":{"precipitation_amount":3.5}}}},
       {"time":"2026-02-06T22:00:00Z","data":{"instant":{"details":{"air_temperature":-6.4,"wind_speed":6.4}},
         "next_1_hours":{"summary":{"symbol_code":"cloudy"},"details":{"precipitation_amount":0.0}},
         "next_6_hours":{"summary":{"symbol_code":"partlycloudy_night"},"details":{"precipitation_amount":0.0}}}},
       {"time":"2026-02-06T23:00:00Z","data":{"instant":{"details":{"air_temperature":-7.0}},
         "next_1_hours":{"summary":{"symbol_code":"clearsky_night"},"details":{"precipitation_amount":0.0}}}},
       {"time":"2026-02-07T12:00:00Z","data":{"instant":{"details":{"air_temperature":-2.5}},
         "next_6_hours":{"summary":{"symbol_code":"fair_day"},"details":{"precipitation_amount":0.0}}}},
       {"time":"2026-02-07T18:00:00Z","data":{"instant":{"details":{"air_temperature":-4.0}}}}
      ]}}
    """#

  static func forecast(now: Int64) throws -> Forecast {
    let response = try JSONDecoder().decode(
      METNorwayForecastResponse.self, from: Data(body.utf8))
    return try response.forecast(for: GeoPoint(latitude: 59.9139, longitude: 10.7522), now: now)
  }

  @Test func nowIsTheLatestStepAtOrBeforeTheTimeWithTheNextHoursSymbol() throws {
    // 2026-02-06T22:30:00Z
    let forecast = try Self.forecast(now: 1_770_417_000)
    #expect(forecast.current.time == 1_770_415_200)
    #expect(forecast.current.temperature == -6.4)
    #expect(forecast.current.weatherCode == 3)
    #expect(forecast.current.isDay == nil)
    #expect(forecast.current.precipitation == 0.0)
    #expect(forecast.current.apparentTemperature == nil)
    // Every hourly step; the frame's slot 0 is the one holding now.
    #expect(forecast.hourly.map(\.time) == [1_770_411_600, 1_770_415_200, 1_770_418_800])
    #expect(forecast.hourly.map(\.weatherCode) == [73, 3, 0])
    #expect(forecast.hourlyStepHours == 1)
    #expect(
      forecast.frame(fetchedAt: 1_770_417_000, service: .metNorway).hourlyStart == 1_770_415_200)
    // Oslo in February: Central European Time (Europe/Oslo), UTC+1.
    #expect(forecast.utcOffsetSeconds == 3_600)
  }

  /// With data a little old, now can lie past the hourly steps, on a six-hourly one: the hourly
  /// block keeps its last slot at or before now, as every other service's does (frame-v1.md §6.5),
  /// instead of being dropped.
  @Test func pastTheHourlyStepsTheLastOneAtOrBeforeNowIsSlotZero() throws {
    let sixHourly =
      #"{"time":"2026-02-07T00:00:00Z","data":{"instant":{"details":{"air_temperature":-7.5}},"next_6_hours":{"summary":{"symbol_code":"fair_night"},"details":{"precipitation_amount":0.0}}}},"#
    let body = Self.body.replacingOccurrences(
      of: #"{"time":"2026-02-07T12:00:00Z""#, with: sixHourly + #"{"time":"2026-02-07T12:00:00Z""#)
    let response = try JSONDecoder().decode(METNorwayForecastResponse.self, from: Data(body.utf8))
    let now: Int64 = 1_770_424_200  // 2026-02-07T00:30:00Z
    let forecast = try response.forecast(
      for: GeoPoint(latitude: 59.9139, longitude: 10.7522), now: now)
    #expect(forecast.current.time == 1_770_422_400)
    #expect(forecast.current.temperature == -7.5)
    let frame = forecast.frame(fetchedAt: now, service: .metNorway)
    #expect(frame.hourlyStepHours == 1)
    #expect(frame.hourlyStart == 1_770_418_800)  // 23:00Z
    #expect(frame.hourly[0].temperature == -70)
    #expect(frame.hourly[1].temperature == nil)
    // The last hourly step ended 30 minutes before: recent enough to answer.
    #expect(throws: Never.self) { try forecast.checkRecent(at: now) }
  }

  /// Years later the same answer describes nothing of the present: outdated, not `ok` with an
  /// `observed_at` years back.
  @Test func yearsLaterTheAnswerIsOutdated() throws {
    let now: Int64 = 1_864_000_000  // 2029
    let forecast = try Self.forecast(now: now)
    #expect(forecast.current.time == 1_770_487_200)  // the last step
    #expect(throws: ProviderError.self) { try forecast.checkRecent(at: now) }
  }

  @Test func daysAreSplitAtLocalMidnightWithTheirExtremesAndWorstSymbol() throws {
    let forecast = try Self.forecast(now: 1_770_411_600)  // 21:00Z
    #expect(forecast.current.temperature == -5.8)
    #expect(forecast.current.weatherCode == 73)
    #expect(forecast.current.precipitation == 0.5)
    #expect(forecast.current.pressure == 1014.6)
    #expect(forecast.current.windDirection == 37.0)
    // 23:00Z is already 7 February at UTC+1.
    let today = CivilDate(year: 2026, month: 2, day: 6).daysSinceEpoch
    #expect(forecast.daily.map(\.date) == [today, today + 1])
    #expect(forecast.daily[0].minimum == -6.4 && forecast.daily[0].maximum == -5.8)
    #expect(forecast.daily[0].weatherCode == 73)
    #expect(forecast.daily[1].minimum == -7.0 && forecast.daily[1].maximum == -2.5)
    #expect(forecast.daily[1].weatherCode == 1)
    // Nothing counts 00:00Z to 12:00Z on the 7th (a hole), and its end is not covered.
    #expect(forecast.daily.map(\.precipitationSum) == [0.5, nil])
    #expect(forecast.daily.map(\.windSpeedMaximum) == [6.4, nil])
  }

  /// Ponta Delgada, Azores: UTC-1 on 1 March (Atlantic/Azores; summer time starts late March).
  static let azores = GeoPoint(latitude: 37.7412, longitude: -25.6756)
  /// 2026-03-01T20:30:00Z, 19:30 local mean solar time.
  static let evening: Int64 = 1_772_397_000
  /// MET Norway gives only UTC: the zone comes from the tz database, with its offset at fetch
  /// time (frame-v1.md §6.4), not from the longitude.
  @Test(arguments: [
    ("Chatham", -43.95, -176.55, 13 * 60 + 45),
    ("Kathmandu", 27.7172, 85.324, 5 * 60 + 45),
    ("Bergen", 60.3913, 5.3221, 60),
    ("Lord Howe", -31.5553, 159.0821, 11 * 60),
  ])
  func framesCarryThePlacesOwnOffset(
    _ place: String, _ latitude: Double, _ longitude: Double, _ minutes: Int
  ) throws {
    let response = try JSONDecoder().decode(
      METNorwayForecastResponse.self, from: Data(Self.body.utf8))
    // 2026-02-06T22:30:00Z: summer in the south, winter in the north.
    let now: Int64 = 1_770_417_000
    let forecast = try response.forecast(
      for: GeoPoint(latitude: latitude, longitude: longitude), now: now)
    #expect(forecast.utcOffsetSeconds == minutes * 60, "\(place)")
    let frame = forecast.frame(fetchedAt: now, service: .metNorway)
    #expect(frame.utcOffsetMinutes.map(Int.init) == minutes, "\(place)")
  }

  static let firstOfMarch = CivilDate(year: 2026, month: 3, day: 1).daysSinceEpoch

  static func complete(_ body: String = METNorwayFixtures.completeAcrossMidnight) throws
    -> Forecast
  {
    let response = try JSONDecoder().decode(METNorwayForecastResponse.self, from: Data(body.utf8))
    return try response.forecast(for: azores, now: evening)
  }

  @Test func hoursCarryTheirPrecipitationWindAndTheGustsOfTheCompleteProduct() throws {
    let forecast = try Self.complete()
    #expect(forecast.utcOffsetSeconds == -3_600)
    #expect(forecast.current.time == 1_772_395_200)
    #expect(forecast.current.dewPoint == -2.5)
    #expect(forecast.current.windGusts == 9.5)
    #expect(forecast.current.uvIndex == 0)
    // Hourly while the series has next_1_hours: 20:00Z to 23:00Z.
    #expect(
      forecast.hourly.map(\.time) == [1_772_395_200, 1_772_398_800, 1_772_402_400, 1_772_406_000])
    #expect(forecast.hourly.map(\.precipitation) == [0.5, 0.25, 0.25, 1.0])
    #expect(forecast.hourly.map(\.windSpeed) == [4.0, 6.0, 5.0, 3.0])
    #expect(forecast.hourly.map(\.windGusts) == [9.5, 11.0, 10.0, 7.5])
    #expect(forecast.hourly.map(\.precipitationProbability) == [40, 35, 30, 60])
  }

  /// 1 March: four hours, then the six hours from 23:00 local (00:00Z), which start that day;
  /// the hourly steps' own six-hour amounts are not added. 2 March: four six-hour periods.
  /// 3 March: the series ends at 05:00 local, so its sum is unknown.
  @Test func dailySumsCountEachPeriodOnceByTheLocalDateItStarts() throws {
    let forecast = try Self.complete()
    #expect(
      forecast.daily.map(\.date) == [
        Self.firstOfMarch, Self.firstOfMarch + 1, Self.firstOfMarch + 2,
      ])
    #expect(forecast.daily.map(\.precipitationSum) == [4.0, 2.5, nil])
    #expect(forecast.daily.map(\.windSpeedMaximum) == [7.5, 10.4, 3.3])
    // Clear-sky UV, as sampled at the steps.
    #expect(forecast.daily.map(\.uvIndexMaximum) == [0, 2.1, nil])
    #expect(forecast.daily[0].minimum == -0.5 && forecast.daily[0].maximum == 1.2)

    // A period without an amount leaves its day's sum unknown, and no other.
    let withoutAmount = METNorwayFixtures.completeAcrossMidnight.replacingOccurrences(
      of: #""precipitation_amount":1.5,"#, with: "")
    #expect(try Self.complete(withoutAmount).daily.map(\.precipitationSum) == [4.0, nil, nil])
  }

  /// The compact product (what the gateway asks for) has no gusts, dew point or UV.
  @Test func theCompactProductLeavesGustsDewPointAndUVMissing() throws {
    let compact = try Self.forecast(now: 1_770_411_600)
    #expect(compact.current.dewPoint == nil)
    #expect(compact.hourly.allSatisfy { $0.windGusts == nil })
    #expect(compact.hourly.map(\.windSpeed) == [6.0, 6.4, nil])
    #expect(compact.daily.allSatisfy { $0.uvIndexMaximum == nil })
  }

  @Test func theLargeFrameCarriesAmountsWindsSumsAndDewPoint() throws {
    let forecast = try Self.complete()
    let standard = try forecast.frame(fetchedAt: Self.evening, service: .metNorway).encoded()
    let large = try forecast.largeFrame(standard: standard, fetchedAt: Self.evening)
    try large.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      #expect(view.value(LargeLayout.dewPoint) == -25)
      #expect(
        (0..<5).map { view.value(LargeLayout.hourlyPrecipitationAmount, $0) } == [5, 3, 3, 10, nil])
      #expect(view.value(LargeLayout.hourlyWindSpeed, 1) == 12)
      #expect(view.value(LargeLayout.hourlyWindGust, 0) == 19)
      #expect((0..<3).map { view.value(LargeLayout.dailyPrecipitationSum, $0) } == [40, 25, nil])
      #expect((0..<3).map { view.value(LargeLayout.dailyWindMaximum, $0) } == [15, 21, 7])
      #expect((0..<3).map { view.value(LargeLayout.dailyUVMaximum, $0) } == [0, 21, nil])
    }
  }

  @Test func timesOutsideTheServicesFormatAreMalformed() {
    #expect(METNorwayForecastResponse.unixTime("2026-02-06T21:00:00Z") == 1_770_411_600)
    for text in ["2026-02-06 21:00:00Z", "2026-02-06T21:00:00", "2026-13-06T21:00:00Z", ""] {
      #expect(METNorwayForecastResponse.unixTime(text) == nil, "\(text)")
    }
  }

  @Test func coordinatesAreWrittenWithAtMostFourDecimals() {
    #expect(fourDecimalText(599_139) == "59.9139")
    #expect(fourDecimalText(107_500) == "10.75")
    #expect(fourDecimalText(-1) == "-0.0001")
    #expect(fourDecimalText(-1_512_093) == "-151.2093")
    #expect(fourDecimalText(0) == "0")
    let key = METNorwayProvider.key(GeoPoint(latitude: 59.91394999, longitude: -0.00004))
    #expect(fourDecimalText(key.latitude) == "59.9139")
    #expect(fourDecimalText(key.longitude) == "0")
  }

  @Test func aUserAgentMustNameTheApplicationAndAContact() {
    #expect(identifiesOperator("acme-displays/1.0 ops@example.com"))
    #expect(identifiesOperator("acme/2 https://acme.example/contact"))
    for agent in ["curl/8.5", "ops@example.com", "https://acme.example", "acme/1 \u{7}@x", ""] {
      #expect(!identifiesOperator(agent), "\(agent)")
    }
  }

  /// Points from devices are many; the memory keeps `remembered-points` of them, the least
  /// recently used going first.
  @Test func theMemoryOfAnswersIsBounded() throws {
    let response = try JSONDecoder().decode(
      METNorwayForecastResponse.self, from: Data(Self.body.utf8))
    let memory = METNorwayProvider.Memory(capacity: 2)
    func key(_ latitude: Double) -> METNorwayProvider.Memory.Key {
      METNorwayProvider.key(GeoPoint(latitude: latitude, longitude: 10))
    }
    let entry = METNorwayProvider.Memory.Entry(response: response, lastModified: nil, expires: nil)
    memory.set(entry, for: key(1))
    memory.set(entry, for: key(2))
    _ = memory.entry(key(1))
    for latitude in 3...100 { memory.set(entry, for: key(Double(latitude))) }
    #expect(memory.count == 2)
    #expect(memory.entry(key(100)) != nil && memory.entry(key(99)) != nil)
    #expect(memory.entry(key(1)) == nil)
  }
}
