import SkyframePlaces
import SkyframeWeather

/// An OpenWeatherMap One Call 3.0 `/data/3.0/onecall` answer requested with `units=metric` (°C,
/// hPa, m/s, mm): the weather now, the next 60 minutes' precipitation where the service has it,
/// 48 hours, 8 days and, unless `exclude=alerts` was sent (alerts not configured), the alerts.
/// Every key is optional.
struct OpenWeatherMapOneCallResponse: Decodable {
  /// The place's offset from UTC in seconds; older answers lack it.
  var timezoneOffset: Int?
  /// The place's IANA zone (`Europe/Berlin`).
  var timezone: String?
  var current: Current?
  var hourly: [Hour]?
  var daily: [Day]?
  /// Precipitation in mm/h for each of the next 60 minutes (where the service has it).
  var minutely: [Minute]?
  /// Absent when no alert is in force.
  var alerts: [Alert]?

  struct Minute: Decodable {
    var dt: Int64?
    var precipitation: Double?
  }

  /// One Call gives no severity: an alert in force counts as `unknown`.
  struct Alert: Decodable {
    var start: Int64?
    var end: Int64?
    var event: String?
  }

  enum CodingKeys: String, CodingKey {
    case timezoneOffset = "timezone_offset"
    case timezone, current, hourly, daily, minutely, alerts
  }

  struct Current: Decodable {
    var dt: Int64?
    var sunrise: Int64?
    var sunset: Int64?
    var temp: Double?
    var feelsLike: Double?
    /// Sea level, hPa.
    var pressure: Double?
    var humidity: Double?
    var uvi: Double?
    var clouds: Double?
    var visibility: Double?
    var windSpeed: Double?
    var windDeg: Double?
    var windGust: Double?
    /// °C, the service's own.
    var dewPoint: Double?
    var weather: [OpenWeatherMapCondition]?
    var rain: OpenWeatherMapVolume?
    var snow: OpenWeatherMapVolume?

    enum CodingKeys: String, CodingKey {
      case dt, sunrise, sunset, temp
      case feelsLike = "feels_like"
      case pressure, humidity, uvi, clouds, visibility
      case windSpeed = "wind_speed"
      case windDeg = "wind_deg"
      case windGust = "wind_gust"
      case dewPoint = "dew_point"
      case weather, rain, snow
    }
  }

  struct Hour: Decodable {
    var dt: Int64?
    var temp: Double?
    var weather: [OpenWeatherMapCondition]?
    var pop: Double?
    /// `1h`: millimetres in the hour; the blocks are absent when nothing falls.
    var rain: OpenWeatherMapVolume?
    var snow: OpenWeatherMapVolume?
    var windSpeed: Double?
    /// Only where the service has it.
    var windGust: Double?

    enum CodingKeys: String, CodingKey {
      case dt, temp, weather, pop, rain, snow
      case windSpeed = "wind_speed"
      case windGust = "wind_gust"
    }
  }

  struct Day: Decodable {
    /// Around local noon of the day, Unix seconds.
    var dt: Int64?
    var sunrise: Int64?
    var sunset: Int64?
    var temp: Temperatures?
    var weather: [OpenWeatherMapCondition]?
    var pop: Double?
    /// The day's millimetres: bare numbers here, not `1h` blocks; absent when nothing falls.
    var rain: Double?
    var snow: Double?
    /// The day's highest UV index.
    var uvi: Double?
    /// The day's highest wind speed, m/s.
    var windSpeed: Double?

    enum CodingKeys: String, CodingKey {
      case dt, sunrise, sunset, temp, weather, pop, rain, snow, uvi
      case windSpeed = "wind_speed"
    }
  }

  struct Temperatures: Decodable {
    var min: Double?
    var max: Double?
  }

  /// The forecast for `point`: hourly points one hour apart, days dated by the local date of
  /// their `dt`.
  func forecast(for point: GeoPoint, alertsAsked: Bool = false) throws(ProviderError) -> Forecast {
    let timezoneOffset = try utcOffsetSeconds()
    return Forecast(
      place: Forecast.Place(
        name: "", countryCode: nil, latitude: point.latitude, longitude: point.longitude),
      utcOffsetSeconds: timezoneOffset, current: current?.model ?? Forecast.Current(),
      hourly: (hourly ?? []).compactMap(\.model).sorted { $0.time < $1.time },
      hourlyStepHours: 1,
      daily: (daily ?? []).compactMap { $0.model(utcOffsetSeconds: timezoneOffset) }
        .sorted { $0.date < $1.date },
      precipitationSteps: minutely.map { minutes in
        minutes.compactMap { minute in
          minute.dt.map {
            // mm/h over one minute.
            Forecast.PrecipitationStep(
              start: $0, seconds: 60,
              millimetres: UnitConversion.perHourToPerMinute(minute.precipitation))
          }
        }.sorted { $0.start < $1.start }
      },
      alerts: alertsAsked
        ? Forecast.Alert.distinct(
          (alerts ?? []).map {
            Forecast.Alert(
              severity: nil, start: $0.start, end: $0.end,
              event: $0.event.flatMap { $0.isEmpty ? nil : $0 })
          }) : nil)
  }
}

extension OpenWeatherMapOneCallResponse {
  /// `timezone_offset`; in older answers, which lack it, the offset of the zone `timezone` names
  /// at the answer's first time (now, else its first hour or day).
  fileprivate func utcOffsetSeconds() throws(ProviderError) -> Int {
    if let timezoneOffset { return timezoneOffset }
    guard let timezone else { throw .malformed("timezone_offset and timezone are missing") }
    guard let time = current?.dt ?? hourly?.first?.dt ?? daily?.first?.dt else {
      throw .malformed("timezone_offset is missing and the answer has no time to read timezone at")
    }
    guard let offset = TimeZoneIndex.utcOffsetSeconds(zone: timezone, at: time) else {
      throw .malformed(
        "timezone_offset is missing and timezone \"\(timezone.prefix(40))\" is no IANA zone")
    }
    return offset
  }
}

extension OpenWeatherMapOneCallResponse.Current {
  fileprivate var model: Forecast.Current {
    Forecast.Current(
      time: dt, temperature: temp, apparentTemperature: feelsLike, relativeHumidity: humidity,
      pressure: pressure, windSpeed: windSpeed, windGusts: windGust, windDirection: windDeg,
      weatherCode: weather?.wmoCode,
      isDay: openWeatherMapIsDay(
        icon: weather?.first?.icon, time: dt, sunrise: openWeatherMapSunTime(sunrise),
        sunset: openWeatherMapSunTime(sunset)),
      cloudCover: clouds,
      precipitation: openWeatherMapPrecipitation(
        rain: rain?.lastHour, snow: snow?.lastHour, conditionID: weather?.primaryID),
      uvIndex: uvi, visibility: visibility, dewPoint: dewPoint)
  }
}

extension OpenWeatherMapOneCallResponse.Hour {
  fileprivate var model: Forecast.Hour? {
    guard let dt else { return nil }
    return Forecast.Hour(
      time: dt, temperature: temp, weatherCode: weather?.wmoCode,
      precipitationProbability: openWeatherMapPercent(pop),
      precipitation: openWeatherMapPrecipitation(
        rain: rain?.lastHour, snow: snow?.lastHour, conditionID: weather?.primaryID),
      windSpeed: windSpeed, windGusts: windGust)
  }
}

extension OpenWeatherMapOneCallResponse.Day {
  fileprivate func model(utcOffsetSeconds: Int) -> Forecast.Day? {
    guard let dt else { return nil }
    return Forecast.Day(
      date: localDate(dt, utcOffsetSeconds: utcOffsetSeconds), minimum: temp?.min,
      maximum: temp?.max, weatherCode: weather?.wmoCode,
      precipitationProbability: openWeatherMapPercent(pop),
      sunrise: openWeatherMapSunTime(sunrise), sunset: openWeatherMapSunTime(sunset),
      precipitationSum: openWeatherMapPrecipitation(
        rain: rain, snow: snow, conditionID: weather?.primaryID),
      uvIndexMaximum: uvi, windSpeedMaximum: windSpeed)
  }
}
