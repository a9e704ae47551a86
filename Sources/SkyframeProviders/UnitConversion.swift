import SkyframeWeather

/// A unit a service sends turned into the model's (SI), exactly: the service's decimal
/// (`ExactDecimal`) times an exact ratio, to the nearest `Double`. So 11.7 km/h is 3.25 m/s,
/// which the frames' 0.5 m/s steps round to 3.5 as frame-v1.md §6.8 says, where 11.7 / 3.6 is
/// 3.2499999999999996 and would round to 3.0. A value that is no short decimal is converted in
/// binary.
///
/// The services are asked for metric units (Open-Meteo `wind_speed_unit=ms`, OpenWeatherMap
/// `units=metric`) and only WeatherAPI.com's metric fields are read, so these are all the
/// conversions there are.
struct UnitConversion: Sendable {
  var numerator: Int64
  var denominator: Int64

  /// km/h to m/s: 1000 / 3600.
  static let kilometresPerHourToMetresPerSecond = UnitConversion(numerator: 5, denominator: 18)
  static let kilometresToMetres = UnitConversion(numerator: 1_000, denominator: 1)
  /// A rate in mm/h as the millimetres of one minute.
  static let perHourToPerMinute = UnitConversion(numerator: 1, denominator: 60)
  /// A probability from 0…1 to percent.
  static let fractionToPercent = UnitConversion(numerator: 100, denominator: 1)

  func callAsFunction(_ value: Double?) -> Double? {
    guard let value, value.isFinite else { return nil }
    guard let decimal = ExactDecimal(value) else {
      return value * Double(numerator) / Double(denominator)
    }
    return decimal.converted(times: numerator, over: denominator)
  }
}
