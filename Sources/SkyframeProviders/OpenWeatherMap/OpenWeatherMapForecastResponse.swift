import SkyframeWeather

/// An OpenWeatherMap `/data/2.5/forecast` answer requested with `units=metric`: 40 points three
/// hours apart, starting at the next multiple of three hours UTC. Every key is optional.
struct OpenWeatherMapForecastResponse: Decodable {
  var list: [Entry]?
  var city: City?

  struct Entry: Decodable {
    /// Unix seconds.
    var dt: Int64?
    var main: Main?
    var weather: [OpenWeatherMapCondition]?
    /// Probability of precipitation, 0…1.
    var pop: Double?
  }

  struct Main: Decodable {
    var temp: Double?
    var tempMin: Double?
    var tempMax: Double?

    enum CodingKeys: String, CodingKey {
      case temp
      case tempMin = "temp_min"
      case tempMax = "temp_max"
    }
  }

  struct City: Decodable {
    /// The place's offset from UTC in seconds.
    var timezone: Int?
    var sunrise: Int64?
    var sunset: Int64?
  }

  /// The forecast for `point` from this answer and the current weather `now`.
  ///
  /// Hourly points are the 3-hour entries as they are (`hourlyStepHours` 3: a frame's 12 slots
  /// then cover 36 hours). Daily points fold the entries by the place's local date: the lowest
  /// `temp_min`, the highest `temp_max`, the highest probability, and the highest WMO code of the
  /// date. WMO 4677 numbers weather so that the higher code is the more significant (observers
  /// report the highest that applies), and Open-Meteo's daily code is the day's most severe too,
  /// so a day means the same whichever service answered. The current observation counts as one
  /// more point of today: late in the evening the forecast may have no entry left for today.
  /// Today's sunrise and sunset come from the current weather (else from the `city` block).
  func forecast(for point: GeoPoint, now: OpenWeatherMapWeatherResponse) throws(ProviderError)
    -> Forecast
  {
    guard let utcOffsetSeconds = now.timezone ?? city?.timezone else {
      throw .malformed("timezone is missing from both the weather and the forecast answer")
    }
    let current = now.current
    let entries = (list ?? []).compactMap { entry in entry.dt.map { (time: $0, entry: entry) } }
      .sorted { $0.time < $1.time }

    var days: [Int: Forecast.Day] = [:]
    func fold(
      _ time: Int64, minimum: Double?, maximum: Double?, code: Int?, probability: Double?
    ) {
      let date = localDate(time, utcOffsetSeconds: utcOffsetSeconds)
      var day = days[date] ?? Forecast.Day(date: date)
      day.minimum = lower(day.minimum, minimum)
      day.maximum = higher(day.maximum, maximum)
      day.weatherCode = higher(day.weatherCode, code)
      day.precipitationProbability = higher(day.precipitationProbability, probability)
      days[date] = day
    }
    for (time, entry) in entries {
      fold(
        time, minimum: entry.main?.tempMin ?? entry.main?.temp,
        maximum: entry.main?.tempMax ?? entry.main?.temp, code: entry.weather?.wmoCode,
        probability: openWeatherMapPercent(entry.pop))
    }
    if let time = current.time {
      fold(
        time, minimum: current.temperature, maximum: current.temperature,
        code: current.weatherCode, probability: nil)
    }
    if let sunrise = now.sunrise ?? openWeatherMapSunTime(city?.sunrise) {
      let date = localDate(sunrise, utcOffsetSeconds: utcOffsetSeconds)
      days[date, default: Forecast.Day(date: date)].sunrise = sunrise
    }
    if let sunset = now.sunset ?? openWeatherMapSunTime(city?.sunset) {
      let date = localDate(sunset, utcOffsetSeconds: utcOffsetSeconds)
      days[date, default: Forecast.Day(date: date)].sunset = sunset
    }

    return Forecast(
      place: Forecast.Place(
        name: "", countryCode: nil, latitude: point.latitude, longitude: point.longitude),
      utcOffsetSeconds: utcOffsetSeconds, current: current,
      hourly: entries.map { time, entry in
        Forecast.Hour(
          time: time, temperature: entry.main?.temp, weatherCode: entry.weather?.wmoCode,
          precipitationProbability: openWeatherMapPercent(entry.pop))
      },
      hourlyStepHours: 3,
      daily: days.values.sorted { $0.date < $1.date })
  }
}
