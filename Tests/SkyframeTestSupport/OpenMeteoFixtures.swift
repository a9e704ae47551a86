import Foundation

/// Answers in Open-Meteo's shape (`/v1/forecast` with `timeformat=unixtime`, `/v1/search`), with
/// values made up for the tests: no recorded response is copied here.
public enum OpenMeteoFixtures {
  public struct Place: Sendable {
    public var name: String
    public var countryCode: String
    public var latitude: Double
    public var longitude: Double

    public init(name: String, countryCode: String, latitude: Double, longitude: Double) {
      self.name = name
      self.countryCode = countryCode
      self.latitude = latitude
      self.longitude = longitude
    }
  }

  /// One forecast object for a point: `temperature` now, 48 hours from the start of the current
  /// UTC day, 7 days; `utcOffset` in seconds.
  public static func forecast(
    latitude: Double, longitude: Double, temperature: Double, utcOffset: Int = 3_600,
    now: Int = Int(Date().timeIntervalSince1970), minutely15: [Double?]? = nil
  ) -> String {
    let hourStart = now - now % 3_600 - 6 * 3_600
    let localMidnight = (now + utcOffset) / 86_400 * 86_400 - utcOffset
    let hours = (0..<48).map { hourStart + $0 * 3_600 }
    let days = (0..<7).map { localMidnight + $0 * 86_400 }
    func list<T>(_ values: [T]) -> String {
      "[" + values.map { "\($0)" }.joined(separator: ",") + "]"
    }
    // `minutely_15` from the current quarter hour: each time ends the 15 minutes it sums.
    let quarterEnds = (minutely15 ?? []).indices.map { now - now % 900 + 900 * ($0 + 1) }
    let minutely =
      minutely15.map { values in
        #","minutely_15_units":{"time":"unixtime","precipitation":"mm"},"#
          + #""minutely_15":{"time":\#(list(quarterEnds)),"precipitation":["#
          + values.map { $0.map { "\($0)" } ?? "null" }.joined(separator: ",") + "]}"
      } ?? ""
    let hourlyTemperatures = hours.indices.map { index in
      index == 3 ? "null" : String(format: "%.1f", temperature + Double(index % 5) * 0.5)
    }
    return """
      {"latitude":\(latitude),"longitude":\(longitude),"generationtime_ms":0.31,"utc_offset_seconds":\(utcOffset),\
      "timezone":"Europe/Berlin","timezone_abbreviation":"GMT+1","elevation":38.0,\
      "current_units":{"time":"unixtime","interval":"seconds","temperature_2m":"°C"},\
      "current":{"time":\(now - now % 900),"interval":900,"temperature_2m":\(temperature),\
      "relative_humidity_2m":71,"apparent_temperature":\(temperature - 2.5),"is_day":1,"precipitation":0.2,\
      "weather_code":61,"cloud_cover":88,"pressure_msl":1012.6,"wind_speed_10m":4.7,\
      "wind_direction_10m":230,"wind_gusts_10m":9.1,"uv_index":1.35,"visibility":18400.0,"dew_point_2m":5.1},\
      "hourly_units":{"time":"unixtime","temperature_2m":"°C","weather_code":"wmo code","precipitation_probability":"%"},\
      "hourly":{"time":\(list(hours)),"temperature_2m":[\(hourlyTemperatures.joined(separator: ","))],\
      "weather_code":\(list(hours.indices.map { [61, 3, 2][$0 % 3] })),\
      "precipitation_probability":\(list(hours.indices.map { $0 * 3 % 100 })),\
      "precipitation":\(list(hours.indices.map { Double($0 % 4) * 0.3 })),\
      "wind_speed_10m":\(list(hours.indices.map { 3.0 + Double($0 % 6) })),\
      "wind_gusts_10m":\(list(hours.indices.map { 7.25 + Double($0 % 6) }))},\
      "daily_units":{"time":"unixtime","weather_code":"wmo code"},\
      "daily":{"time":\(list(days)),"weather_code":[61,3,2,1,0,45,80],\
      "temperature_2m_max":[9.5,10.1,11.8,8.0,7.7,6.4,9.9],"temperature_2m_min":[2.1,3.0,4.4,1.2,-0.5,-1.8,0.3],\
      "precipitation_probability_max":[80,40,10,5,0,20,65],\
      "sunrise":\(list(days.map { $0 + 28_000 })),"sunset":\(list(days.map { $0 + 58_000 })),\
      "daylight_duration":\(list(days.map { _ in "30000.0" })),\
      "precipitation_sum":[4.2,0.8,0.0,0.0,0.0,1.5,6.3],"uv_index_max":[1.9,2.4,3.0,3.1,3.3,1.2,2.2],\
      "wind_speed_10m_max":[9.4,7.0,5.5,4.1,3.9,8.8,12.6]}\(minutely)}
      """
  }

  /// `/v1/forecast` for the comma-separated `latitude`/`longitude` of a query: one object for one
  /// point, an array for several, as Open-Meteo answers.
  public static func forecast(
    query: [String: String], temperature: Double, now: Int = Int(Date().timeIntervalSince1970)
  ) -> String {
    let latitudes = (query["latitude"] ?? "").split(separator: ",").compactMap { Double($0) }
    let longitudes = (query["longitude"] ?? "").split(separator: ",").compactMap { Double($0) }
    // Asked for quarter hours: dry now and for the next quarter, then rain.
    let minutely: [Double?]? =
      query["minutely_15"] == nil ? nil : [0, 0, 0.4, 1.2, 0.8, 0, 0, 0]
    let bodies = zip(latitudes, longitudes).map {
      forecast(
        latitude: $0, longitude: $1, temperature: temperature, now: now, minutely15: minutely)
    }
    return bodies.count == 1 ? bodies[0] : "[" + bodies.joined(separator: ",") + "]"
  }

  /// `/v1/air-quality` with `current=european_aqi,us_aqi`: one object for one point, an array
  /// for several; the indices are made up from the coordinates so each cell has its own.
  public static func airQuality(
    query: [String: String], now: Int = Int(Date().timeIntervalSince1970)
  )
    -> String
  {
    let latitudes = (query["latitude"] ?? "").split(separator: ",").compactMap { Double($0) }
    let longitudes = (query["longitude"] ?? "").split(separator: ",").compactMap { Double($0) }
    let bodies = zip(latitudes, longitudes).map { latitude, longitude in
      let european = Int(abs(latitude).rounded()) % 90
      let us = Int(abs(longitude).rounded()) % 200
      return """
        {"latitude":\(latitude),"longitude":\(longitude),"generationtime_ms":0.2,"utc_offset_seconds":0,\
        "timezone":"GMT","timezone_abbreviation":"GMT","elevation":40.0,\
        "current_units":{"time":"unixtime","interval":"seconds","european_aqi":"EAQI","us_aqi":"USAQI"},\
        "current":{"time":\(now - now % 3_600),"interval":3600,"european_aqi":\(european),"us_aqi":\(us)}}
        """
    }
    return bodies.count == 1 ? bodies[0] : "[" + bodies.joined(separator: ",") + "]"
  }

  /// `/v1/search`: the places whose name matches, or a body without `results` when none does.
  public static func search(name: String, in places: [Place]) -> String {
    let matches = places.filter { $0.name.lowercased() == name.lowercased() }
    guard !matches.isEmpty else { return #"{"generationtime_ms":0.42}"# }
    let results = matches.enumerated().map { index, place in
      """
      {"id":\(2_950_000 + index),"name":"\(place.name)","latitude":\(place.latitude),"longitude":\(place.longitude),\
      "elevation":74.0,"feature_code":"PPLC","country_code":"\(place.countryCode)","timezone":"Europe/Berlin",\
      "population":3426354,"country":"Somewhere","admin1":"Region"}
      """
    }
    return #"{"results":["# + results.joined(separator: ",") + #"],"generationtime_ms":0.61}"#
  }

  public static let badRequest =
    #"{"error":true,"reason":"Parameter 'current' holds an unknown variable: tempeature_2m"}"#
  public static let rateLimited =
    #"{"error":true,"reason":"Too many calls this minute; slow down."}"#
}
