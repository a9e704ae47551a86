import SkyframeCodec

extension Forecast {
  /// Compacts the forecast into a frame as seen at `now` (Unix seconds; `fetchedAt` when nil):
  /// hourly slots from the hour that contains it, daily slots from the place's local date then.
  /// `fetched_at` is `fetchedAt`, the time of the call, even when the frame is composed later
  /// from the same data (`ForecastSeries`).
  ///
  /// Every value is rounded to the frame's unit and clamped to its range; values that are not
  /// finite, and codes outside WMO's table, become missing. The result always encodes.
  public func frame(
    fetchedAt: Int64, at now: Int64? = nil, service: WeatherService, status: FrameStatus = .ok,
    requestID: UInt16 = 0, slotIndex: UInt8 = 0, slotCount: UInt8 = 1
  ) -> WeatherFrame {
    let now = now ?? fetchedAt
    var frame = WeatherFrame()
    frame.status = status
    frame.requestID = requestID
    frame.slotCount = max(slotCount, 1)
    frame.slotIndex = min(slotIndex, frame.slotCount - 1)
    frame.service = service

    frame.latitude = scaled(place.latitude, 100_000, -9_000_000...9_000_000)
    frame.longitude = scaled(place.longitude, 100_000, -18_000_000...18_000_000)
    frame.country = place.countryCode.flatMap { CountryCode($0) }
    frame.name = FrameName(truncating: place.name)
    frame.observedAt = current.time.flatMap(unixTime)
    frame.fetchedAt = unixTime(fetchedAt)
    let offsetMinutes = utcOffsetSeconds / 60
    frame.utcOffsetMinutes = (-720...840).contains(offsetMinutes) ? Int16(offsetMinutes) : nil

    frame.current.temperature = temperature(current.temperature)
    frame.current.feelsLike = temperature(current.apparentTemperature)
    frame.current.pressure = scaled(current.pressure, 10, 0...20_000)
    frame.current.windSpeed = scaled(current.windSpeed, 10, 0...5_000)
    frame.current.windGust = scaled(current.windGusts, 10, 0...5_000)
    frame.current.windDirection = current.windDirection.flatMap(compassDegrees)
    frame.current.visibility = scaled(current.visibility, 0.1, 0...0xFFFE)
    frame.current.precipitation = scaled(current.precipitation, 10, 0...0xFFFE)
    frame.current.humidity = scaled(current.relativeHumidity, 1, 0...100)
    frame.current.weatherCode = weatherCode(current.weatherCode)
    frame.current.cloudCover = scaled(current.cloudCover, 1, 0...100)
    frame.current.uvIndex = scaled(current.uvIndex, 10, 0...250)
    frame.isDay = current.isDay

    fillHourly(&frame, now: now)
    fillDaily(&frame, now: now)
    frame.precipitationNextHour = nextHourPrecipitation(at: now)
    frame.alerts = alertSummary(at: now)
    return frame
  }

  /// How many alerts are in force at `now` and the worst of them (an alert without a severity
  /// counts as `unknown`); nil when the service says nothing about alerts.
  public func alertSummary(at now: Int64) -> AlertSummary? {
    guard let alerts else { return nil }
    // One pass, no arrays: compaction allocates nothing.
    var count = 0
    var highest = AlertSummary.Severity.unknown
    for alert in alerts where alert.isInForce(at: now) {
      count += 1
      highest = max(highest, alert.severity ?? .unknown)
    }
    guard count > 0 else { return AlertSummary.none }
    return AlertSummary(count: UInt8(clamping: count), highest: highest)
  }

  /// Whether it is wet at `now` and in how many minutes that changes, from the short steps; nil
  /// when the steps do not say what it is like now and over the whole next hour.
  public func nextHourPrecipitation(at now: Int64) -> NextHourPrecipitation? {
    guard let steps = precipitationSteps,
      let current = steps.firstIndex(where: { $0.start <= now && now < $0.start + $0.seconds }),
      let wetNow = steps[current].isWet
    else { return nil }
    var coveredUntil = steps[current].start + steps[current].seconds
    for step in steps[(current + 1)...] {
      // A gap or a missing value: what happens after it is unknown.
      guard step.start == coveredUntil, let wet = step.isWet else { break }
      if step.start - now > 3_600 { break }
      if wet != wetNow {
        return NextHourPrecipitation(
          precipitatingNow: wetNow, minutesUntilChange: UInt8((step.start - now + 59) / 60))
      }
      coveredUntil = step.start + step.seconds
    }
    guard coveredUntil >= now + 3_600 else { return nil }
    return NextHourPrecipitation(precipitatingNow: wetNow, minutesUntilChange: nil)
  }

  private func fillHourly(_ frame: inout WeatherFrame, now: Int64) {
    guard let start = hourlyStart(at: now) else { return }
    frame.hourlyStart = unixTime(start)
    frame.hourlyStepHours = UInt8(hourlyStepHours)
    forEachHourlySlot(from: start, count: WeatherFrame.hourlyCount) { slot, hour in
      frame.hourly[slot] = WeatherFrame.HourlySlot(
        temperature: temperature(hour.temperature),
        weatherCode: weatherCode(hour.weatherCode),
        precipitationProbability: scaled(hour.precipitationProbability, 1, 0...100))
    }
  }

  /// The start of hourly slot 0 at `now`: the last point starting at or before it (the first, if
  /// all start later); nil without usable hourly data.
  func hourlyStart(at now: Int64) -> Int64? {
    let step = Int64(hourlyStepHours) * 3_600
    guard step > 0, step <= 24 * 3_600, !hourly.isEmpty else { return nil }
    var first = 0
    while first + 1 < hourly.count, hourly[first + 1].time <= now { first += 1 }
    return hourly[first].time
  }

  /// Each hourly point from `start` on with the slot its own time names, below `count`: a gap
  /// upstream leaves a missing slot instead of shifting every later hour.
  func forEachHourlySlot(from start: Int64, count: Int, _ body: (Int, Hour) -> Void) {
    let step = Int64(hourlyStepHours) * 3_600
    for hour in hourly where hour.time >= start {
      let offset = hour.time - start
      guard offset % step == 0 else { continue }
      let slot = Int(offset / step)
      guard slot < count else { break }
      body(slot, hour)
    }
  }

  private func fillDaily(_ frame: inout WeatherFrame, now: Int64) {
    let today = CivilDate.localDay(now, utcOffsetSeconds: utcOffsetSeconds)
    guard (0...0xFFFE).contains(today) else { return }
    frame.dailyStart = UInt16(today)
    frame.moon = Moon.phase(onLocalDay: today, utcOffsetSeconds: utcOffsetSeconds)
    for day in daily {
      let slot = day.date - today
      guard slot >= 0, slot < WeatherFrame.dailyCount else { continue }
      frame.daily[slot] = WeatherFrame.DailySlot(
        minimum: temperature(day.minimum),
        maximum: temperature(day.maximum),
        weatherCode: weatherCode(day.weatherCode),
        precipitationProbability: scaled(day.precipitationProbability, 1, 0...100))
      if slot == 0 { fillSun(&frame, from: day) }
    }
  }

  private func fillSun(_ frame: inout WeatherFrame, from day: Day) {
    let sun = day.sun
    frame.sun = sun.state
    frame.sunrise = sun.sunrise
    frame.sunset = sun.sunset
  }
}

func scaled<T: FixedWidthInteger>(
  _ value: Double?, _ scale: Double, _ range: ClosedRange<T>
)
  -> T?
{
  guard let value, value.isFinite else { return nil }
  // On the decimal the service wrote: 3.25 m/s is 6.5 half steps, not 6.4999….
  let rounded = roundedHalfAway(value, times: scale)
  // Through Int64: the generic Double <-> T conversions are many times slower.
  if rounded <= Double(Int64(range.lowerBound)) { return range.lowerBound }
  if rounded >= Double(Int64(range.upperBound)) { return range.upperBound }
  return T(truncatingIfNeeded: Int64(rounded))
}

func temperature(_ celsius: Double?) -> Int16? {
  scaled(celsius, 10, -1_000...1_000)
}

func weatherCode(_ code: Int?) -> UInt8? {
  guard let code, (0...99).contains(code) else { return nil }
  return UInt8(code)
}

func compassDegrees(_ degrees: Double) -> UInt16? {
  guard degrees.isFinite else { return nil }
  let whole = Int(degrees.truncatingRemainder(dividingBy: 360).rounded()) % 360
  return UInt16(whole < 0 ? whole + 360 : whole)
}

func unixTime(_ seconds: Int64) -> UInt32? {
  (1...Int64(UInt32.max)).contains(seconds) ? UInt32(seconds) : nil
}
