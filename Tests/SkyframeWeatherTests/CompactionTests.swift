import SkyframeCodec
import Testing

@testable import SkyframeWeather

@Suite struct CompactionTests {
  /// 2024-01-15 00:00 UTC.
  static let midnight: Int64 = 1_705_276_800

  func forecast(
    offset: Int = 0, hours: [Forecast.Hour] = [], days: [Forecast.Day] = [], step: Int = 1
  )
    -> Forecast
  {
    Forecast(
      place: .init(
        name: "Testville", countryCode: "de", latitude: 52.520_004, longitude: -13.404_996),
      utcOffsetSeconds: offset, current: .init(time: Self.midnight + 3_600, temperature: 21.55),
      hourly: hours, hourlyStepHours: step, daily: days)
  }

  /// Quarter hours from `start`, dry (0) or wet (millimetres), nil for a missing value.
  func withQuarters(_ values: [Double?], from start: Int64) -> Forecast {
    var source = forecast()
    source.precipitationSteps = values.enumerated().map {
      Forecast.PrecipitationStep(
        start: start + Int64($0.offset) * 900, seconds: 900, millimetres: $0.element)
    }
    return source
  }

  @Test func theNextHoursPrecipitationSaysWhenItStartsOrStops() {
    let start = Self.midnight
    let now = start + 300  // 5 minutes into the first quarter
    // Dry now, 0.1 mm (the threshold) in the third quarter: starts in 25 minutes.
    #expect(
      withQuarters([0, 0.05, 0.1, 0.3, 0], from: start).nextHourPrecipitation(at: now)
        == NextHourPrecipitation(precipitatingNow: false, minutesUntilChange: 25))
    // Wet now, dry from the second quarter: stops in 10 minutes.
    #expect(
      withQuarters([0.8, 0, 0, 0, 0], from: start).nextHourPrecipitation(at: now)
        == NextHourPrecipitation(precipitatingNow: true, minutesUntilChange: 10))
    // Dry for the whole hour, and wet all of it.
    #expect(
      withQuarters([0, 0, 0, 0, 0, 0.4], from: start).nextHourPrecipitation(at: now)
        == NextHourPrecipitation(precipitatingNow: false, minutesUntilChange: nil))
    #expect(
      withQuarters([1, 1, 1, 1, 1], from: start).nextHourPrecipitation(at: now)
        == NextHourPrecipitation(precipitatingNow: true, minutesUntilChange: nil))
    // Not enough to say: a gap in the hour, steps that end too soon, or none for now.
    #expect(withQuarters([0, nil, 0, 0, 0], from: start).nextHourPrecipitation(at: now) == nil)
    #expect(withQuarters([0, 0, 0], from: start).nextHourPrecipitation(at: now) == nil)
    #expect(withQuarters([0, 0, 0, 0, 0], from: start + 900).nextHourPrecipitation(at: now) == nil)
    #expect(forecast().nextHourPrecipitation(at: now) == nil)
    // And the frame carries it.
    let frame = withQuarters([0, 0.05, 0.1, 0.3, 0], from: start).frame(
      fetchedAt: now, service: .openMeteo)
    #expect(frame.precipitationNextHour?.minutesUntilChange == 25)
  }

  @Test func valuesAreRoundedToTheFrameUnits() throws {
    var source = forecast()
    source.current.apparentTemperature = -0.04
    source.current.pressure = 1_013.25
    source.current.windSpeed = 3.449
    source.current.visibility = 24_135
    source.current.relativeHumidity = 86.5
    source.current.uvIndex = 3.46
    let frame = source.frame(fetchedAt: Self.midnight + 4_000, service: .openMeteo, requestID: 9)
    #expect(frame.current.temperature == 216)
    #expect(frame.current.feelsLike == 0)
    #expect(frame.current.pressure == 10_133)
    #expect(frame.current.windSpeed == 34)
    #expect(frame.current.visibility == 2_414)
    #expect(frame.current.humidity == 87)
    #expect(frame.current.uvIndex == 35)
    #expect(frame.latitude == 5_252_000)
    #expect(frame.longitude == -1_340_500)
    #expect(frame.country == CountryCode("DE"))
    #expect(frame.requestID == 9)
    #expect(frame.fetchedAt == UInt32(Self.midnight + 4_000))
    #expect(frame.observedAt == UInt32(Self.midnight + 3_600))
    _ = try frame.encoded()
  }

  @Test func valuesOutsideTheFrameAreClampedOrDropped() throws {
    var source = forecast()
    source.current.temperature = .nan
    source.current.apparentTemperature = 150
    source.current.windGusts = 1_000
    source.current.windDirection = 1e300
    source.current.weatherCode = 150
    source.current.relativeHumidity = -3
    source.current.visibility = .infinity
    let frame = source.frame(fetchedAt: Self.midnight, service: .openMeteo)
    #expect(frame.current.temperature == nil)
    #expect(frame.current.feelsLike == 1_000)
    #expect(frame.current.windGust == 5_000)
    #expect(frame.current.weatherCode == nil)
    #expect(frame.current.humidity == 0)
    #expect(frame.current.visibility == nil)
    #expect(frame.current.windDirection.map { $0 < 360 } ?? true)
    _ = try frame.encoded()
  }

  @Test func windDirectionsWrapToACompass() {
    for (degrees, expected) in [(360.0, 0), (359.6, 0), (-10, 350), (725, 5), (90.4, 90)]
      as [(Double, UInt16)]
    {
      var source = forecast()
      source.current.windDirection = degrees
      #expect(
        source.frame(fetchedAt: Self.midnight, service: .openMeteo).current.windDirection
          == expected)
    }
  }

  @Test func hourlySlotsStartAtTheHourThatHoldsTheFetchTime() {
    let hours = (0..<30).map {
      Forecast.Hour(time: Self.midnight + Int64($0) * 3_600, temperature: Double($0))
    }
    let frame = forecast(hours: hours).frame(
      fetchedAt: Self.midnight + 5 * 3_600 + 1_799, service: .openMeteo)
    #expect(frame.hourlyStart == UInt32(Self.midnight + 5 * 3_600))
    #expect(frame.hourlyStepHours == 1)
    #expect(frame.hourly[0].temperature == 50)
    #expect(frame.hourly[11].temperature == 160)
  }

  @Test func aGapUpstreamLeavesAMissingSlotInsteadOfShiftingTheRest() {
    var hours = (0..<12).map {
      Forecast.Hour(time: Self.midnight + Int64($0) * 3_600, temperature: Double($0))
    }
    hours.remove(at: 4)
    let frame = forecast(hours: hours).frame(fetchedAt: Self.midnight, service: .openMeteo)
    #expect(frame.hourly[3].temperature == 30)
    #expect(frame.hourly[4].temperature == nil)
    #expect(frame.hourly[5].temperature == 50)
  }

  @Test func threeHourStepsCoverThirtySixHours() {
    let hours = (0..<40).map {
      Forecast.Hour(time: Self.midnight + Int64($0) * 10_800, temperature: Double($0))
    }
    let frame = forecast(hours: hours, step: 3).frame(
      fetchedAt: Self.midnight + 11_000, service: .openWeatherMap)
    #expect(frame.hourlyStepHours == 3)
    #expect(frame.hourlyStart == UInt32(Self.midnight + 10_800))
    #expect(frame.hourly[11].temperature == 120)
  }

  @Test func dayZeroIsTheLocalDateAtFetchTime() {
    // 18:30 UTC is already the next day in Kathmandu (UTC+5:45).
    let days = (19_736...19_745).map {
      Forecast.Day(date: $0, minimum: Double($0 - 19_736), maximum: 30)
    }
    let frame = forecast(offset: 20_700, days: days).frame(
      fetchedAt: Self.midnight + 66_600, service: .openMeteo)
    #expect(frame.dailyStart == 19_738)
    #expect(frame.daily[0].minimum == 20)
    #expect(frame.daily[6].minimum == 80)
    #expect(frame.utcOffsetMinutes == 345)
    // West of Greenwich the same instant is still the 15th.
    let west = forecast(offset: -12_600, days: days).frame(
      fetchedAt: Self.midnight + 66_600, service: .openMeteo)
    #expect(west.dailyStart == 19_737)
  }

  @Test func polarDayAndNightHaveNoSunTimes() {
    let today = 19_737
    let light = forecast(days: [
      Forecast.Day(date: today, sunrise: nil, sunset: nil, daylightSeconds: 86_400)
    ])
    let dark = forecast(days: [
      Forecast.Day(date: today, sunrise: nil, sunset: nil, daylightSeconds: 0)
    ])
    let normal = forecast(days: [
      Forecast.Day(
        date: today, sunrise: Self.midnight + 27_000, sunset: Self.midnight + 58_000,
        daylightSeconds: 31_000)
    ])
    #expect(light.frame(fetchedAt: Self.midnight, service: .openMeteo).sun == .polarDay)
    #expect(dark.frame(fetchedAt: Self.midnight, service: .openMeteo).sun == .polarNight)
    let frame = normal.frame(fetchedAt: Self.midnight, service: .openMeteo)
    #expect(frame.sun == .normal)
    #expect(frame.sunrise == UInt32(Self.midnight + 27_000))
    #expect(frame.sunset == UInt32(Self.midnight + 58_000))
  }

  @Test func longNamesAreCutAtACharacter() {
    var source = forecast()
    source.place.name = "Llanfairpwllgwyngyllgogerychwyrndrobwllllantysiliogogogoch"
    #expect(source.frame(fetchedAt: Self.midnight, service: .openMeteo).name.count == 24)
  }

  /// Large frame alerts (frame-profiles.md §2.1): those in force or to come, worst first, then
  /// earliest onset, then as listed; three at most; the count and worst in the summary fields.
  /// One Call's minutes start at the present minute (12:07 here): the first window (12:00-12:15)
  /// is what is still to fall in it, from 12:07, not missing; the next three are whole quarters.
  @Test func minuteDataFromThePresentMinuteFillsTheFirstWindow() throws {
    let quarter = Self.midnight + 12 * 3_600
    let now = quarter + 7 * 60 + 30  // 12:07:30
    var source = forecast()
    source.precipitationSteps = (0..<60).map { minute in
      Forecast.PrecipitationStep(
        start: quarter + 7 * 60 + Int64(minute) * 60, seconds: 60, millimetres: 0.1)
    }
    let standard = try source.frame(fetchedAt: now, service: .openWeatherMap).encoded()
    let large = try source.largeFrame(standard: standard, fetchedAt: now)
    try large.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      #expect(view.value(LargeLayout.minutelyStart) == quarter)
      // 8 minutes of 0.1 mm, then 15; the fourth quarter (12:45-13:00) is whole too.
      #expect((0..<4).map { view.value(LargeLayout.minutelyPrecipitation, $0) } == [8, 15, 15, 15])
    }
    // A minute missing after the present one still leaves the window missing.
    source.precipitationSteps?.remove(at: 3)
    let gap = try source.largeFrame(standard: standard, fetchedAt: now)
    try gap.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      #expect(view.value(LargeLayout.minutelyPrecipitation, 0) == nil)
    }
  }

  /// The same weather a quarter hour later (a dry next hour both times) is the same content:
  /// `minutely_start` moved, and a display that sent the earlier check is told `unchanged`.
  @Test func aQuarterHourPassingAloneLeavesTheLargeContentCheck() throws {
    let now = Self.midnight + 12 * 3_600 + 120
    let source = withQuarters(Array(repeating: 0, count: 8), from: Self.midnight + 12 * 3_600)
    func check(at time: Int64) throws -> (UInt32, Int64?) {
      let standard = try source.frame(fetchedAt: time, service: .openMeteo).encoded()
      let large = try source.largeFrame(standard: standard, fetchedAt: time)
      // The same hourly start both times (an hour passing is a change).
      return try large.withUnsafeBytes { bytes in
        let view = try ProfileView(checking: bytes)
        return (view.contentCheck, view.value(LargeLayout.minutelyStart))
      }
    }
    let (first, firstStart) = try check(at: now)
    let (later, laterStart) = try check(at: now + 900)
    #expect(firstStart != laterStart)
    #expect(first == later)
  }

  @Test func theLargeFrameCarriesTheThreeAlertsThatMatterMost() throws {
    let now = Self.midnight + 3_600
    var source = forecast()
    source.alerts = [
      .init(severity: .minor, start: now - 60, end: now + 60, event: "minor"),
      .init(severity: .extreme, start: now - 7_200, end: now - 1, event: "ended"),
      .init(severity: .severe, start: now + 600, end: nil, event: "severe later"),
      .init(severity: nil, start: nil, end: nil, event: "no severity"),
      .init(severity: .severe, start: now - 600, end: now + 600, event: "severe now"),
      .init(severity: .severe, start: now - 600, end: now + 900, event: "severe now, listed after"),
    ]
    let standard = try source.frame(fetchedAt: now, service: .openMeteo).encoded()
    let large = try source.largeFrame(standard: standard, fetchedAt: now)
    try large.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      let events = (0..<3).map {
        String(decoding: view.text(LargeLayout.alertEvent, $0), as: UTF8.self)
      }
      #expect(events == ["severe now", "severe now, listed after", "severe later"])
      #expect(view.value(LargeLayout.alertSeverity, 0) == 5)
      #expect(view.value(LargeLayout.alertOnset, 2) == now + 600)
      #expect(view.value(LargeLayout.alertEnd, 2) == nil)
    }
    // Two alerts: the third slot stays missing.
    source.alerts = [
      .init(severity: nil, start: nil, end: nil, event: "no severity"),
      .init(severity: .minor, start: now, end: now + 60, event: "minor"),
    ]
    let two = try source.largeFrame(standard: standard, fetchedAt: now)
    try two.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      #expect(String(decoding: view.text(LargeLayout.alertEvent, 0), as: UTF8.self) == "minor")
      #expect(view.value(LargeLayout.alertSeverity, 1) == 2)
      #expect(view.value(LargeLayout.alertSeverity, 2) == nil)
      #expect(view.text(LargeLayout.alertEvent, 2).isEmpty)
    }
  }
}
