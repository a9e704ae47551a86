import SkyframeWeather

/// An OpenWeatherMap `/data/2.5/weather` answer requested with `units=metric`: the weather now.
/// Every key is optional; what is missing becomes nil in the model.
struct OpenWeatherMapWeatherResponse: Decodable {
  /// Time of the observation, Unix seconds.
  var dt: Int64?
  /// The place's offset from UTC in seconds.
  var timezone: Int?
  var main: Main?
  var wind: OpenWeatherMapWind?
  var clouds: Clouds?
  /// Metres; the service reports at most 10 km.
  var visibility: Double?
  var rain: OpenWeatherMapVolume?
  var snow: OpenWeatherMapVolume?
  var weather: [OpenWeatherMapCondition]?
  var sys: Sys?

  struct Main: Decodable {
    var temp: Double?
    var feelsLike: Double?
    var humidity: Double?
    /// Sea-level pressure when the station has no separate `sea_level`, else station level.
    var pressure: Double?
    var seaLevel: Double?

    enum CodingKeys: String, CodingKey {
      case temp
      case feelsLike = "feels_like"
      case humidity, pressure
      case seaLevel = "sea_level"
    }
  }

  struct Clouds: Decodable {
    var all: Double?
  }

  struct Sys: Decodable {
    var sunrise: Int64?
    var sunset: Int64?
  }

  var sunrise: Int64? { openWeatherMapSunTime(sys?.sunrise) }
  var sunset: Int64? { openWeatherMapSunTime(sys?.sunset) }

  var current: Forecast.Current {
    Forecast.Current(
      time: dt, temperature: main?.temp, apparentTemperature: main?.feelsLike,
      relativeHumidity: main?.humidity, pressure: main?.seaLevel ?? main?.pressure,
      windSpeed: wind?.speed, windGusts: wind?.gust, windDirection: wind?.deg,
      weatherCode: weather?.wmoCode,
      isDay: openWeatherMapIsDay(
        icon: weather?.first?.icon, time: dt, sunrise: sunrise, sunset: sunset),
      cloudCover: clouds?.all,
      precipitation: openWeatherMapPrecipitation(
        rain: rain?.lastHour, snow: snow?.lastHour, conditionID: weather?.primaryID),
      // The 2.5 answers have no UV index and no dew point.
      uvIndex: nil, visibility: visibility)
  }
}
