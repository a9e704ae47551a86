import SkyframePlaces
import SkyframeWeather

/// Locationforecast 2.0 `compact` (a GeoJSON Feature): a time series in UTC, hourly for about
/// two and a half days and six-hourly after, each step with the instant's values and the
/// weather symbol (and precipitation) of the next 1, 6 or 12 hours.
struct METNorwayForecastResponse: Decodable, Sendable {
  var properties: Properties

  struct Properties: Decodable, Sendable {
    var timeseries: [Step]
  }

  struct Step: Decodable, Sendable {
    /// `2026-02-06T21:00:00Z`.
    var time: String
    var data: StepData
  }

  struct StepData: Decodable, Sendable {
    var instant: Instant
    var next1Hours: Period?
    var next6Hours: Period?
    var next12Hours: Period?

    enum CodingKeys: String, CodingKey {
      case instant
      case next1Hours = "next_1_hours"
      case next6Hours = "next_6_hours"
      case next12Hours = "next_12_hours"
    }
  }

  struct Instant: Decodable, Sendable {
    var details: InstantDetails
  }

  struct InstantDetails: Decodable, Sendable {
    var airPressureAtSeaLevel: Double?
    var airTemperature: Double?
    var cloudAreaFraction: Double?
    var relativeHumidity: Double?
    var windFromDirection: Double?
    var windSpeed: Double?
    /// These three are only in `complete`; read when a self-hosted or future answer has them.
    var windSpeedOfGust: Double?
    var dewPointTemperature: Double?
    /// The UV index under a clear sky, not under the forecast clouds.
    var ultravioletIndexClearSky: Double?

    enum CodingKeys: String, CodingKey {
      case airPressureAtSeaLevel = "air_pressure_at_sea_level"
      case airTemperature = "air_temperature"
      case cloudAreaFraction = "cloud_area_fraction"
      case relativeHumidity = "relative_humidity"
      case windFromDirection = "wind_from_direction"
      case windSpeed = "wind_speed"
      case windSpeedOfGust = "wind_speed_of_gust"
      case dewPointTemperature = "dew_point_temperature"
      case ultravioletIndexClearSky = "ultraviolet_index_clear_sky"
    }
  }

  struct Period: Decodable, Sendable {
    var summary: Summary?
    var details: PeriodDetails?
  }

  struct Summary: Decodable, Sendable {
    var symbolCode: String?

    enum CodingKeys: String, CodingKey {
      case symbolCode = "symbol_code"
    }
  }

  struct PeriodDetails: Decodable, Sendable {
    var precipitationAmount: Double?
    var probabilityOfPrecipitation: Double?

    enum CodingKeys: String, CodingKey {
      case precipitationAmount = "precipitation_amount"
      case probabilityOfPrecipitation = "probability_of_precipitation"
    }
  }

  /// The normalized forecast for `point` as of `now` (Unix seconds).
  ///
  /// The service gives times in UTC only and no time zone: the offset is that of the position's
  /// zone now (`TimeZoneIndex`), and days are split at that local midnight. "Now" is the latest
  /// step at or before `now` (the first one when all are later); its precipitation is that of
  /// the next hour. A day's weather code is the most severe (highest WMO code) of its symbols, as
  /// Open-Meteo's daily code is.
  func forecast(for point: GeoPoint, now: Int64) throws(ProviderError) -> Forecast {
    var steps: [(time: Int64, data: StepData)] = []
    steps.reserveCapacity(properties.timeseries.count)
    for step in properties.timeseries {
      guard let time = Self.unixTime(step.time) else {
        throw .malformed("met-norway: time \"\(step.time.prefix(40))\" is not YYYY-MM-DDTHH:MM:SSZ")
      }
      steps.append((time, step.data))
    }
    steps.sort { $0.time < $1.time }
    guard !steps.isEmpty else { throw .malformed("met-norway: empty timeseries") }
    // MET Norway gives UTC only: the position's zone and its offset now from the tz database.
    let offset = TimeZoneIndex.system.utcOffsetSeconds(
      latitude: point.latitude, longitude: point.longitude, at: now)

    let nowIndex = steps.lastIndex { $0.time <= now } ?? 0
    let nowStep = steps[nowIndex]
    let nowDetails = nowStep.data.instant.details
    let nowPeriod = nowStep.data.next1Hours ?? nowStep.data.next6Hours
    let nowSymbol = nowPeriod?.summary?.symbolCode.flatMap { METNorwayConditions.wmo(symbol: $0) }
    let current = Forecast.Current(
      time: nowStep.time, temperature: nowDetails.airTemperature,
      relativeHumidity: nowDetails.relativeHumidity, pressure: nowDetails.airPressureAtSeaLevel,
      windSpeed: nowDetails.windSpeed, windGusts: nowDetails.windSpeedOfGust,
      windDirection: nowDetails.windFromDirection, weatherCode: nowSymbol?.code,
      isDay: nowSymbol?.isDay, cloudCover: nowDetails.cloudAreaFraction,
      precipitation: nowStep.data.next1Hours?.details?.precipitationAmount,
      uvIndex: nowDetails.ultravioletIndexClearSky, dewPoint: nowDetails.dewPointTemperature)

    // Every step of the hourly part, past ones too: slot 0 is the last at or before the frame's
    // moment, as for the other services (frame-v1.md §6.5), even when `now` lies past them.
    var hourly: [Forecast.Hour] = []
    for step in steps {
      guard let hour = step.data.next1Hours else { break }
      hourly.append(
        Forecast.Hour(
          time: step.time, temperature: step.data.instant.details.airTemperature,
          weatherCode: hour.summary?.symbolCode.flatMap { METNorwayConditions.wmo(symbol: $0) }?
            .code,
          precipitationProbability: hour.details?.probabilityOfPrecipitation,
          precipitation: hour.details?.precipitationAmount,
          windSpeed: step.data.instant.details.windSpeed,
          windGusts: step.data.instant.details.windSpeedOfGust))
    }

    let precipitationSums = Self.precipitationSums(steps, utcOffsetSeconds: offset)
    var days: [Int: Forecast.Day] = [:]
    for step in steps {
      let date = localDate(step.time, utcOffsetSeconds: offset)
      var day = days[date] ?? Forecast.Day(date: date, precipitationSum: precipitationSums[date])
      let details = step.data.instant.details
      if let temperature = details.airTemperature {
        day.minimum = min(day.minimum ?? temperature, temperature)
        day.maximum = max(day.maximum ?? temperature, temperature)
      }
      if let wind = details.windSpeed {
        day.windSpeedMaximum = max(day.windSpeedMaximum ?? wind, wind)
      }
      // Clear-sky UV (`complete` only), at the day's steps: hourly, then every 6 hours.
      if let uv = details.ultravioletIndexClearSky {
        day.uvIndexMaximum = max(day.uvIndexMaximum ?? uv, uv)
      }
      for period in [step.data.next1Hours, step.data.next6Hours] {
        guard let symbol = period?.summary?.symbolCode,
          let code = METNorwayConditions.wmo(symbol: symbol)?.code
        else { continue }
        day.weatherCode = max(day.weatherCode ?? code, code)
      }
      days[date] = day
    }
    let today = localDate(now, utcOffsetSeconds: offset)
    let daily = days.values.filter { $0.date >= today }.sorted { $0.date < $1.date }

    return Forecast(
      place: Forecast.Place(
        name: "", countryCode: nil, latitude: point.latitude, longitude: point.longitude),
      utcOffsetSeconds: offset, current: current, hourly: hourly, daily: daily)
  }

  /// Each local date's precipitation, mm, for the dates whose sum is known.
  ///
  /// The periods counted follow one another without overlap: at each step not inside a period
  /// already counted, its `next_1_hours` (while the series is hourly), else its `next_6_hours`;
  /// the `next_6_hours` of hourly steps overlap their hours and are skipped. A period's amount
  /// goes to the local date of its start (so a 6-hour period from 19:00 counts for its first day).
  /// As with the minimum and maximum, today counts from the first step on (the answer has nothing
  /// earlier); but a sum of part of a day would read as the day's total, so a date is left out
  /// when a period starting in it has no amount, when a hole between periods touches it, or when
  /// the periods end before the date does (the last day of the series, as a rule).
  static func precipitationSums(
    _ steps: [(time: Int64, data: StepData)], utcOffsetSeconds offset: Int
  ) -> [Int: Double] {
    var sums: [Int: Double] = [:]
    var unknown: Set<Int> = []
    var coveredUntil: Int64?
    for step in steps {
      if let coveredUntil, step.time < coveredUntil { continue }
      let period: Period
      let seconds: Int64
      if let hour = step.data.next1Hours {
        (period, seconds) = (hour, 3_600)
      } else if let sixHours = step.data.next6Hours {
        (period, seconds) = (sixHours, 6 * 3_600)
      } else {
        continue
      }
      let date = localDate(step.time, utcOffsetSeconds: offset)
      if let coveredUntil, coveredUntil < step.time {
        let first = localDate(coveredUntil, utcOffsetSeconds: offset)
        unknown.formUnion(first...localDate(step.time - 1, utcOffsetSeconds: offset))
      }
      if let amount = period.details?.precipitationAmount {
        sums[date] = ExactDecimal.sum([sums[date] ?? 0, amount])
      } else {
        unknown.insert(date)
      }
      coveredUntil = step.time + seconds
    }
    guard let coveredUntil else { return [:] }
    // The first date whose end is not covered, and every later one.
    let uncovered = localDate(coveredUntil, utcOffsetSeconds: offset)
    return sums.filter { $0.key < uncovered && !unknown.contains($0.key) }
  }

  /// `YYYY-MM-DDTHH:MM:SSZ` as Unix seconds.
  static func unixTime(_ text: String) -> Int64? {
    let bytes = Array(text.utf8)
    guard bytes.count == 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54,
      bytes[13] == 0x3A, bytes[16] == 0x3A, bytes[19] == 0x5A
    else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in bytes[range] {
        guard (0x30...0x39).contains(byte) else { return nil }
        value = value * 10 + Int(byte - 0x30)
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
    else { return nil }
    let days = daysSince1970(year: year, month: month, day: day)
    return Int64(days) * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
  }
}
