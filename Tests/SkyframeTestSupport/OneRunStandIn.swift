import Foundation

/// Open-Meteo's `/v1/forecast` (`timeformat=unixtime`, `timezone=auto`) for one model run at a
/// time, made up here: every variable is a function of the run, the point and the time, so the
/// answer to a call at any moment is what the same run says then. `current` is the 15-minute
/// series at the present step, as the service makes it; `minutely_15` starts at that step;
/// `hourly` and `daily` start at the place's local midnight; `utc_offset_seconds` is the zone's
/// offset at the time of the call. The zone is a real one (`Europe/Berlin`), so daylight saving
/// time changes as it does there.
public struct OneRunStandIn: Sendable {
  public var run: Int
  public var zone: TimeZone

  public init(run: Int, zone: TimeZone = TimeZone(identifier: "Europe/Berlin")!) {
    self.run = run
    self.zone = zone
  }

  /// The answer to `query` asked at `now`: one object for one point, an array for several.
  public func forecast(query: [String: String], now: Int64) -> String {
    let latitudes = (query["latitude"] ?? "").split(separator: ",").compactMap { Double($0) }
    let longitudes = (query["longitude"] ?? "").split(separator: ",").compactMap { Double($0) }
    let bodies = zip(latitudes, longitudes).map { forecast(query, $0, $1, now) }
    return bodies.count == 1 ? bodies[0] : "[" + bodies.joined(separator: ",") + "]"
  }

  /// The run's value of `variable` at `time` (a step, an hour) at the point (`seed`).
  func value(_ variable: String, _ time: Int64, _ seed: Double) -> String {
    let r = Double(run)
    let phase = 2 * Double.pi * Double(time % 86_400) / 86_400
    func tenth(_ x: Double) -> String { String(format: "%.1f", (x * 10).rounded() / 10) }
    let step = Int(time / 900)
    switch variable {
    case "temperature_2m": return tenth(6 + r * 1.3 + seed + 5 * sin(phase))
    case "apparent_temperature": return tenth(3 + r * 1.1 + seed + 6 * sin(phase))
    case "dew_point_2m": return tenth(1 + r * 0.7 + 2 * cos(phase))
    case "relative_humidity_2m": return "\(60 + (step * 7 + run * 5) % 35)"
    case "pressure_msl": return tenth(1_005 + r * 2.5 + 6 * cos(phase))
    case "wind_speed_10m": return tenth(3 + r * 0.4 + 2.5 * sin(phase * 2))
    case "wind_gusts_10m": return tenth(7 + r * 0.9 + 4 * sin(phase * 2))
    case "wind_direction_10m": return "\((step * 11 + run * 40) % 360)"
    case "cloud_cover": return "\((step * 13 + run * 9) % 101)"
    case "uv_index": return tenth(max(0, 3 * sin(phase) + r * 0.2))
    case "visibility": return "\(12_000 + (step * 370 + run * 1_000) % 20_000).0"
    case "weather_code": return "\([0, 1, 2, 3, 45, 61, 63, 80][(step + run) % 8])"
    case "is_day":
      return (time + 3_600) % 86_400 >= 25_200 && (time + 3_600) % 86_400 < 61_200 ? "1" : "0"
    // The 15 minutes before `time`: wet for half an hour in every hour and three quarters.
    case "precipitation": return [0, 0, 0, 0.4, 1.2, 0, 0][(step + run) % 7].description
    case "precipitation_probability": return "\((step / 4 * 17 + run * 3) % 101)"
    case "hourly_precipitation": return tenth(Double((step / 4 + run) % 5) * 0.3)
    default: return "null"
    }
  }

  func forecast(_ query: [String: String], _ latitude: Double, _ longitude: Double, _ now: Int64)
    -> String
  {
    let seed = (latitude * 7 + longitude * 3).truncatingRemainder(dividingBy: 2)
    let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(now)))
    let present = now - now % 900
    let days = Int(query["forecast_days"] ?? "7") ?? 7
    // Local midnights from today's: each day's own offset, as the zone says.
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = zone
    let today = calendar.startOfDay(for: Date(timeIntervalSince1970: TimeInterval(now)))
    let midnights = (0...days).map {
      Int64(calendar.date(byAdding: .day, value: $0, to: today)!.timeIntervalSince1970)
    }
    func list(_ values: [String]) -> String { "[" + values.joined(separator: ",") + "]" }
    func numbers(_ values: [Int64]) -> String { list(values.map(String.init)) }

    var parts: [String] = [
      #""latitude":\#(latitude),"longitude":\#(longitude),"generationtime_ms":0.2"#,
      #""utc_offset_seconds":\#(offset),"timezone":"\#(zone.identifier)""#,
      #""timezone_abbreviation":"GMT\#(offset >= 0 ? "+" : "-")\#(abs(offset) / 3_600)""#,
    ]
    let currentVariables = (query["current"] ?? "").split(separator: ",").map(String.init)
    if !currentVariables.isEmpty {
      let values = currentVariables.map { #""\#($0)":\#(value($0, present, seed))"# }
      parts.append(
        #""current":{"time":\#(present),"interval":900,"# + values.joined(separator: ",") + "}")
    }
    let minutelyVariables = (query["minutely_15"] ?? "").split(separator: ",").map(String.init)
    if !minutelyVariables.isEmpty {
      let count = Int(query["forecast_minutely_15"] ?? "96") ?? 96
      let times = (0..<count).map { present + Int64($0) * 900 }
      let series = minutelyVariables.map { variable in
        #""\#(variable)":"# + list(times.map { value(variable, $0, seed) })
      }
      parts.append(
        #""minutely_15":{"time":\#(numbers(times)),"# + series.joined(separator: ",") + "}")
    }
    let hours = Array(stride(from: midnights[0], to: midnights[days], by: 3_600))
    let hourly: [(String, String)] = [
      ("temperature_2m", "temperature_2m"), ("weather_code", "weather_code"),
      ("precipitation_probability", "precipitation_probability"),
      ("precipitation", "hourly_precipitation"), ("wind_speed_10m", "wind_speed_10m"),
      ("wind_gusts_10m", "wind_gusts_10m"),
    ]
    parts.append(
      #""hourly":{"time":\#(numbers(hours)),"#
        + hourly.map { name, source in
          #""\#(name)":"# + list(hours.map { value(source, $0, seed) })
        }.joined(separator: ",") + "}")
    let dayStarts = Array(midnights[0..<days])
    func daily(_ f: (Int, Int64) -> String) -> String {
      list(dayStarts.enumerated().map { f($0.offset, $0.element) })
    }
    let date = { (midnight: Int64) in Int((midnight + 43_200) / 86_400) }
    parts.append(
      #""daily":{"time":\#(numbers(dayStarts)),"#
        + #""weather_code":\#(daily { [61, 3, 2, 1, 0, 45, 80][(date($1) + run) % 7].description }),"#
        + #""temperature_2m_max":\#(daily { String(format: "%.1f", 9.5 + Double((date($1) + run) % 6)) }),"#
        + #""temperature_2m_min":\#(daily { String(format: "%.1f", 1.5 - Double((date($1) * 3 + run) % 5)) }),"#
        + #""precipitation_probability_max":\#(daily { "\((date($1) * 13 + run) % 101)" }),"#
        + #""sunrise":\#(daily { "\($1 + 25_000 + Int64(date($1) % 60) * 30)" }),"#
        + #""sunset":\#(daily { "\($1 + 60_000 - Int64(date($1) % 60) * 30)" }),"#
        + #""daylight_duration":\#(daily { "\(35_000 - (date($1) % 60) * 60).0" }),"#
        + #""precipitation_sum":\#(daily { String(format: "%.1f", Double((date($1) + run) % 4) * 1.7) }),"#
        + #""uv_index_max":\#(daily { String(format: "%.1f", 1 + Double((date($1) + run) % 3)) }),"#
        + #""wind_speed_10m_max":\#(daily { String(format: "%.2f", 6.25 + Double((date($1) + run) % 5)) })}"#
    )
    return "{" + parts.joined(separator: ",") + "}"
  }
}
