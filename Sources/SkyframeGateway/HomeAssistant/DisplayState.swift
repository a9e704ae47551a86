import Foundation
import SkyframeCodec
import SkyframeJSON
import SkyframeWeather

/// A named place's or watched place's current weather as one flat JSON object, retained on
/// `{base}/v1/state/{path}` for Home Assistant's sensors (docs/integrations/home-assistant.md): the
/// values of the standard frame in the units of `skyframe decode --json`, missing ones `null`.
struct DisplayState: Encodable, Equatable {
  var status: String?
  var name: String
  var country: String?
  var latitude: Double?
  var longitude: Double?
  var temperatureC: Double?
  var feelsLikeC: Double?
  var humidityPct: Int?
  var pressureHpa: Double?
  var windSpeedMs: Double?
  var windGustMs: Double?
  var windDirectionDeg: Int?
  var uvIndex: Double?
  var visibilityM: Int?
  var precipitationMm: Double?
  var weatherCode: Int?
  /// The WMO code's meaning (`schemas/wmo-codes.md`).
  var condition: String?
  var aqi: Int?
  /// `european_aqi` or `us_aqi`.
  var aqiScale: String?
  var alertCount: Int?
  /// The highest severity in force: `none`, `unknown`, `minor`, `moderate`, `severe`, `extreme`.
  var alertSeverity: String?
  /// `dry for the hour`, `precipitation in 20 min`, `precipitation, stopping in 20 min`,
  /// `precipitation all hour`.
  var precipNextHour: String?
  var precipChangeInMin: Int?
  var moonPhase: String?
  var moonIlluminationPct: Int?
  /// ISO 8601 in UTC, as Home Assistant's timestamp sensors take it.
  var fetchedAt: String?

  init(frame: WeatherFrame) {
    let document = FrameDocument(frame)
    // A status this version has no name for is left unknown.
    if case .name(let name) = document.status { status = name }
    name = document.name
    country = document.country
    latitude = document.latitude
    longitude = document.longitude
    let now = document.current
    temperatureC = now.temperature
    feelsLikeC = now.feelsLike
    humidityPct = now.humidity
    pressureHpa = now.pressure
    windSpeedMs = now.windSpeed
    windGustMs = now.windGust
    windDirectionDeg = now.windDirection
    uvIndex = now.uvIndex
    visibilityM = now.visibility
    precipitationMm = now.precipitation
    weatherCode = now.weatherCode
    condition = now.weatherCode.map(WMOCode.meaning)
    aqi = document.airQuality?.index
    aqiScale = document.airQuality?.scale
    alertCount = document.alerts?.count
    alertSeverity = document.alerts?.severity
    if let next = document.precipitationNextHour {
      let raining = next.now != "dry"
      precipChangeInMin = next.changeInMinutes
      precipNextHour =
        switch (raining, next.changeInMinutes) {
        case (false, nil): "dry for the hour"
        case (false, let minutes?): "precipitation in \(minutes) min"
        case (true, nil): "precipitation all hour"
        case (true, let minutes?): "precipitation, stopping in \(minutes) min"
        }
    }
    moonPhase = document.moon?.name
    moonIlluminationPct = document.moon?.illuminationPercent
    fetchedAt = document.fetchedAt.map(Self.iso8601)
  }

  /// `2024-01-15T15:05:00+00:00`.
  static func iso8601(_ seconds: Int) -> String {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let rest = seconds - days * 86_400
    let date = CivilDate(daysSinceEpoch: days).iso
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(date)T\(two(rest / 3_600)):\(two(rest / 60 % 60)):\(two(rest % 60))+00:00"
  }

  private enum CodingKeys: String, CodingKey {
    case status
    case name
    case country
    case latitude
    case longitude
    case temperatureC = "temperature_c"
    case feelsLikeC = "feels_like_c"
    case humidityPct = "humidity_pct"
    case pressureHpa = "pressure_hpa"
    case windSpeedMs = "wind_speed_ms"
    case windGustMs = "wind_gust_ms"
    case windDirectionDeg = "wind_direction_deg"
    case uvIndex = "uv_index"
    case visibilityM = "visibility_m"
    case precipitationMm = "precipitation_mm"
    case weatherCode = "weather_code"
    case condition
    case aqi
    case aqiScale = "aqi_scale"
    case alertCount = "alert_count"
    case alertSeverity = "alert_severity"
    case precipNextHour = "precip_next_hour"
    case precipChangeInMin = "precip_change_in_min"
    case moonPhase = "moon_phase"
    case moonIlluminationPct = "moon_illumination_pct"
    case fetchedAt = "fetched_at"
  }

  /// Every key, absent values as `null` (Home Assistant's templates then give `None`: unknown).
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(status, forKey: .status)
    try container.encode(name, forKey: .name)
    try container.encode(country, forKey: .country)
    try container.encode(latitude, forKey: .latitude)
    try container.encode(longitude, forKey: .longitude)
    try container.encode(temperatureC, forKey: .temperatureC)
    try container.encode(feelsLikeC, forKey: .feelsLikeC)
    try container.encode(humidityPct, forKey: .humidityPct)
    try container.encode(pressureHpa, forKey: .pressureHpa)
    try container.encode(windSpeedMs, forKey: .windSpeedMs)
    try container.encode(windGustMs, forKey: .windGustMs)
    try container.encode(windDirectionDeg, forKey: .windDirectionDeg)
    try container.encode(uvIndex, forKey: .uvIndex)
    try container.encode(visibilityM, forKey: .visibilityM)
    try container.encode(precipitationMm, forKey: .precipitationMm)
    try container.encode(weatherCode, forKey: .weatherCode)
    try container.encode(condition, forKey: .condition)
    try container.encode(aqi, forKey: .aqi)
    try container.encode(aqiScale, forKey: .aqiScale)
    try container.encode(alertCount, forKey: .alertCount)
    try container.encode(alertSeverity, forKey: .alertSeverity)
    try container.encode(precipNextHour, forKey: .precipNextHour)
    try container.encode(precipChangeInMin, forKey: .precipChangeInMin)
    try container.encode(moonPhase, forKey: .moonPhase)
    try container.encode(moonIlluminationPct, forKey: .moonIlluminationPct)
    try container.encode(fetchedAt, forKey: .fetchedAt)
  }

  func json() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return (try? encoder.encode(self)).map { [UInt8]($0) } ?? Array("{}".utf8)
  }
}
