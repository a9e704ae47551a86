import Foundation
import SkyframeWeather

/// A WeatherAPI.com `/v1/forecast.json` answer: `location`, `current` and one `forecastday` per
/// day with 24 hours each. Every key is optional; what is missing becomes nil in the model. The
/// service sends metric and imperial values side by side; only the metric ones are read.
struct WeatherAPIForecastResponse: Decodable {
  var location: Location?
  var current: Current?
  var forecast: Days?
  /// Present with `alerts=yes`: `{"alert": [...]}`, the list empty when none is in force.
  var alerts: AlertList?

  struct AlertList: Decodable {
    var alert: [Alert]?
  }

  /// Of each alert only what the frames need: its CAP severity (often null outside the US),
  /// when it is in force (ISO 8601 with offset) and its event name (the `large` profile).
  struct Alert: Decodable {
    var severity: String?
    var effective: String?
    var expires: String?
    var event: String?

    var model: Forecast.Alert {
      Forecast.Alert(
        severity: Forecast.Alert.severity(cap: severity), start: isoSeconds(effective),
        end: isoSeconds(expires), event: event.flatMap { $0.isEmpty ? nil : $0 })
    }
  }

  struct Location: Decodable {
    var localtimeEpoch: Int64?
    /// "2024-02-04 9:18": the place's wall clock at `localtime_epoch`.
    var localtime: String?

    enum CodingKeys: String, CodingKey {
      case localtimeEpoch = "localtime_epoch"
      case localtime
    }
  }

  struct Condition: Decodable {
    var code: Int?
  }

  struct Current: Decodable {
    var lastUpdatedEpoch: Int64?
    var tempC: Double?
    var feelslikeC: Double?
    var humidity: Double?
    var pressureMb: Double?
    var windKph: Double?
    var gustKph: Double?
    var windDegree: Double?
    var cloud: Double?
    var precipMm: Double?
    var uv: Double?
    var visKm: Double?
    /// Only in newer answers.
    var dewpointC: Double?
    var isDay: Int?
    var condition: Condition?

    enum CodingKeys: String, CodingKey {
      case lastUpdatedEpoch = "last_updated_epoch"
      case tempC = "temp_c"
      case feelslikeC = "feelslike_c"
      case humidity
      case pressureMb = "pressure_mb"
      case windKph = "wind_kph"
      case gustKph = "gust_kph"
      case windDegree = "wind_degree"
      case cloud
      case precipMm = "precip_mm"
      case uv
      case visKm = "vis_km"
      case dewpointC = "dewpoint_c"
      case isDay = "is_day"
      case condition
    }
  }

  struct Days: Decodable {
    var forecastday: [Day]?
  }

  struct Day: Decodable {
    /// "2024-02-04", the place's local date.
    var date: String?
    /// Midnight UTC of `date`.
    var dateEpoch: Int64?
    var day: Summary?
    var astro: Astro?
    var hour: [Hour]?

    enum CodingKeys: String, CodingKey {
      case date
      case dateEpoch = "date_epoch"
      case day, astro, hour
    }
  }

  struct Summary: Decodable {
    var mintempC: Double?
    var maxtempC: Double?
    /// Percent; older versions of the service sent these as strings.
    var dailyChanceOfRain: LenientNumber?
    var dailyChanceOfSnow: LenientNumber?
    var condition: Condition?
    var totalprecipMm: Double?
    var maxwindKph: Double?
    var uv: Double?

    enum CodingKeys: String, CodingKey {
      case mintempC = "mintemp_c"
      case maxtempC = "maxtemp_c"
      case dailyChanceOfRain = "daily_chance_of_rain"
      case dailyChanceOfSnow = "daily_chance_of_snow"
      case condition
      case totalprecipMm = "totalprecip_mm"
      case maxwindKph = "maxwind_kph"
      case uv
    }
  }

  struct Astro: Decodable {
    /// "07:42 AM" local, or "No sunrise".
    var sunrise: String?
    /// "05:34 PM" local, or "No sunset".
    var sunset: String?
  }

  struct Hour: Decodable {
    var timeEpoch: Int64?
    var tempC: Double?
    var isDay: Int?
    var condition: Condition?
    var chanceOfRain: LenientNumber?
    var chanceOfSnow: LenientNumber?
    /// Precipitation in the hour, mm (`snow_cm` is a depth of snow, not read).
    var precipMm: Double?
    var windKph: Double?
    var gustKph: Double?
    var uv: Double?

    enum CodingKeys: String, CodingKey {
      case timeEpoch = "time_epoch"
      case tempC = "temp_c"
      case isDay = "is_day"
      case condition
      case chanceOfRain = "chance_of_rain"
      case chanceOfSnow = "chance_of_snow"
      case precipMm = "precip_mm"
      case windKph = "wind_kph"
      case gustKph = "gust_kph"
      case uv
    }
  }

  /// The forecast for `point`. The offset comes from `location` (see
  /// `WeatherAPILocalTime.utcOffsetSeconds`) and is also used to place each day's sunrise and
  /// sunset, so on a day when the clocks change those two are an hour off.
  func forecast(for point: GeoPoint) throws(ProviderError) -> Forecast {
    guard let localtime = location?.localtime, let epoch = location?.localtimeEpoch else {
      throw .malformed("location.localtime or location.localtime_epoch is missing")
    }
    guard
      let utcOffsetSeconds = WeatherAPILocalTime.utcOffsetSeconds(
        localtime: localtime, epoch: epoch)
    else {
      throw .malformed("location.localtime \"\(localtime)\" is not a local time near \(epoch)")
    }
    let days = forecast?.forecastday ?? []
    return Forecast(
      place: Forecast.Place(
        name: "", countryCode: nil, latitude: point.latitude, longitude: point.longitude),
      utcOffsetSeconds: utcOffsetSeconds, current: current?.model ?? Forecast.Current(),
      hourly: days.flatMap { $0.hour ?? [] }.compactMap(\.model).sorted { $0.time < $1.time },
      hourlyStepHours: 1,
      daily: days.compactMap { $0.model(utcOffsetSeconds: utcOffsetSeconds) }
        .sorted { $0.date < $1.date },
      alerts: alerts.map { Forecast.Alert.distinct(($0.alert ?? []).map(\.model)) })
  }
}

/// km/h in m/s, exactly (`UnitConversion`).
private let kph = UnitConversion.kilometresPerHourToMetresPerSecond

/// "2022-07-21T19:38:00+00:00" → Unix seconds; nil for anything else.
func isoSeconds(_ text: String?) -> Int64? {
  guard let text, !text.isEmpty else { return nil }
  let parser = ISO8601DateFormatter()
  parser.formatOptions = [.withInternetDateTime]
  return parser.date(from: text).map { Int64($0.timeIntervalSince1970) }
}

extension WeatherAPIForecastResponse.Current {
  fileprivate var model: Forecast.Current {
    Forecast.Current(
      time: lastUpdatedEpoch, temperature: tempC, apparentTemperature: feelslikeC,
      relativeHumidity: humidity, pressure: pressureMb, windSpeed: kph(windKph),
      windGusts: kph(gustKph), windDirection: windDegree,
      weatherCode: condition?.code.flatMap(WeatherAPIConditions.wmo),
      isDay: isDay.flatMap { $0 == 1 ? true : $0 == 0 ? false : nil }, cloudCover: cloud,
      precipitation: precipMm, uvIndex: uv, visibility: UnitConversion.kilometresToMetres(visKm),
      dewPoint: dewpointC)
  }
}

extension WeatherAPIForecastResponse.Hour {
  fileprivate var model: Forecast.Hour? {
    guard let timeEpoch else { return nil }
    return Forecast.Hour(
      time: timeEpoch, temperature: tempC,
      weatherCode: condition?.code.flatMap(WeatherAPIConditions.wmo),
      precipitationProbability: higher(chanceOfRain?.value, chanceOfSnow?.value),
      precipitation: precipMm, windSpeed: kph(windKph), windGusts: kph(gustKph))
  }
}

extension WeatherAPIForecastResponse.Day {
  /// The day, dated by `date` (else by `date_epoch`); nil when it has neither.
  fileprivate func model(utcOffsetSeconds: Int) -> Forecast.Day? {
    guard
      let date = date.flatMap(WeatherAPILocalTime.date)
        ?? dateEpoch.map({ Int(flooredDivision($0, 86_400)) })
    else { return nil }
    let localMidnight = Int64(date) * 86_400 - Int64(utcOffsetSeconds)
    let sunrise = astro?.sunrise.flatMap(WeatherAPILocalTime.twelveHourTime)
    let sunset = astro?.sunset.flatMap(WeatherAPILocalTime.twelveHourTime)
    return Forecast.Day(
      date: date, minimum: day?.mintempC, maximum: day?.maxtempC,
      weatherCode: day?.condition?.code.flatMap(WeatherAPIConditions.wmo),
      precipitationProbability: higher(
        day?.dailyChanceOfRain?.value, day?.dailyChanceOfSnow?.value),
      sunrise: sunrise.map { localMidnight + Int64($0) },
      sunset: sunset.map { localMidnight + Int64($0) },
      daylightSeconds: polarDaylight, precipitationSum: day?.totalprecipMm,
      uvIndexMaximum: uvIndexMaximum, windSpeedMaximum: kph(day?.maxwindKph))
  }

  /// The highest of the hours' `uv` and the day's own `uv`. In full answers the day's figure is
  /// below its hours' highest (2 against 4), so the hours decide; an answer whose hours are cut
  /// short still has the day's.
  private var uvIndexMaximum: Double? {
    (hour ?? []).compactMap(\.uv).reduce(day?.uv) { max($0 ?? $1, $1) }
  }

  /// With "No sunrise" and "No sunset" the day is all light or all dark; the hours' `is_day` tell
  /// which (86 400 or 0 seconds). Nil on any other day, and when the hours disagree.
  private var polarDaylight: Double? {
    guard let sunrise = astro?.sunrise, let sunset = astro?.sunset,
      sunrise.lowercased().hasPrefix("no "), sunset.lowercased().hasPrefix("no ")
    else { return nil }
    let flags = Set((hour ?? []).compactMap(\.isDay))
    switch flags {
    case [1]: return 86_400
    case [0]: return 0
    default: return nil
    }
  }
}
