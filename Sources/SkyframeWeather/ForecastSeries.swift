import Foundation
import SkyframeCodec

/// One call's forecast kept to compose the cell's frames later from the same run: the current
/// conditions of every 15-minute step, the hourly and daily rows, the short precipitation steps,
/// the alerts and the place's offsets from UTC. `forecast(at:)` gives the forecast as a call at
/// that moment would have, so `Forecast.frame(fetchedAt:at:)` writes the frame a fresh fetch
/// would (but for `fetched_at`).
///
/// Kept small: values are stored in the frames' own units (`temperature` in 0.1 °C, ...),
/// rounded and clamped as compaction does, so composing from them gives the same bytes; rows
/// before the call's present step, hour and day are dropped, as are hours past what the last
/// frame the series can compose shows.
public struct ForecastSeries: Sendable {
  public let place: Forecast.Place
  /// The series composes frames for moments before this (see `init`).
  public let coveredUntil: Int64
  let hourlyStepHours: Int
  /// The offset from UTC from each moment on; the first from the call.
  let offsets: [(from: Int64, seconds: Int)]
  /// The start of `steps[0]`, a multiple of 900.
  let firstStep: Int64
  let steps: [Step]
  let hours: [Hour]
  let days: [Day]
  let precipitation: [Forecast.PrecipitationStep]?
  let alerts: [Forecast.Alert]?

  /// The current conditions during one 15-minute step, in frame units, each at its frame
  /// sentinel when missing (`Packed`): 24 bytes a step.
  struct Step: Sendable {
    var temperature: Int16
    var feelsLike: Int16
    var dewPoint: Int16
    var pressure: UInt16
    var windSpeed: UInt16
    var windGust: UInt16
    var windDirection: UInt16
    var visibility: UInt16
    var precipitation: UInt16
    var humidity: UInt8
    var weatherCode: UInt8
    var cloudCover: UInt8
    var uvIndex: UInt8
    /// 1 day, 0 night, 0xFF missing.
    var isDay: UInt8
  }

  /// One hourly row, in frame units (the `large` profile's for precipitation and wind), at the
  /// sentinels when missing: 16 bytes an hour.
  struct Hour: Sendable {
    var time: Int64
    var temperature: Int16
    var precipitation: UInt16
    var weatherCode: UInt8
    var precipitationProbability: UInt8
    var windSpeed: UInt8
    var windGust: UInt8
  }

  /// One daily row, in frame units; the sun as frame v1 §6.7 says it.
  struct Day: Sendable {
    var date: Int32
    var minimum: Int16?
    var maximum: Int16?
    var precipitationSum: UInt16?
    var weatherCode: UInt8?
    var precipitationProbability: UInt8?
    var uvIndexMaximum: UInt8?
    var windSpeedMaximum: UInt8?
    var sun: SunState?
    var sunrise: UInt32?
    var sunset: UInt32?
  }

  /// The series of `forecast`, fetched at `fetchedAt`; nil when the forecast has no current
  /// conditions in 15-minute steps from the call's step (or the next) on.
  public init?(_ forecast: Forecast, fetchedAt: Int64) {
    let present = fetchedAt - fetchedAt % 900
    guard let rows = forecast.currentSteps,
      let first = rows.firstIndex(where: { ($0.time ?? .min) >= present }),
      let start = rows[first].time, start % 900 == 0, start <= present + 900
    else { return nil }
    // Consecutive steps only: after a gap the series ends.
    var count = 0
    while first + count < rows.endIndex, rows[first + count].time == start + Int64(count) * 900 {
      count += 1
    }
    let steps = rows[first..<(first + count)].map(Step.init)
    firstStep = start
    self.steps = steps
    place = forecast.place
    hourlyStepHours = forecast.hourlyStepHours
    alerts = forecast.alerts
    precipitation = forecast.precipitationSteps.map {
      Array($0.drop { $0.start + $0.seconds <= present })
    }
    offsets = Self.offsets(
      from: fetchedAt, utcOffsetSeconds: forecast.utcOffsetSeconds, timeZone: forecast.timeZone,
      until: start + Int64(steps.count) * 900)

    // What the frames can show until the steps end: the next hour's precipitation an hour
    // ahead, the large profile's 48 hours and 8 days from the present ones.
    var covered = start + Int64(steps.count) * 900
    if let precipitation = forecast.precipitationSteps, let last = precipitation.last {
      covered = min(covered, last.start + last.seconds - 3_600)
    }
    let firstHour = forecast.hourlyStart(at: fetchedAt)
    let step = Int64(max(forecast.hourlyStepHours, 1)) * 3_600
    let hourCount = Int64(LargeLayout.hourlyCount)
    hours = forecast.hourly.lazy.filter { hour in
      hour.time >= (firstHour ?? .max) && hour.time < covered + hourCount * step
    }.map(Hour.init)
    if let last = forecast.hourly.last, firstHour != nil {
      covered = min(covered, last.time - (hourCount - 1) * step + step)
    }
    let today = CivilDate.localDay(fetchedAt, utcOffsetSeconds: forecast.utcOffsetSeconds)
    days = forecast.daily.lazy.filter { $0.date >= today }.map(Day.init)
    if let last = days.last {
      // Day `last - 7` is the last "today" with eight days ahead.
      let end = (Int64(last.date) - Int64(LargeLayout.dailyCount) + 2) * 86_400
      let offset = Self.offset(in: offsets, at: end - Int64(forecast.utcOffsetSeconds))
      covered = min(covered, end - Int64(offset))
    }
    coveredUntil = covered
  }

  init(
    place: Forecast.Place, coveredUntil: Int64, hourlyStepHours: Int,
    offsets: [(from: Int64, seconds: Int)], firstStep: Int64, steps: [Step], hours: [Hour],
    days: [Day], precipitation: [Forecast.PrecipitationStep]?, alerts: [Forecast.Alert]?
  ) {
    self.place = place
    self.coveredUntil = coveredUntil
    self.hourlyStepHours = hourlyStepHours
    self.offsets = offsets
    self.firstStep = firstStep
    self.steps = steps
    self.hours = hours
    self.days = days
    self.precipitation = precipitation
    self.alerts = alerts
  }

  /// The offset at `time`.
  public func utcOffsetSeconds(at time: Int64) -> Int { Self.offset(in: offsets, at: time) }

  /// The forecast as a call at `time` would give it, from the same run; nil outside
  /// `fetchedAt..<coveredUntil`.
  public func forecast(at time: Int64) -> Forecast? {
    guard time < coveredUntil, time >= firstStep else { return nil }
    let index = Int((time - firstStep) / 900)
    guard steps.indices.contains(index) else { return nil }
    var forecast = Forecast(
      place: place, utcOffsetSeconds: utcOffsetSeconds(at: time),
      current: steps[index].current(at: firstStep + Int64(index) * 900),
      hourly: hours.map(\.model), hourlyStepHours: hourlyStepHours,
      daily: days.map(\.model), precipitationSteps: precipitation, alerts: alerts)
    forecast.validUntil = nil
    return forecast
  }

  /// The first moment after `time` at which a frame composed at `time` may say something else:
  /// the next 15-minute step (current conditions, the hour, the day: all begin on one), the
  /// next minute while the next hour's precipitation counts minutes to a change, the next start
  /// or end of an alert, the next change of the offset.
  public func nextChange(after time: Int64) -> Int64 {
    var next = time - time % 900 + 900
    // The short steps alone decide it: no need to rebuild the hours and days for that.
    let steps = Forecast(
      place: place, utcOffsetSeconds: 0, current: Forecast.Current(), hourly: [], daily: [],
      precipitationSteps: precipitation)
    if steps.nextHourPrecipitation(at: time)?.minutesUntilChange != nil {
      next = min(next, time - time % 60 + 60)
    }
    for alert in alerts ?? [] {
      for boundary in [alert.start, alert.end] {
        if let boundary, boundary > time { next = min(next, boundary) }
      }
    }
    for change in offsets.dropFirst() where change.from > time {
      next = min(next, change.from)
    }
    // A place whose offset is not a whole quarter hour starts its day between steps.
    let offset = Int64(utcOffsetSeconds(at: time))
    let midnight = ((time + offset) / 86_400 + 1) * 86_400 - offset
    return min(next, midnight)
  }

  /// The bytes the series holds, arrays and the fixed part, as a measure of its memory.
  public var storedBytes: Int {
    MemoryLayout<Self>.size + steps.capacity * MemoryLayout<Step>.stride
      + hours.capacity * MemoryLayout<Hour>.stride + days.capacity * MemoryLayout<Day>.stride
      + (precipitation?.capacity ?? 0) * MemoryLayout<Forecast.PrecipitationStep>.stride
      + (alerts?.capacity ?? 0) * MemoryLayout<Forecast.Alert>.stride
      + offsets.capacity * MemoryLayout<(from: Int64, seconds: Int)>.stride
      + place.name.utf8.count
  }

  static func offset(in offsets: [(from: Int64, seconds: Int)], at time: Int64) -> Int {
    offsets.last { $0.from <= time }?.seconds ?? offsets.first?.seconds ?? 0
  }

  /// The service's offset from the call on, then each change of the named zone's before `end`.
  static func offsets(
    from time: Int64, utcOffsetSeconds: Int, timeZone: String?, until end: Int64
  ) -> [(from: Int64, seconds: Int)] {
    var offsets = [(from: time, seconds: utcOffsetSeconds)]
    guard let zone = timeZone.flatMap(TimeZone.init(identifier:)) else { return offsets }
    var date = Date(timeIntervalSince1970: TimeInterval(time))
    while let change = zone.nextDaylightSavingTimeTransition(after: date),
      change.timeIntervalSince1970 < TimeInterval(end), offsets.count < 8
    {
      offsets.append(
        (Int64(change.timeIntervalSince1970.rounded()), zone.secondsFromGMT(for: change)))
      date = change
    }
    return offsets
  }
}

/// A missing value as the frame writes it: the type's lowest value when signed, its highest
/// when not. Compaction clamps every value into a range without it.
extension FixedWidthInteger {
  static var missing: Self { Self.isSigned ? .min : .max }
  init(packing value: Self?) { self = value ?? .missing }
  var unpacked: Self? { self == .missing ? nil : self }
}

// Each value through the row of the frame that shows it (`large` for what only it has), so that
// the series rounds and clamps as compaction does; back through the same row's scale.
private typealias S = StandardLayout
private typealias L = LargeLayout

extension ForecastSeries.Step {
  init(_ current: Forecast.Current) {
    temperature = Int16(packing: scaled(current.temperature, S.temperature))
    feelsLike = Int16(packing: scaled(current.apparentTemperature, S.feelsLike))
    dewPoint = Int16(packing: scaled(current.dewPoint, L.dewPoint))
    pressure = UInt16(packing: scaled(current.pressure, S.pressure))
    windSpeed = UInt16(packing: scaled(current.windSpeed, S.windSpeed))
    windGust = UInt16(packing: scaled(current.windGusts, S.windGust))
    windDirection = UInt16(packing: current.windDirection.flatMap(compassDegrees))
    visibility = UInt16(packing: scaled(current.visibility, S.visibility))
    precipitation = UInt16(packing: scaled(current.precipitation, S.precipitation))
    humidity = UInt8(packing: scaled(current.relativeHumidity, S.humidity))
    weatherCode = UInt8(packing: within(current.weatherCode, S.weatherCode))
    cloudCover = UInt8(packing: scaled(current.cloudCover, S.cloudCover))
    uvIndex = UInt8(packing: scaled(current.uvIndex, S.uvIndex))
    isDay = current.isDay.map { $0 ? 1 : 0 } ?? .missing
  }

  /// The values back in the model's units: compaction rounds each to what it was.
  func current(at time: Int64) -> Forecast.Current {
    Forecast.Current(
      time: time, temperature: temperature.unpacked.map(S.temperature.measure),
      apparentTemperature: feelsLike.unpacked.map(S.feelsLike.measure),
      relativeHumidity: humidity.unpacked.map(S.humidity.measure),
      pressure: pressure.unpacked.map(S.pressure.measure),
      windSpeed: windSpeed.unpacked.map(S.windSpeed.measure),
      windGusts: windGust.unpacked.map(S.windGust.measure),
      windDirection: windDirection.unpacked.map(S.windDirection.measure),
      weatherCode: weatherCode.unpacked.map { Int($0) },
      isDay: isDay.unpacked.map { $0 == 1 },
      cloudCover: cloudCover.unpacked.map(S.cloudCover.measure),
      precipitation: precipitation.unpacked.map(S.precipitation.measure),
      uvIndex: uvIndex.unpacked.map(S.uvIndex.measure),
      visibility: visibility.unpacked.map(S.visibility.measure),
      dewPoint: dewPoint.unpacked.map(L.dewPoint.measure))
  }
}

extension ForecastSeries.Hour {
  init(_ hour: Forecast.Hour) {
    time = hour.time
    temperature = Int16(packing: scaled(hour.temperature, S.hourlyTemperature))
    precipitation = UInt16(packing: scaled(hour.precipitation, L.hourlyPrecipitationAmount))
    weatherCode = UInt8(packing: within(hour.weatherCode, S.hourlyWeatherCode))
    precipitationProbability = UInt8(
      packing: scaled(hour.precipitationProbability, S.hourlyPrecipitationProbability))
    windSpeed = UInt8(packing: scaled(hour.windSpeed, L.hourlyWindSpeed))
    windGust = UInt8(packing: scaled(hour.windGusts, L.hourlyWindGust))
  }

  var model: Forecast.Hour {
    Forecast.Hour(
      time: time, temperature: temperature.unpacked.map(S.hourlyTemperature.measure),
      weatherCode: weatherCode.unpacked.map { Int($0) },
      precipitationProbability: precipitationProbability.unpacked.map(
        S.hourlyPrecipitationProbability.measure),
      precipitation: precipitation.unpacked.map(L.hourlyPrecipitationAmount.measure),
      windSpeed: windSpeed.unpacked.map(L.hourlyWindSpeed.measure),
      windGusts: windGust.unpacked.map(L.hourlyWindGust.measure))
  }
}

extension ForecastSeries.Day {
  init(_ day: Forecast.Day) {
    date = Int32(clamping: day.date)
    minimum = scaled(day.minimum, S.dailyMinimum)
    maximum = scaled(day.maximum, S.dailyMaximum)
    precipitationSum = scaled(day.precipitationSum, L.dailyPrecipitationSum)
    weatherCode = within(day.weatherCode, S.dailyWeatherCode)
    precipitationProbability = scaled(
      day.precipitationProbability, S.dailyPrecipitationProbability)
    uvIndexMaximum = scaled(day.uvIndexMaximum, L.dailyUVMaximum)
    windSpeedMaximum = scaled(day.windSpeedMaximum, L.dailyWindMaximum)
    (sun, sunrise, sunset) = day.sun
  }

  /// The day back in the model's units; the sun by what decides it (`Forecast.Day.sun`).
  var model: Forecast.Day {
    let daylight: Double? =
      switch sun {
      case .polarDay: 86_400
      case .polarNight: 0
      case .normal: 43_200
      case nil: nil
      }
    return Forecast.Day(
      date: Int(date), minimum: minimum.map(S.dailyMinimum.measure),
      maximum: maximum.map(S.dailyMaximum.measure), weatherCode: weatherCode.map { Int($0) },
      precipitationProbability: precipitationProbability.map(
        S.dailyPrecipitationProbability.measure),
      sunrise: sun == .normal ? sunrise.map { Int64($0) } : nil,
      sunset: sun == .normal ? sunset.map { Int64($0) } : nil, daylightSeconds: daylight,
      precipitationSum: precipitationSum.map(L.dailyPrecipitationSum.measure),
      uvIndexMaximum: uvIndexMaximum.map(L.dailyUVMaximum.measure),
      windSpeedMaximum: windSpeedMaximum.map(L.dailyWindMaximum.measure))
  }
}
