import Foundation

/// Answers in OpenWeatherMap's and WeatherAPI.com's shapes for the gateway tests, with values made
/// up here: `/data/2.5/weather`, `/data/2.5/forecast`, `/geo/1.0/direct|reverse`,
/// `/v1/forecast.json`, `/v1/search.json`.
public enum ServiceFixtures {
  /// The path of each service's endpoints on the stub server.
  public enum Service: String, Sendable, CaseIterable {
    case openMeteo = "open-meteo"
    case openWeatherMap = "openweathermap"
    case weatherAPI = "weatherapi"
    case metNorway = "met-norway"

    public func owns(_ path: String) -> Bool {
      switch self {
      case .openMeteo: path == "/v1/forecast" || path == "/v1/search"
      case .openWeatherMap: path.hasPrefix("/data/") || path.hasPrefix("/geo/")
      case .weatherAPI: path.hasSuffix(".json")
      case .metNorway: path == METNorwayFixtures.path
      }
    }
  }

  /// Answers any of the services' calls for `places`, with `temperature` everywhere, as at
  /// Unix time `now` (the present when nil).
  public static func answer(
    _ request: StubHTTPRequest, places: [OpenMeteoFixtures.Place], temperature: Double,
    now: Int? = nil
  )
    -> StubHTTPResponse
  {
    let now = now ?? Self.now()
    let query = request.query
    let latitude = Double(query["lat"] ?? query["latitude"] ?? "") ?? 0
    let longitude = Double(query["lon"] ?? query["longitude"] ?? "") ?? 0
    switch request.path {
    case "/v1/forecast":
      return .json(OpenMeteoFixtures.forecast(query: query, temperature: temperature, now: now))
    case "/v1/search":
      return .json(OpenMeteoFixtures.search(name: query["name"] ?? "", in: places))
    case "/v1/air-quality":
      return .json(OpenMeteoFixtures.airQuality(query: query))
    case "/data/2.5/weather":
      return .json(
        owmWeather(latitude: latitude, longitude: longitude, temperature: temperature, now: now))
    case "/data/2.5/forecast":
      return .json(
        owmForecast(latitude: latitude, longitude: longitude, temperature: temperature, now: now))
    case "/geo/1.0/direct":
      let name = (query["q"] ?? "").split(separator: ",").first.map(String.init) ?? ""
      return .json(owmPlaces(places.filter { $0.name.lowercased() == name.lowercased() }))
    case "/geo/1.0/reverse":
      let nearest = places.min {
        abs($0.latitude - latitude) + abs($0.longitude - longitude)
          < abs($1.latitude - latitude) + abs($1.longitude - longitude)
      }
      let near =
        nearest.map { abs($0.latitude - latitude) + abs($0.longitude - longitude) < 0.5 } ?? false
      return .json(owmPlaces(near ? [nearest!] : []))
    case "/v1/forecast.json":
      let parts = (query["q"] ?? "").split(separator: ",").compactMap { Double($0) }
      return .json(
        weatherAPIForecast(
          latitude: parts.first ?? 0, longitude: parts.count > 1 ? parts[1] : 0,
          temperature: temperature, now: now))
    case METNorwayFixtures.path:
      return .json(
        METNorwayFixtures.compact(
          latitude: latitude, longitude: longitude, temperature: temperature, now: Int64(now)))
    case "/v1/search.json":
      let name = query["q"] ?? ""
      return .json(weatherAPISearch(places.filter { $0.name.lowercased() == name.lowercased() }))
    default:
      return .json(#"{"message":"no such endpoint"}"#, status: 404)
    }
  }

  public static func now() -> Int { Int(Date().timeIntervalSince1970) }

  public static func owmWeather(
    latitude: Double, longitude: Double, temperature: Double, now: Int = ServiceFixtures.now()
  ) -> String {
    return """
      {"coord":{"lon":\(longitude),"lat":\(latitude)},"weather":[{"id":500,"main":"Rain","description":"light rain","icon":"10d"}],\
      "base":"stations","main":{"temp":\(temperature),"feels_like":\(temperature - 3),"temp_min":\(temperature - 1),\
      "temp_max":\(temperature + 1),"pressure":1004,"humidity":77,"sea_level":1006,"grnd_level":990},\
      "visibility":9000,"wind":{"speed":5.5,"deg":200,"gust":10.2},"rain":{"1h":0.6},"clouds":{"all":90},\
      "dt":\(now - 300),"sys":{"country":"XX","sunrise":\(now - 20_000),"sunset":\(now + 10_000)},\
      "timezone":3600,"id":1,"name":"Stubtown","cod":200}
      """
  }

  public static func owmForecast(
    latitude: Double, longitude: Double, temperature: Double, now: Int = ServiceFixtures.now()
  ) -> String {
    let start = now - now % 10_800
    let entries = (0..<40).map { index in
      """
      {"dt":\(start + index * 10_800),"main":{"temp":\(temperature + Double(index % 4)),"feels_like":\(temperature),\
      "temp_min":\(temperature - 2),"temp_max":\(temperature + 3),"pressure":1004,"humidity":70},\
      "weather":[{"id":\([500, 803, 800][index % 3]),"main":"x","description":"x","icon":"04d"}],\
      "clouds":{"all":60},"wind":{"speed":4.1,"deg":210},"visibility":10000,"pop":0.\(index % 9),\
      "sys":{"pod":"d"},"dt_txt":"-"}
      """
    }
    return """
      {"cod":"200","message":0,"cnt":40,"list":[\(entries.joined(separator: ","))],\
      "city":{"id":1,"name":"Stubtown","coord":{"lat":\(latitude),"lon":\(longitude)},"country":"XX",\
      "population":1000,"timezone":3600,"sunrise":\(now - 20_000),"sunset":\(now + 10_000)}}
      """
  }

  public static func owmPlaces(_ places: [OpenMeteoFixtures.Place]) -> String {
    "["
      + places.map {
        #"{"name":"\#($0.name)","lat":\#($0.latitude),"lon":\#($0.longitude),"country":"\#($0.countryCode)","state":"Stubland"}"#
      }.joined(separator: ",") + "]"
  }

  public static func weatherAPIForecast(
    latitude: Double, longitude: Double, temperature: Double, now: Int = ServiceFixtures.now()
  ) -> String {
    // UTC+1: the local wall clock is written without zero padding for the hour, as the service does.
    let local = now + 3_600
    let day = local - local % 86_400
    let hour = (local % 86_400) / 3_600
    let minute = (local % 3_600) / 60
    let date = dateText(daysSince1970: day / 86_400)
    func forecastDay(_ offset: Int) -> String {
      let dayStart = day + offset * 86_400
      let hours = (0..<24).map { index in
        """
        {"time_epoch":\(dayStart - 3_600 + index * 3_600),"time":"x","temp_c":\(temperature + Double(index % 3)),\
        "is_day":\(index >= 7 && index < 17 ? 1 : 0),"condition":{"text":"x","icon":"x","code":1183},\
        "chance_of_rain":\(index * 4),"chance_of_snow":0}
        """
      }
      return """
        {"date":"\(dateText(daysSince1970: dayStart / 86_400))","date_epoch":\(dayStart),\
        "day":{"maxtemp_c":\(temperature + 4),"mintemp_c":\(temperature - 4),"daily_chance_of_rain":70,\
        "daily_chance_of_snow":0,"condition":{"text":"Light rain","icon":"x","code":1183},"uv":2.0},\
        "astro":{"sunrise":"07:55 AM","sunset":"04:31 PM"},"hour":[\(hours.joined(separator: ","))]}
        """
    }
    return """
      {"location":{"name":"Stubtown","region":"","country":"Germany","lat":\(latitude),"lon":\(longitude),\
      "tz_id":"Europe/Berlin","localtime_epoch":\(now),"localtime":"\(date) \(hour):\(minute < 10 ? "0" : "")\(minute)"},\
      "current":{"last_updated_epoch":\(now - 600),"last_updated":"x","temp_c":\(temperature),"is_day":1,\
      "condition":{"text":"Light rain","icon":"x","code":1183},"wind_kph":18.0,"wind_degree":200,\
      "pressure_mb":1004.0,"precip_mm":0.4,"humidity":80,"cloud":75,"feelslike_c":\(temperature - 2),\
      "vis_km":9.0,"uv":1.0,"gust_kph":30.6},\
      "forecast":{"forecastday":[\(forecastDay(0)),\(forecastDay(1)),\(forecastDay(2))]}}
      """
  }

  public static func weatherAPISearch(_ places: [OpenMeteoFixtures.Place]) -> String {
    "["
      + places.enumerated().map { index, place in
        #"{"id":\#(index + 1),"name":"\#(place.name)","region":"","country":"\#(countryName(place.countryCode))","lat":\#(place.latitude),"lon":\#(place.longitude),"url":"x"}"#
      }.joined(separator: ",") + "]"
  }

  static func countryName(_ code: String) -> String {
    ["DE": "Germany", "FR": "France", "IT": "Italy", "NO": "Norway"][code] ?? code
  }

  static func dateText(daysSince1970 days: Int) -> String {
    let date = Date(timeIntervalSince1970: TimeInterval(days) * 86_400)
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
  }
}
