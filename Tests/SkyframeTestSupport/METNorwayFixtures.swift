import Foundation

/// Answers in MET Norway's Locationforecast 2.0 `compact` shape, with values made up here: hourly
/// steps for 60 hours from the current hour, then six-hourly steps to 9 days, as the service
/// sends them.
public enum METNorwayFixtures {
  /// Where the stub serves it; the gateway's `met-norway.base-url` is the stub's URL +
  /// `/weatherapi/locationforecast/2.0`.
  public static let path = "/weatherapi/locationforecast/2.0/compact"
  public static let basePath = "/weatherapi/locationforecast/2.0"

  /// A forecast with `temperature` now and in every step, snow now (`snow` with 0.4 mm in the
  /// next hour), symbols by day and night.
  public static func compact(
    latitude: Double, longitude: Double, temperature: Double, now: Int64
  ) -> String {
    let start = now - now % 3_600
    var steps: [String] = []
    var time = start
    while time < start + 9 * 86_400 {
      let hourly = time < start + 60 * 3_600
      let hour = Int((time % 86_400) / 3_600)
      let suffix = (6..<18).contains(hour) ? "day" : "night"
      var periods = [
        #""next_6_hours":{"summary":{"symbol_code":"partlycloudy_\#(suffix)"},"details":{"precipitation_amount":0.0}}"#,
        #""next_12_hours":{"summary":{"symbol_code":"fair_\#(suffix)"},"details":{}}"#,
      ]
      if hourly {
        let symbol = time == start ? "snow" : "cloudy"
        periods.append(
          #""next_1_hours":{"summary":{"symbol_code":"\#(symbol)"},"details":{"precipitation_amount":\#(time == start ? 0.4 : 0.0)}}"#
        )
      }
      steps.append(
        #"{"time":"\#(iso(time))","data":{"instant":{"details":{"air_pressure_at_sea_level":1013.2,"air_temperature":\#(temperature),"cloud_area_fraction":90.0,"relative_humidity":81.4,"wind_from_direction":200.0,"wind_speed":3.4}},\#(periods.joined(separator: ","))}}"#
      )
      time += hourly ? 3_600 : 6 * 3_600
    }
    return #"""
      {"type":"Feature","geometry":{"type":"Point","coordinates":[\#(longitude),\#(latitude),12]},"properties":{"meta":{"updated_at":"\#(iso(start))","units":{"air_pressure_at_sea_level":"hPa","air_temperature":"celsius","cloud_area_fraction":"%","precipitation_amount":"mm","relative_humidity":"%","wind_from_direction":"degrees","wind_speed":"m/s"}},"timeseries":[\#(steps.joined(separator: ","))]}}
      """#
  }

  /// `2026-02-06T21:00:00Z`.
  public static func iso(_ unix: Int64) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
    return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unix)))
  }

  /// An IMF-fixdate, as `Expires` and `Last-Modified` are written.
  public static func httpDate(_ unix: Int64) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unix)))
  }
}
