import SkyframeWeather

/// One element of the `weather` array every OpenWeatherMap answer has; the first is the primary
/// condition.
struct OpenWeatherMapCondition: Decodable {
  var id: Int?
  /// "10d", "01n": the last letter is OpenWeatherMap's own day or night decision.
  var icon: String?
}

/// A `rain` or `snow` block: millimetres in the last hour (`1h`: the weather now, One Call's
/// hours) or in a 3-hour step of the 5 day / 3 hour forecast (`3h`). One Call's days give bare
/// numbers instead.
struct OpenWeatherMapVolume: Decodable {
  var lastHour: Double?
  var threeHours: Double?

  enum CodingKeys: String, CodingKey {
    case lastHour = "1h"
    case threeHours = "3h"
  }
}

/// The `wind` block of `/data/2.5/weather` and of each `/data/2.5/forecast` step: m/s with
/// `units=metric`.
struct OpenWeatherMapWind: Decodable {
  var speed: Double?
  var deg: Double?
  /// Left out where the service has no gust.
  var gust: Double?
}

extension [OpenWeatherMapCondition] {
  /// The primary condition's id.
  var primaryID: Int? { first?.id }

  /// The primary condition as a WMO code; nil when missing or undocumented.
  var wmoCode: Int? { primaryID.flatMap(OpenWeatherMapConditions.wmo) }
}

/// OpenWeatherMap sends 0 for a sunrise or sunset that does not happen (polar day and night).
func openWeatherMapSunTime(_ value: Int64?) -> Int64? {
  guard let value, value > 0 else { return nil }
  return value
}

/// Day or night now: the icon's last letter when there is one (it stays right in polar day and
/// night), else whether `time` lies between sunrise and sunset.
func openWeatherMapIsDay(
  icon: String?, time: Int64?, sunrise: Int64?, sunset: Int64?
) -> Bool? {
  switch icon?.last {
  case "d": return true
  case "n": return false
  default: break
  }
  guard let time, let sunrise, let sunset else { return nil }
  return time >= sunrise && time < sunset
}

/// Millimetres of rain and snow together in one period (an hour, a 3-hour step, a day).
/// OpenWeatherMap leaves `rain` and `snow` out when nothing falls, so their absence is 0 mm,
/// unless the condition itself is precipitation (ids 2xx–6xx): then the amount is unknown, not
/// zero.
func openWeatherMapPrecipitation(rain: Double?, snow: Double?, conditionID: Int?) -> Double? {
  if rain != nil || snow != nil { return ExactDecimal.sum([rain ?? 0, snow ?? 0]) }
  guard let conditionID, OpenWeatherMapConditions.wmo(conditionID) != nil else { return nil }
  return (200..<700).contains(conditionID) ? nil : 0
}

/// A probability of precipitation (0…1) in percent, exactly: 0.57 is 57, not 56.99999999999999.
func openWeatherMapPercent(_ probability: Double?) -> Double? {
  UnitConversion.fractionToPercent(probability)
}
