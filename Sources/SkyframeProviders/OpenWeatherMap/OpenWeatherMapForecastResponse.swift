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
    var wind: OpenWeatherMapWind?
    /// `3h`: millimetres in the 3-hour step; the blocks are absent when nothing falls.
    var rain: OpenWeatherMapVolume?
    var snow: OpenWeatherMapVolume?

    /// The step's 3 hours of rain and snow, as given (not divided into hours).
    var precipitation: Double? {
      openWeatherMapPrecipitation(
        rain: rain?.threeHours, snow: snow?.threeHours, conditionID: weather?.primaryID)
    }
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
  ///
  /// The `large` profile's values: each hourly point keeps its step's 3-hour amount, wind and
  /// gust. A day's precipitation is the sum of its steps' amounts, unknown as soon as one step's
  /// is; its wind maximum is the highest `wind.speed` of its steps and, today, of the current
  /// weather. As for the temperatures, a partial date counts what the answer holds of it: today
  /// only the steps still to come (what fell earlier is in no answer, and the current weather's
  /// last hour does not join up with the first step, so it is not added), the last date up to
  /// its last step; a date without steps (today late in the evening) has no sum. The 2.5 answers
  /// have no dew point and no UV index: those stay nil.
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
    // Per date, the sum of its steps' amounts; nil once one of them is unknown.
    var precipitationSums: [Int: Double?] = [:]
    func fold(
      _ time: Int64, minimum: Double?, maximum: Double?, code: Int?, probability: Double?,
      windSpeed: Double?
    ) -> Int {
      let date = localDate(time, utcOffsetSeconds: utcOffsetSeconds)
      var day = days[date] ?? Forecast.Day(date: date)
      day.minimum = lower(day.minimum, minimum)
      day.maximum = higher(day.maximum, maximum)
      day.weatherCode = higher(day.weatherCode, code)
      day.precipitationProbability = higher(day.precipitationProbability, probability)
      day.windSpeedMaximum = higher(day.windSpeedMaximum, windSpeed)
      days[date] = day
      return date
    }
    for (time, entry) in entries {
      let date = fold(
        time, minimum: entry.main?.tempMin ?? entry.main?.temp,
        maximum: entry.main?.tempMax ?? entry.main?.temp, code: entry.weather?.wmoCode,
        probability: openWeatherMapPercent(entry.pop), windSpeed: entry.wind?.speed)
      let amount = entry.precipitation
      precipitationSums[date, default: 0] = precipitationSums[date, default: 0].flatMap { sum in
        amount.map { ExactDecimal.sum([sum, $0]) }
      }
    }
    if let time = current.time {
      _ = fold(
        time, minimum: current.temperature, maximum: current.temperature,
        code: current.weatherCode, probability: nil, windSpeed: current.windSpeed)
    }
    for (date, sum) in precipitationSums { days[date]?.precipitationSum = sum }
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
          precipitationProbability: openWeatherMapPercent(entry.pop),
          precipitation: entry.precipitation, windSpeed: entry.wind?.speed,
          windGusts: entry.wind?.gust)
      },
      hourlyStepHours: 3,
      daily: days.values.sorted { $0.date < $1.date })
  }
}
