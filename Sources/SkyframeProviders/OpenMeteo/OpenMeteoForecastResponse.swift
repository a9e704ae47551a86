import SkyframeWeather

/// One location of an Open-Meteo `/v1/forecast` answer requested with `timeformat=unixtime`. Every
/// key is optional and every array element may be null: what is missing becomes nil in the model.
/// A value of the wrong type (a string where a number belongs) fails decoding, so the caller can
/// name the path instead of guessing.
struct OpenMeteoForecastResponse: Decodable {
  var utcOffsetSeconds: Int?
  var timezone: String?
  var current: Current?
  var hourly: Hourly?
  var daily: Daily?
  var minutely15: Minutely15?

  enum CodingKeys: String, CodingKey {
    case utcOffsetSeconds = "utc_offset_seconds"
    case timezone
    case current, hourly, daily
    case minutely15 = "minutely_15"
  }

  /// `minutely_15`: `precipitation` is the sum of the 15 minutes before each time; asked for every
  /// current variable (`OpenMeteoConfiguration.seriesSteps`), each row is what `current` says
  /// during the 15 minutes from its time on (the service makes `current` from these steps).
  struct Minutely15: Decodable {
    var time: [Double?]?
    var precipitation: [Double?]?
    var temperature: [Double?]?
    var relativeHumidity: [Double?]?
    var apparentTemperature: [Double?]?
    var isDay: [Double?]?
    var weatherCode: [Double?]?
    var cloudCover: [Double?]?
    var pressure: [Double?]?
    var windSpeed: [Double?]?
    var windDirection: [Double?]?
    var windGusts: [Double?]?
    var uvIndex: [Double?]?
    var visibility: [Double?]?
    var dewPoint: [Double?]?

    typealias CodingKeys = Current.CodingKeys
  }

  struct Current: Decodable {
    var time: Double?
    var temperature: Double?
    var relativeHumidity: Double?
    var apparentTemperature: Double?
    var isDay: Double?
    var precipitation: Double?
    var weatherCode: Double?
    var cloudCover: Double?
    var pressure: Double?
    var windSpeed: Double?
    var windDirection: Double?
    var windGusts: Double?
    var uvIndex: Double?
    var visibility: Double?
    var dewPoint: Double?

    enum CodingKeys: String, CodingKey {
      case time
      case temperature = "temperature_2m"
      case relativeHumidity = "relative_humidity_2m"
      case apparentTemperature = "apparent_temperature"
      case isDay = "is_day"
      case precipitation
      case weatherCode = "weather_code"
      case cloudCover = "cloud_cover"
      case pressure = "pressure_msl"
      case windSpeed = "wind_speed_10m"
      case windDirection = "wind_direction_10m"
      case windGusts = "wind_gusts_10m"
      case uvIndex = "uv_index"
      case visibility
      case dewPoint = "dew_point_2m"
    }
  }

  struct Hourly: Decodable {
    var time: [Double?]?
    var temperature: [Double?]?
    var weatherCode: [Double?]?
    var precipitationProbability: [Double?]?
    var precipitation: [Double?]?
    var windSpeed: [Double?]?
    var windGusts: [Double?]?

    enum CodingKeys: String, CodingKey {
      case time
      case temperature = "temperature_2m"
      case weatherCode = "weather_code"
      case precipitationProbability = "precipitation_probability"
      case precipitation
      case windSpeed = "wind_speed_10m"
      case windGusts = "wind_gusts_10m"
    }
  }

  struct Daily: Decodable {
    /// Local midnight as Unix seconds.
    var time: [Double?]?
    var weatherCode: [Double?]?
    var maximum: [Double?]?
    var minimum: [Double?]?
    var precipitationProbability: [Double?]?
    var sunrise: [Double?]?
    var sunset: [Double?]?
    var daylightDuration: [Double?]?
    var precipitationSum: [Double?]?
    var uvIndexMaximum: [Double?]?
    var windSpeedMaximum: [Double?]?

    enum CodingKeys: String, CodingKey {
      case time
      case weatherCode = "weather_code"
      case maximum = "temperature_2m_max"
      case minimum = "temperature_2m_min"
      case precipitationProbability = "precipitation_probability_max"
      case sunrise, sunset
      case precipitationSum = "precipitation_sum"
      case uvIndexMaximum = "uv_index_max"
      case windSpeedMaximum = "wind_speed_10m_max"
      case daylightDuration = "daylight_duration"
    }
  }

  /// The current, hourly and daily variables the provider asks for, in the same order as above.
  static let currentVariables = [
    "temperature_2m", "relative_humidity_2m", "apparent_temperature", "is_day", "precipitation",
    "weather_code", "cloud_cover", "pressure_msl", "wind_speed_10m", "wind_direction_10m",
    "wind_gusts_10m", "uv_index", "visibility", "dew_point_2m",
  ]
  static let hourlyVariables = [
    "temperature_2m", "weather_code", "precipitation_probability", "precipitation",
    "wind_speed_10m", "wind_gusts_10m",
  ]
  static let minutely15Variables = ["precipitation"]
  /// Steps from the current quarter hour on: two hours, enough to say what the next hour does.
  /// More when the steps are kept to compose later frames (`seriesSteps`).
  static let minutely15Steps = 8
  static let dailyVariables = [
    "weather_code", "temperature_2m_max", "temperature_2m_min", "precipitation_probability_max",
    "sunrise", "sunset", "daylight_duration", "precipitation_sum", "uv_index_max",
    "wind_speed_10m_max",
  ]

  /// The forecast for `point`. `path` names this location in error texts ("" or "[2]").
  func forecast(for point: GeoPoint, path: String) throws(ProviderError) -> Forecast {
    // Without the offset neither the daily dates nor anything local can be placed.
    guard let utcOffsetSeconds else {
      throw .malformed("\(path.isEmpty ? "" : path + ".")utc_offset_seconds is missing")
    }
    // No place is more than 18 hours off UTC; a larger number would overflow the day arithmetic.
    guard abs(utcOffsetSeconds) <= 18 * 3_600 else {
      throw .malformed(
        "\(path.isEmpty ? "" : path + ".")utc_offset_seconds \(utcOffsetSeconds) is out of range")
    }
    // Asked for the current variables in 15-minute steps, the first step is `current`.
    let steps = minutely15?.currentSteps
    var forecast = Forecast(
      place: Forecast.Place(
        name: "", countryCode: nil, latitude: point.latitude, longitude: point.longitude),
      utcOffsetSeconds: utcOffsetSeconds,
      current: current.map(\.model) ?? steps?.first ?? Forecast.Current(),
      hourly: hourly?.model ?? [],
      daily: daily?.model(utcOffsetSeconds: Int64(utcOffsetSeconds)) ?? [],
      precipitationSteps: minutely15?.model)
    forecast.currentSteps = steps
    forecast.timeZone = timezone
    return forecast
  }
}

extension OpenMeteoForecastResponse.Current {
  fileprivate var model: Forecast.Current {
    Forecast.Current(
      time: unixSeconds(time), temperature: temperature,
      apparentTemperature: apparentTemperature, relativeHumidity: relativeHumidity,
      pressure: pressure, windSpeed: windSpeed, windGusts: windGusts,
      windDirection: windDirection, weatherCode: wmoCode(weatherCode),
      isDay: isDay.flatMap { $0 == 1 ? true : $0 == 0 ? false : nil },
      cloudCover: cloudCover, precipitation: precipitation, uvIndex: uvIndex,
      visibility: visibility, dewPoint: dewPoint)
  }
}

extension OpenMeteoForecastResponse.Hourly {
  fileprivate var model: [Forecast.Hour] {
    guard let time else { return [] }
    return time.indices.compactMap { index in
      guard let start = unixSeconds(time[index]) else { return nil }
      return Forecast.Hour(
        time: start, temperature: temperature.element(index),
        weatherCode: wmoCode(weatherCode.element(index)),
        precipitationProbability: precipitationProbability.element(index),
        precipitation: precipitation.element(index), windSpeed: windSpeed.element(index),
        windGusts: windGusts.element(index))
    }
  }
}

extension OpenMeteoForecastResponse.Minutely15 {
  fileprivate var model: [Forecast.PrecipitationStep]? {
    guard let time, !time.isEmpty else { return nil }
    return time.indices.compactMap { index in
      guard let end = unixSeconds(time[index]) else { return nil }
      return Forecast.PrecipitationStep(
        start: end - 900, seconds: 900, millimetres: precipitation.element(index))
    }
  }
}

extension OpenMeteoForecastResponse.Minutely15 {
  /// The current conditions at each step, when the steps carry the current variables (a
  /// temperature series at least); nil for the precipitation alone.
  fileprivate var currentSteps: [Forecast.Current]? {
    guard let time, !time.isEmpty, temperature != nil else { return nil }
    return time.indices.compactMap { index in
      guard let start = unixSeconds(time[index]) else { return nil }
      let isDay = isDay.element(index)
      return Forecast.Current(
        time: start, temperature: temperature.element(index),
        apparentTemperature: apparentTemperature.element(index),
        relativeHumidity: relativeHumidity.element(index), pressure: pressure.element(index),
        windSpeed: windSpeed.element(index), windGusts: windGusts.element(index),
        windDirection: windDirection.element(index),
        weatherCode: wmoCode(weatherCode.element(index)),
        isDay: isDay.flatMap { $0 == 1 ? true : $0 == 0 ? false : nil },
        cloudCover: cloudCover.element(index), precipitation: precipitation.element(index),
        uvIndex: uvIndex.element(index), visibility: visibility.element(index),
        dewPoint: dewPoint.element(index))
    }
  }
}

extension OpenMeteoForecastResponse.Daily {
  fileprivate func model(utcOffsetSeconds: Int64) -> [Forecast.Day] {
    guard let time else { return [] }
    return time.indices.compactMap { index in
      // Open-Meteo gives local midnight in UTC seconds; adding the offset back gives the date.
      // The offset is the one at the time of the call: across a change of daylight saving time
      // a later midnight is an hour off, so the nearest date is taken, not the one below.
      guard let midnight = unixSeconds(time[index]) else { return nil }
      let local = midnight + utcOffsetSeconds + 43_200
      let date = local / 86_400 - (local % 86_400 < 0 ? 1 : 0)
      return Forecast.Day(
        date: Int(date), minimum: minimum.element(index), maximum: maximum.element(index),
        weatherCode: wmoCode(weatherCode.element(index)),
        precipitationProbability: precipitationProbability.element(index),
        sunrise: unixSeconds(sunrise.element(index)), sunset: unixSeconds(sunset.element(index)),
        daylightSeconds: daylightDuration.element(index),
        precipitationSum: precipitationSum.element(index),
        uvIndexMaximum: uvIndexMaximum.element(index),
        windSpeedMaximum: windSpeedMaximum.element(index))
    }
  }
}

extension Optional where Wrapped == [Double?] {
  /// The element at `index`, nil when the array is missing or shorter than `time`.
  fileprivate func element(_ index: Int) -> Double? {
    guard let array = self, array.indices.contains(index) else { return nil }
    return array[index]
  }
}

/// Whole Unix seconds, nil for values no clock can show.
private func unixSeconds(_ value: Double?) -> Int64? {
  guard let value, value.isFinite, abs(value) < 1e15 else { return nil }
  return Int64(value.rounded(.down))
}

/// A WMO code is a small whole number; anything else is no code.
private func wmoCode(_ value: Double?) -> Int? {
  guard let value, value.isFinite, value == value.rounded(), abs(value) < 1e6 else { return nil }
  return Int(value)
}
