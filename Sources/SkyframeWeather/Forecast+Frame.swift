import SkyframeCodec

extension Forecast {
  /// Compacts the forecast into a frame as seen at `now` (Unix seconds; `fetchedAt` when nil):
  /// hourly slots from the hour that contains it, daily slots from the place's local date then.
  /// `fetched_at` is `fetchedAt`, the time of the call, even when the frame is composed later
  /// from the same data (`ForecastSeries`).
  ///
  /// Every value is rounded to its row's scale and clamped to its range (`StandardLayout`);
  /// values that are not finite, and codes outside the row's range, become missing. The result
  /// always encodes.
  public func frame(
    fetchedAt: Int64, at now: Int64? = nil, service: WeatherService, status: FrameStatus = .ok,
    requestID: UInt16 = 0, slotIndex: UInt8 = 0, slotCount: UInt8 = 1
  ) -> WeatherFrame {
    typealias S = StandardLayout
    let now = now ?? fetchedAt
    var frame = WeatherFrame()
    frame.status = status
    frame.requestID = requestID
    frame.slotCount = max(slotCount, 1)
    frame.slotIndex = min(slotIndex, frame.slotCount - 1)
    frame.service = service

    frame.latitude = scaled(place.latitude, S.latitude)
    frame.longitude = scaled(place.longitude, S.longitude)
    frame.country = place.countryCode.flatMap { CountryCode($0) }
    frame.name = FrameName(truncating: place.name)
    frame.observedAt = current.time.flatMap(unixTime)
    frame.fetchedAt = unixTime(fetchedAt)
    frame.utcOffsetMinutes = within(utcOffsetSeconds / 60, S.utcOffset)

    frame.current.temperature = scaled(current.temperature, S.temperature)
    frame.current.feelsLike = scaled(current.apparentTemperature, S.feelsLike)
    frame.current.pressure = scaled(current.pressure, S.pressure)
    frame.current.windSpeed = scaled(current.windSpeed, S.windSpeed)
    frame.current.windGust = scaled(current.windGusts, S.windGust)
    frame.current.windDirection = current.windDirection.flatMap(compassDegrees)
    frame.current.visibility = scaled(current.visibility, S.visibility)
    frame.current.precipitation = scaled(current.precipitation, S.precipitation)
    frame.current.humidity = scaled(current.relativeHumidity, S.humidity)
    frame.current.weatherCode = within(current.weatherCode, S.weatherCode)
    frame.current.cloudCover = scaled(current.cloudCover, S.cloudCover)
    frame.current.uvIndex = scaled(current.uvIndex, S.uvIndex)
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
    typealias S = StandardLayout
    guard let start = hourlyStart(at: now) else { return }
    frame.hourlyStart = unixTime(start)
    frame.hourlyStepHours = UInt8(hourlyStepHours)
    forEachHourlySlot(from: start, count: WeatherFrame.hourlyCount) { slot, hour in
      frame.hourly[slot] = WeatherFrame.HourlySlot(
        temperature: scaled(hour.temperature, S.hourlyTemperature),
        weatherCode: within(hour.weatherCode, S.hourlyWeatherCode),
        precipitationProbability: scaled(
          hour.precipitationProbability, S.hourlyPrecipitationProbability))
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
    typealias S = StandardLayout
    let today = CivilDate.localDay(now, utcOffsetSeconds: utcOffsetSeconds)
    guard let start: UInt16 = within(today, S.dailyStart) else { return }
    frame.dailyStart = start
    frame.moon = Moon.phase(onLocalDay: today, utcOffsetSeconds: utcOffsetSeconds)
    for day in daily {
      let slot = day.date - today
      guard slot >= 0, slot < WeatherFrame.dailyCount else { continue }
      frame.daily[slot] = WeatherFrame.DailySlot(
        minimum: scaled(day.minimum, S.dailyMinimum),
        maximum: scaled(day.maximum, S.dailyMaximum),
        weatherCode: within(day.weatherCode, S.dailyWeatherCode),
        precipitationProbability: scaled(
          day.precipitationProbability, S.dailyPrecipitationProbability))
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

/// `value` (in `field`'s unit) as its wire integer: rounded half away from zero to the row's
/// scale, clamped to its range; nil when missing or not finite.
@inline(__always) func scaled<T: FixedWidthInteger>(
  _ value: Double?, _ field: LayoutField, as type: T.Type = T.self
)
  -> T?
{
  guard let value, value.isFinite else { return nil }
  let rounded = roundedHalfAway(value, inStepsOf: field)
  // Through Int64: the generic Double <-> T conversions are many times slower.
  let lowest = field.minimum ?? Int64(T.min)
  let highest = field.maximum ?? Int64(T.max)
  if rounded <= Double(lowest) { return T(truncatingIfNeeded: lowest) }
  if rounded >= Double(highest) { return T(truncatingIfNeeded: highest) }
  return T(truncatingIfNeeded: Int64(rounded))
}

/// A whole number (a code, minutes, a day) as `field`'s wire integer; nil when missing or
/// outside the row's range.
@inline(__always) func within<Whole: BinaryInteger, T: FixedWidthInteger>(
  _ value: Whole?, _ field: LayoutField, as type: T.Type = T.self
) -> T? {
  guard let value else { return nil }
  let wide = Int64(clamping: value)
  guard field.minimum.map({ wide >= $0 }) ?? true, field.maximum.map({ wide <= $0 }) ?? true
  else { return nil }
  return T(exactly: wide)
}

extension ProfileWriter {
  /// Element `index` of `field` from a value in its unit (`scaled`); nil writes the sentinel.
  mutating func set(_ field: LayoutField, _ index: Int = 0, measured value: Double?) {
    set(field, index, scaled(value, field, as: Int64.self))
  }
}

func compassDegrees(_ degrees: Double) -> UInt16? {
  guard degrees.isFinite else { return nil }
  let whole = Int(degrees.truncatingRemainder(dividingBy: 360).rounded()) % 360
  return UInt16(whole < 0 ? whole + 360 : whole)
}

/// Seconds as a time field holds them (every time row has one range: 1 on, 0 is missing).
func unixTime(_ seconds: Int64) -> UInt32? {
  within(seconds, StandardLayout.fetchedAt)
}

/// `value` in `field`'s wire steps, rounded to a whole number, halves away from zero
/// (frame-v1.md §6.8), on the decimal the service wrote (`ExactDecimal`): 3.25 m/s at 0.5 m/s
/// steps is 6.5 steps and rounds to 7, not 6.4999…. A value that is no short decimal (a binary
/// result such as 11.8 / 3.6) is rounded in binary. The factor is the row's `stepFraction`.
///
/// Only a product near a half needs the decimal: in binary, `value × steps / units` is within a
/// few units in the last place of the exact product, so away from a half its rounding is the
/// exact one. Most values take that path and skip the decimal's search for its digits.
@inline(__always) func roundedHalfAway(_ value: Double, inStepsOf field: LayoutField) -> Double {
  let (steps, units) = field.stepFraction
  let product = value * Double(steps) / Double(units)
  let slack = max(1e-6, product.magnitude * 1e-12)
  if (product - product.rounded(.down) - 0.5).magnitude > slack { return product.rounded() }
  if let decimal = ExactDecimal(value), let whole = decimal.rounded(times: steps, over: units) {
    return Double(whole)
  }
  return (value * field.stepsPerUnit).rounded()
}
