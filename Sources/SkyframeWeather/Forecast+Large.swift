import SkyframeCodec

extension Forecast {
  /// The `large` frame (`schemas/frame-profiles.md` §2) as seen at `fetchedAt`, built on the
  /// `standard` frame compacted from the same forecast (`standard`, encoded): the fields both
  /// carry come from it, so the two never disagree; then 48 hourly steps, 8 days, the dew point,
  /// the 15-minute steps, the alerts and the 48-byte name. Values are rounded and clamped as for
  /// `standard`; what the service lacks stays at its sentinel.
  public func writeLargeFrame(
    standard: UnsafeRawBufferPointer, fetchedAt now: Int64,
    into buffer: UnsafeMutableRawBufferPointer
  ) throws(FrameError) {
    typealias L = LargeLayout
    var out = ProfileWriter(buffer, kind: .large)
    L.fillShared(&out, from: ProfileView(unchecked: standard.baseAddress!, kind: .standard))
    out.set(L.name, text: FixedText<48>(truncating: place.name))
    out.set(L.dewPoint, measured: current.dewPoint)
    fillLargeHourly(&out, now: now)
    fillLargeDaily(&out, now: now)
    fillMinutely(&out, now: now)
    fillAlerts(&out, now: now)
    try out.seal()
  }

  /// `writeLargeFrame` into a new array of 960 bytes.
  public func largeFrame(standard: [UInt8], fetchedAt: Int64) throws(FrameError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: LargeLayout.size)
    var failure: FrameError?
    standard.withUnsafeBytes { source in
      bytes.withUnsafeMutableBytes { target in
        do throws(FrameError) {
          try writeLargeFrame(standard: source, fetchedAt: fetchedAt, into: target)
        } catch { failure = error }
      }
    }
    if let failure { throw failure }
    return bytes
  }

  private func fillLargeHourly(_ out: inout ProfileWriter, now: Int64) {
    typealias L = LargeLayout
    guard let start = hourlyStart(at: now) else { return }
    forEachHourlySlot(from: start, count: L.hourlyCount) { slot, hour in
      out.set(L.hourlyTemperature, slot, measured: hour.temperature)
      out.set(
        L.hourlyWeatherCode, slot, within(hour.weatherCode, L.hourlyWeatherCode, as: UInt8.self))
      out.set(L.hourlyPrecipitationProbability, slot, measured: hour.precipitationProbability)
      out.set(L.hourlyPrecipitationAmount, slot, measured: hour.precipitation)
      out.set(L.hourlyWindSpeed, slot, measured: hour.windSpeed)
      out.set(L.hourlyWindGust, slot, measured: hour.windGusts)
    }
  }

  private func fillLargeDaily(_ out: inout ProfileWriter, now: Int64) {
    typealias L = LargeLayout
    let today = CivilDate.localDay(now, utcOffsetSeconds: utcOffsetSeconds)
    guard within(today, L.dailyStart, as: UInt16.self) != nil else { return }
    for day in daily {
      let slot = day.date - today
      guard slot >= 0, slot < L.dailyCount else { continue }
      out.set(L.dailyMinimum, slot, measured: day.minimum)
      out.set(L.dailyMaximum, slot, measured: day.maximum)
      out.set(L.dailyWeatherCode, slot, within(day.weatherCode, L.dailyWeatherCode, as: UInt8.self))
      out.set(L.dailyPrecipitationProbability, slot, measured: day.precipitationProbability)
      out.set(L.dailyPrecipitationSum, slot, measured: day.precipitationSum)
      out.set(L.dailyUVMaximum, slot, measured: day.uvIndexMaximum)
      out.set(L.dailyWindMaximum, slot, measured: day.windSpeedMaximum)
      let sun = day.sun
      out.set(L.dailySun, slot, sun.state?.rawValue)
      out.set(L.dailySunrise, slot, sun.sunrise)
      out.set(L.dailySunset, slot, sun.sunset)
    }
  }

  /// Four 15-minute amounts from the short steps: a window is known only when steps with values
  /// cover all of it — window 0 only from the present minute on (frame-profiles.md §2: One
  /// Call's minutes start now; what fell earlier in the window is past).
  private func fillMinutely(_ out: inout ProfileWriter, now: Int64) {
    typealias L = LargeLayout
    guard let steps = precipitationSteps, !steps.isEmpty, let origin = unixTime(now - now % 900)
    else { return }
    var any = false
    for window in 0..<L.minutelyCount {
      let from = Int64(origin) + Int64(window) * 900
      let to = from + 900
      let needed = window == 0 ? to - max(from, now - now % 60) : 900
      var covered: Int64 = 0
      var amount = WindowAmount()
      var complete = true
      for step in steps where step.start >= from && step.start + step.seconds <= to {
        guard let millimetres = step.millimetres, millimetres.isFinite else {
          complete = false
          break
        }
        covered += step.seconds
        amount.add(millimetres, over: step.seconds)
      }
      guard complete, covered >= needed else { continue }
      out.set(L.minutelyPrecipitation, window, amount.steps)
      any = true
    }
    if any { out.set(L.minutelyStart, origin) }
  }

  /// The alerts in force at `now` or to come, worst first, then earliest, then as listed; at most
  /// three (frame-profiles.md §2.1). Chosen by three passes over the list, each taking the first
  /// alert that ranks above the rest not yet taken: no arrays, so compaction allocates nothing.
  private func fillAlerts(_ out: inout ProfileWriter, now: Int64) {
    typealias L = LargeLayout
    guard let alerts else { return }
    /// Whether `a` (at `i` in the list) goes before `b` (at `j`).
    func ranksBefore(_ a: Alert, _ i: Int, _ b: Alert, _ j: Int) -> Bool {
      let (severityA, severityB) = (a.severity ?? .unknown, b.severity ?? .unknown)
      if severityA != severityB { return severityA > severityB }
      let (startA, startB) = (a.start ?? .min, b.start ?? .min)
      if startA != startB { return startA < startB }
      return i < j
    }
    var previous: (alert: Alert, index: Int)?
    for slot in 0..<L.alertCount {
      var best: (alert: Alert, index: Int)?
      for (index, alert) in alerts.enumerated() where alert.end.map({ now < $0 }) ?? true {
        // Only those ranking after the one taken for the slot before.
        if let previous, !ranksBefore(previous.alert, previous.index, alert, index) { continue }
        if let current = best, !ranksBefore(alert, index, current.alert, current.index) {
          continue
        }
        best = (alert, index)
      }
      guard let best else { return }
      let alert = best.alert
      let severity = max(alert.severity ?? .unknown, .unknown)
      out.set(L.alertSeverity, slot, severity.rawValue)
      out.set(L.alertOnset, slot, alert.start.flatMap(unixTime))
      out.set(L.alertEnd, slot, alert.end.flatMap(unixTime))
      out.set(L.alertEvent, slot, text: FixedText<64>(truncating: alert.event ?? ""))
      previous = best
    }
  }
}

/// The millimetres of a 15-minute window, summed from its steps: exactly when every step is as
/// long as the others and its rate per hour is a short decimal (Open-Meteo's quarter hours; One
/// Call's minutes, each its rate per hour over 60), so that a window's exact half of 0.1 mm
/// rounds up; else in binary.
struct WindowAmount {
  private var binary = 0.0
  /// The steps' rates per hour, added up, and the steps in an hour.
  private var rates: ExactDecimal? = ExactDecimal(significand: 0, fractionDigits: 0)
  private var perHour: Int64?

  mutating func add(_ millimetres: Double, over seconds: Int64) {
    binary += millimetres
    guard seconds > 0, 3_600 % seconds == 0, perHour == nil || perHour == 3_600 / seconds,
      let rate = ExactDecimal(millimetres, perUnit: 3_600 / seconds)
    else {
      rates = nil
      return
    }
    perHour = 3_600 / seconds
    rates = rates?.adding(rate)
  }

  /// In the field's steps (0.1 mm), halves away from zero, clamped to its range.
  var steps: UInt8? {
    let field = LargeLayout.minutelyPrecipitation
    let (steps, units) = field.stepFraction
    if let rates, let perHour, let steps = rates.rounded(times: steps, over: perHour * units) {
      return field.clamp(UInt8(clamping: steps))
    }
    return scaled(binary, field)
  }
}

extension Forecast.Day {
  /// The day's sun as frame v1 §6.7 says it: polar day or night (times absent), else the times.
  var sun: (state: SunState?, sunrise: UInt32?, sunset: UInt32?) {
    if let daylight = daylightSeconds, daylight >= 86_340 { return (.polarDay, nil, nil) }
    if let daylight = daylightSeconds, daylight < 60 { return (.polarNight, nil, nil) }
    let known = sunrise != nil || sunset != nil || daylightSeconds != nil
    return (known ? .normal : nil, sunrise.flatMap(unixTime), sunset.flatMap(unixTime))
  }
}
