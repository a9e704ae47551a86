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

  /// In the shape of the `complete` product (gusts, dew point, clear-sky UV, probabilities), at
  /// 64.1466 N 21.9426 W (local mean solar time UTC-1), made up here: hourly steps from
  /// 2026-03-01T20:00Z (19:00 local), six-hourly ones from 00:00Z (23:00 local, so the first
  /// six hours straddle local midnight), the last step with its instant only. Precipitation
  /// counted without overlaps: 4.0 mm on 1 March, 2.5 mm on 2 March; the hourly steps'
  /// `next_6_hours` amounts (9, 8, 7 mm) overlap their hours.
  public static let completeAcrossMidnight = #"""
    {"type":"Feature","geometry":{"type":"Point","coordinates":[-21.9426,64.1466,30]},
     "properties":{"meta":{"updated_at":"2026-03-01T19:41:12Z","units":{"air_temperature":"celsius","dew_point_temperature":"celsius","precipitation_amount":"mm","probability_of_precipitation":"%","ultraviolet_index_clear_sky":"1","wind_speed":"m/s","wind_speed_of_gust":"m/s"}},
      "timeseries":[
       {"time":"2026-03-01T20:00:00Z","data":{"instant":{"details":{"air_pressure_at_sea_level":998.1,"air_temperature":1.2,"cloud_area_fraction":96.1,"dew_point_temperature":-2.5,"fog_area_fraction":0.0,"relative_humidity":75.3,"ultraviolet_index_clear_sky":0.0,"wind_from_direction":141.7,"wind_speed":4.0,"wind_speed_of_gust":9.5}},
         "next_12_hours":{"summary":{"symbol_code":"rain"},"details":{"probability_of_precipitation":80.0}},
         "next_1_hours":{"summary":{"symbol_code":"lightrain"},"details":{"precipitation_amount":0.5,"precipitation_amount_max":0.9,"precipitation_amount_min":0.1,"probability_of_precipitation":40.0,"probability_of_thunder":0.0}},
         "next_6_hours":{"summary":{"symbol_code":"rain"},"details":{"air_temperature_max":1.2,"air_temperature_min":-0.5,"precipitation_amount":9.0,"probability_of_precipitation":75.0}}}},
       {"time":"2026-03-01T21:00:00Z","data":{"instant":{"details":{"air_temperature":0.8,"dew_point_temperature":-2.7,"ultraviolet_index_clear_sky":0.0,"wind_speed":6.0,"wind_speed_of_gust":11.0}},
         "next_1_hours":{"summary":{"symbol_code":"lightrain"},"details":{"precipitation_amount":0.25,"probability_of_precipitation":35.0}},
         "next_6_hours":{"summary":{"symbol_code":"rain"},"details":{"precipitation_amount":8.0}}}},
       {"time":"2026-03-01T22:00:00Z","data":{"instant":{"details":{"air_temperature":0.4,"dew_point_temperature":-2.9,"wind_speed":5.0,"wind_speed_of_gust":10.0}},
         "next_1_hours":{"summary":{"symbol_code":"lightrain"},"details":{"precipitation_amount":0.25,"probability_of_precipitation":30.0}},
         "next_6_hours":{"summary":{"symbol_code":"rain"},"details":{"precipitation_amount":7.0}}}},
       {"time":"2026-03-01T23:00:00Z","data":{"instant":{"details":{"air_temperature":0.1,"dew_point_temperature":-3.0,"wind_speed":3.0,"wind_speed_of_gust":7.5}},
         "next_1_hours":{"summary":{"symbol_code":"rain"},"details":{"precipitation_amount":1.0,"probability_of_precipitation":60.0}}}},
       {"time":"2026-03-02T00:00:00Z","data":{"instant":{"details":{"air_temperature":-0.5,"wind_speed":7.5,"wind_speed_of_gust":14.0}},
         "next_12_hours":{"summary":{"symbol_code":"lightsnow"},"details":{}},
         "next_6_hours":{"summary":{"symbol_code":"rain"},"details":{"precipitation_amount":2.0,"probability_of_precipitation":70.0}}}},
       {"time":"2026-03-02T06:00:00Z","data":{"instant":{"details":{"air_temperature":-1.5,"ultraviolet_index_clear_sky":0.3,"wind_speed":8.2}},
         "next_6_hours":{"summary":{"symbol_code":"lightsnow"},"details":{"precipitation_amount":1.5,"probability_of_precipitation":55.0}}}},
       {"time":"2026-03-02T12:00:00Z","data":{"instant":{"details":{"air_temperature":2.5,"ultraviolet_index_clear_sky":2.1,"wind_speed":10.4}},
         "next_6_hours":{"summary":{"symbol_code":"cloudy"},"details":{"precipitation_amount":0.0}}}},
       {"time":"2026-03-02T18:00:00Z","data":{"instant":{"details":{"air_temperature":0.0,"ultraviolet_index_clear_sky":0.0,"wind_speed":9.0}},
         "next_6_hours":{"summary":{"symbol_code":"lightrain"},"details":{"precipitation_amount":0.25}}}},
       {"time":"2026-03-03T00:00:00Z","data":{"instant":{"details":{"air_temperature":-1.0,"wind_speed":4.0}},
         "next_6_hours":{"summary":{"symbol_code":"lightrain"},"details":{"precipitation_amount":0.75}}}},
       {"time":"2026-03-03T06:00:00Z","data":{"instant":{"details":{"air_temperature":-2.0,"wind_speed":3.3}}}}
      ]}}
    """#

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
