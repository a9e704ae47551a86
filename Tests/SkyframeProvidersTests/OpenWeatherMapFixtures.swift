/// Answers in OpenWeatherMap's shapes (`/data/2.5/weather`, `/data/2.5/forecast`,
/// `/data/3.0/onecall`, `/geo/1.0/…`, error bodies) with values made up for the tests: no
/// recorded response is copied here.
enum OpenWeatherMapFixtures {
  // MARK: Pune, UTC+5:30, 2025-03-10 14:20 local: haze now, a thunderstorm tomorrow afternoon.

  static let puneWeather = """
    {"coord":{"lon":73.8567,"lat":18.5204},
    "weather":[{"id":721,"main":"Haze","description":"haze","icon":"50d"}],
    "base":"stations",
    "main":{"temp":32.8,"feels_like":31.9,"temp_min":32.1,"temp_max":33.4,"pressure":1009,
    "humidity":28,"sea_level":1011,"grnd_level":948},
    "visibility":6000,"wind":{"speed":3.6,"deg":290,"gust":5.1},"clouds":{"all":20},
    "dt":1741596600,
    "sys":{"type":1,"id":9064,"country":"IN","sunrise":1741569720,"sunset":1741612260},
    "timezone":19800,"id":1259229,"name":"Pune","cod":200}
    """

  /// Ten 3-hour entries from 09:00 UTC; the fifth (21:00 UTC on the 10th) is 02:30 local on the
  /// 11th.
  static let puneForecast = """
    {"cod":"200","message":0,"cnt":10,"list":[
    \(entry(1_741_597_200, 33.1, 32.4, 33.6, 801, 0, "2025-03-10 09:00:00"))
    \(entry(1_741_608_000, 31.2, 30.9, 31.2, 802, 0, "2025-03-10 12:00:00"))
    \(entry(1_741_618_800, 27.5, 27.5, 27.5, 500, 0.2, "2025-03-10 15:00:00"))
    \(entry(1_741_629_600, 24.9, 24.1, 24.9, 803, 0.05, "2025-03-10 18:00:00"))
    \(entry(1_741_640_400, 22.3, 22.0, 22.3, 800, 0, "2025-03-10 21:00:00"))
    \(entry(1_741_651_200, 20.8, 20.8, 20.8, 800, 0, "2025-03-11 00:00:00"))
    \(entry(1_741_662_000, 24.6, 24.6, 24.6, 721, 0, "2025-03-11 03:00:00"))
    \(entry(1_741_672_800, 31.0, 31.0, 31.0, 801, 0.1, "2025-03-11 06:00:00"))
    \(entry(1_741_683_600, 34.2, 34.2, 34.2, 211, 0.57, "2025-03-11 09:00:00"))
    \(entry(1_741_694_400, 32.0, 32.0, 32.0, 501, 0.8, "2025-03-11 12:00:00", last: true))
    ],
    "city":{"id":1259229,"name":"Pune","coord":{"lat":18.5204,"lon":73.8567},"country":"IN",
    "population":0,"timezone":19800,"sunrise":1741569720,"sunset":1741612260}}
    """

  // MARK: Ushuaia, UTC-3, 2025-07-15 22:40 local: snowing, no gust and no sea_level given.

  static let ushuaiaWeather = """
    {"coord":{"lon":-68.303,"lat":-54.8019},
    "weather":[{"id":600,"main":"Snow","description":"light snow","icon":"13n"}],
    "base":"stations",
    "main":{"temp":-2.7,"feels_like":-8.1,"temp_min":-3.0,"temp_max":-2.2,"pressure":998,
    "humidity":86},
    "visibility":4500,"wind":{"speed":7.2,"deg":250},"clouds":{"all":100},
    "snow":{"1h":0.4},"dt":1752630000,
    "sys":{"type":2,"id":2091,"country":"AR","sunrise":1752584100,"sunset":1752610500},
    "timezone":-10800,"id":3833367,"name":"Ushuaia","cod":200}
    """

  /// Six entries, all on the local 16th: the 15th has only the current observation.
  static let ushuaiaForecast = """
    {"cod":"200","message":0,"cnt":6,"list":[
    \(entry(1_752_634_800, -3.5, -4.0, -3.5, 600, 0.3, "2025-07-16 03:00:00"))
    \(entry(1_752_645_600, -4.8, -5.2, -4.8, 601, 0.6, "2025-07-16 06:00:00"))
    \(entry(1_752_656_400, -5.6, -5.6, -5.6, 600, 0.45, "2025-07-16 09:00:00"))
    \(entry(1_752_667_200, -4.1, -4.1, -4.1, 804, 0.1, "2025-07-16 12:00:00"))
    \(entry(1_752_678_000, -1.2, -1.2, -0.9, 803, 0, "2025-07-16 15:00:00"))
    \(entry(1_752_688_800, -0.4, -0.6, -0.4, 620, 0.25, "2025-07-16 18:00:00", last: true))
    ],
    "city":{"id":3833367,"name":"Ushuaia","coord":{"lat":-54.8019,"lon":-68.303},"country":"AR",
    "population":0,"timezone":-10800,"sunrise":1752584100,"sunset":1752610500}}
    """

  // MARK: Vancouver, UTC-8, 2025-11-20 14:10 local: rain turning to snow overnight.

  static let vancouverWeather = """
    {"coord":{"lon":-123.1207,"lat":49.2827},
    "weather":[{"id":500,"main":"Rain","description":"light rain","icon":"10d"}],
    "base":"stations",
    "main":{"temp":7.5,"feels_like":4.9,"temp_min":6.9,"temp_max":8.1,"pressure":1006,
    "humidity":88,"sea_level":1006,"grnd_level":1001},
    "visibility":9000,"wind":{"speed":6.5,"deg":160,"gust":9.0},"clouds":{"all":90},
    "rain":{"1h":0.3},"dt":1763676600,
    "sys":{"type":2,"id":2011597,"country":"CA","sunrise":1763652660,"sunset":1763684700},
    "timezone":-28800,"id":6173331,"name":"Vancouver","cod":200}
    """

  /// Eight 3-hour entries from 00:00 UTC on the 21st: three on the local 20th (16:00, 19:00,
  /// 22:00), five on the 21st (01:00 to 13:00). `3h` amounts: 20th 0.5 + 1.25 + dry; 21st
  /// 0.75 rain with 0.25 snow, 2.5 snow, 0.5 snow (no gust given), then dry twice. Without
  /// `amountOfStep4`, the 2.5 mm of snow at 04:00 on the 21st is left out while its condition
  /// stays snow: that step's amount is unknown.
  static func vancouverForecast(amountOfStep4: Bool = true) -> String {
    """
    {"cod":"200","message":0,"cnt":8,"list":[
    \(entry(1_763_683_200, 7.0, 6.8, 7.0, 500, 0.8, "-", wind: 4.0, gust: 7.5, rain: 0.5))
    \(entry(1_763_694_000, 6.4, 6.4, 6.6, 501, 0.95, "-", wind: 5.5, gust: 9.5, rain: 1.25))
    \(entry(1_763_704_800, 5.9, 5.9, 5.9, 804, 0.4, "-", wind: 3.0, gust: 5.0))
    \(entry(1_763_715_600, 3.1, 3.1, 3.1, 616, 0.9, "-", wind: 7.25, gust: 12.0, rain: 0.75,
      snow: 0.25))
    \(entry(1_763_726_400, 1.2, 1.2, 1.2, 601, 1, "-", wind: 8.5, gust: 14.0,
      snow: amountOfStep4 ? 2.5 : nil))
    \(entry(1_763_737_200, 0.9, 0.9, 0.9, 600, 0.7, "-", wind: 6.0, gust: nil, snow: 0.5))
    \(entry(1_763_748_000, 2.5, 2.5, 2.5, 803, 0.2, "-", wind: 5.0, gust: 8.0))
    \(entry(1_763_758_800, 4.0, 4.0, 4.0, 800, 0, "-", wind: 4.5, gust: 6.5, last: true))
    ],
    "city":{"id":6173331,"name":"Vancouver","coord":{"lat":49.2827,"lon":-123.1207},
    "country":"CA","population":0,"timezone":-28800,"sunrise":1763652660,"sunset":1763684700}}
    """
  }

  // MARK: Sparse answers.

  /// Rain without a `rain` block, an icon without d/n, no sunrise (0), no `timezone`.
  static let sparseWeather = """
    {"coord":{"lon":15.63,"lat":78.22},"weather":[{"id":502,"icon":"10"}],
    "main":{"temp":null},"dt":1736060000,"sys":{"sunrise":0,"sunset":0},"cod":200}
    """

  /// An entry without `dt` (left out), one with an unknown id and a null `pop`; the offset is
  /// only here.
  static let sparseForecast = """
    {"cod":"200","message":0,"cnt":3,"list":[
    {"dt":1736067600,"main":{"temp":-11.5}},
    {"main":{"temp":-12.0},"weather":[{"id":800}]},
    {"dt":1736078400,"weather":[{"id":999,"icon":"99n"}],"pop":null}],
    "city":{"timezone":3600,"sunrise":0,"sunset":0}}
    """

  // MARK: One Call 3.0, St. John's, UTC-3:30, 2025-01-20 10:35 local.

  static let stJohnsOneCall = """
    {"lat":47.5615,"lon":-52.7126,"timezone":"America/St_Johns","timezone_offset":-12600,
    "current":{"dt":1737381900,"sunrise":1737373560,"sunset":1737406500,"temp":-6.3,
    "feels_like":-12.9,"pressure":1021,"humidity":74,"dew_point":-10.2,"uvi":0.8,"clouds":40,
    "visibility":10000,"wind_speed":6.7,"wind_deg":300,"wind_gust":11.2,
    "weather":[{"id":802,"main":"Clouds","description":"scattered clouds","icon":"03d"}]},
    "hourly":[
    {"dt":1737381600,"temp":-6.5,"feels_like":-13.0,"pressure":1021,"humidity":74,"uvi":0.7,
    "clouds":40,"visibility":10000,"wind_speed":6.5,"wind_deg":300,"wind_gust":11.0,
    "weather":[{"id":802,"main":"Clouds","description":"scattered clouds","icon":"03d"}],"pop":0},
    {"dt":1737385200,"temp":-5.9,"feels_like":-12.1,"pressure":1020,"humidity":76,"uvi":1.0,
    "clouds":70,"visibility":10000,"wind_speed":6.1,"wind_deg":295,"wind_gust":10.4,
    "weather":[{"id":803,"main":"Clouds","description":"broken clouds","icon":"04d"}],"pop":0.1},
    {"dt":1737388800,"temp":-5.2,"feels_like":-11.0,"pressure":1019,"humidity":83,"uvi":0.9,
    "clouds":95,"visibility":3100,"wind_speed":5.8,"wind_deg":280,"wind_gust":9.9,
    "weather":[{"id":600,"main":"Snow","description":"light snow","icon":"13d"}],"pop":0.35,
    "snow":{"1h":0.21}},
    {"dt":1737392400,"temp":-5.0,"feels_like":-10.8,"pressure":1018,"humidity":88,"uvi":0.6,
    "clouds":100,"visibility":900,"wind_speed":5.6,"wind_deg":270,"wind_gust":9.5,
    "weather":[{"id":601,"main":"Snow","description":"snow","icon":"13d"}],"pop":0.72,
    "snow":{"1h":0.83}}],
    "daily":[
    {"dt":1737387000,"sunrise":1737373560,"sunset":1737406500,"moonrise":1737338460,
    "moonset":1737379320,"moon_phase":0.7,"summary":"Snow from midday",
    "temp":{"day":-5.2,"min":-9.8,"max":-4.6,"night":-8.0,"eve":-6.1,"morn":-9.5},
    "feels_like":{"day":-11.0,"night":-14.2,"eve":-12.0,"morn":-15.9},"pressure":1021,
    "humidity":80,"dew_point":-9.0,"wind_speed":6.7,"wind_deg":290,"wind_gust":12.0,
    "weather":[{"id":600,"main":"Snow","description":"light snow","icon":"13d"}],"clouds":90,
    "pop":0.72,"snow":1.9,"uvi":1.0},
    {"dt":1737473400,"sunrise":1737459900,"sunset":1737493020,
    "temp":{"day":-8.0,"min":-12.1,"max":-7.5,"night":-11.0,"eve":-9.2,"morn":-12.0},
    "weather":[{"id":800,"main":"Clear","description":"clear sky","icon":"01d"}],"clouds":3,
    "pop":0,"uvi":1.4},
    {"dt":1737559800,"sunrise":0,"sunset":0,
    "temp":{"day":0.5,"min":-3.0,"max":1.5,"night":-0.4,"eve":0.9,"morn":-2.6},
    "weather":[{"id":616,"main":"Snow","description":"rain and snow","icon":"13d"}],
    "clouds":100,"pop":1,"rain":3.2,"snow":1.1,"uvi":0.5}]}
    """

  // MARK: One Call 3.0, Bergen, UTC+1, 2025-12-05 09:40 local: rain, sleet at 10:00.

  /// Hourly `rain`/`snow` are objects with `1h`; daily `rain`/`snow` are bare day totals. The
  /// 11:00 hour has no `wind_gust`; the 12:00 hour says rain but has no `rain` block (amount
  /// unknown); the third day says rain and has neither `rain`, `uvi` nor `wind_speed`.
  static let bergenOneCall = """
    {"lat":60.3913,"lon":5.3221,"timezone":"Europe/Oslo","timezone_offset":3600,
    "current":{"dt":1764924000,"sunrise":1764922500,"sunset":1764943500,"temp":4.2,
    "feels_like":0.9,"pressure":998,"humidity":91,"dew_point":2.9,"uvi":0,"clouds":100,
    "visibility":8000,"wind_speed":8.4,"wind_deg":200,"wind_gust":15.1,
    "weather":[{"id":500,"main":"Rain","description":"light rain","icon":"10d"}],
    "rain":{"1h":0.75}},
    "hourly":[
    {"dt":1764921600,"temp":4.0,"feels_like":0.6,"pressure":998,"humidity":90,"dew_point":2.6,
    "uvi":0,"clouds":100,"visibility":9000,"wind_speed":8.0,"wind_deg":200,"wind_gust":14.5,
    "weather":[{"id":500,"main":"Rain","description":"light rain","icon":"10d"}],"pop":0.9,
    "rain":{"1h":0.75}},
    {"dt":1764925200,"temp":4.3,"feels_like":0.8,"pressure":997,"humidity":93,"dew_point":3.3,
    "uvi":0.1,"clouds":100,"visibility":6000,"wind_speed":8.5,"wind_deg":205,"wind_gust":15.5,
    "weather":[{"id":616,"main":"Snow","description":"rain and snow","icon":"13d"}],"pop":1,
    "rain":{"1h":0.5},"snow":{"1h":0.25}},
    {"dt":1764928800,"temp":4.1,"feels_like":0.3,"pressure":997,"humidity":95,"dew_point":3.4,
    "uvi":0.2,"clouds":100,"visibility":4000,"wind_speed":9.25,"wind_deg":210,
    "weather":[{"id":501,"main":"Rain","description":"moderate rain","icon":"10d"}],"pop":1,
    "rain":{"1h":2.5}},
    {"dt":1764932400,"temp":3.8,"feels_like":0.4,"pressure":998,"humidity":94,"dew_point":2.9,
    "uvi":0.3,"clouds":100,"visibility":7000,"wind_speed":6.0,"wind_deg":220,"wind_gust":10.0,
    "weather":[{"id":500,"main":"Rain","description":"light rain","icon":"10d"}],"pop":0.8},
    {"dt":1764936000,"temp":3.5,"feels_like":0.2,"pressure":999,"humidity":89,"dew_point":1.9,
    "uvi":0.1,"clouds":95,"visibility":10000,"wind_speed":5.5,"wind_deg":230,"wind_gust":9.0,
    "weather":[{"id":804,"main":"Clouds","description":"overcast clouds","icon":"04d"}],
    "pop":0.4}],
    "daily":[
    {"dt":1764932400,"sunrise":1764922500,"sunset":1764943500,"moonrise":1764948000,
    "moonset":1764918000,"moon_phase":0.5,"summary":"Rain with sleet in the morning",
    "temp":{"day":4.1,"min":2.2,"max":4.6,"night":2.5,"eve":3.0,"morn":3.9},
    "feels_like":{"day":0.3,"night":-1.0,"eve":-0.4,"morn":0.5},"pressure":998,"humidity":92,
    "dew_point":3.0,"wind_speed":9.5,"wind_deg":210,"wind_gust":16.0,
    "weather":[{"id":616,"main":"Snow","description":"rain and snow","icon":"13d"}],
    "clouds":100,"pop":1,"rain":6.5,"snow":0.5,"uvi":0.3},
    {"dt":1765018800,"sunrise":1765008960,"sunset":1765029840,
    "temp":{"day":3.0,"min":0.8,"max":3.6,"night":1.1,"eve":2.0,"morn":1.0},
    "dew_point":-0.5,"wind_speed":4.5,"wind_deg":120,"wind_gust":7.0,
    "weather":[{"id":804,"main":"Clouds","description":"overcast clouds","icon":"04d"}],
    "clouds":98,"pop":0.1,"uvi":0.4},
    {"dt":1765105200,"sunrise":1765095420,"sunset":1765116180,
    "temp":{"day":5.2,"min":2.9,"max":6.0,"night":4.4,"eve":5.0,"morn":3.1},
    "weather":[{"id":501,"main":"Rain","description":"moderate rain","icon":"10d"}],
    "clouds":100,"pop":0.9}]}
    """

  // MARK: Geocoding.

  /// "Cordoba": Argentina first, then Spain.
  static let geocodingCordoba = """
    [{"name":"Córdoba","local_names":{"es":"Córdoba","en":"Cordoba","fr":"Cordoba"},
    "lat":-31.4166867,"lon":-64.1834193,"country":"AR","state":"Córdoba"},
    {"name":"Córdoba","local_names":{"es":"Córdoba","en":"Cordova","de":"Córdoba"},
    "lat":37.8845813,"lon":-4.7760138,"country":"ES","state":"Andalusia"}]
    """

  static let reverseWellington = """
    [{"name":"Wellington","local_names":{"mi":"Te Whanganui-a-Tara","en":"Wellington"},
    "lat":-41.2887953,"lon":174.7772114,"country":"NZ","state":"Wellington"}]
    """

  // MARK: Error bodies (`cod` a number in some, a string in others).

  static let error401 = #"{"cod":401, "message": "Key not accepted: check the appid."}"#
  static let error404 = #"{"cod":"404","message":"no such place"}"#
  static let error400 = #"{"cod":"400","message":"lat is not a number"}"#
  static let error429 = #"{"cod":429,"message":"Call rate over the plan's allowance."}"#

  // MARK: Builders.

  /// One `list` entry of `/data/2.5/forecast`; `rain` and `snow` are the step's `3h` amounts
  /// (their blocks are left out when nil, as the service does when nothing falls), a nil `gust`
  /// leaves the key out.
  static func entry(
    _ time: Int, _ temperature: Double, _ minimum: Double, _ maximum: Double, _ id: Int,
    _ pop: Double, _ text: String, wind: Double = 2.5, gust: Double? = 4.0, rain: Double? = nil,
    snow: Double? = nil, last: Bool = false
  ) -> String {
    let icon = id == 800 ? "01d" : "10d"
    let gustKey = gust.map { ",\"gust\":\($0)" } ?? ""
    let rainBlock = rain.map { "\"rain\":{\"3h\":\($0)}," } ?? ""
    let snowBlock = snow.map { "\"snow\":{\"3h\":\($0)}," } ?? ""
    return """
      {"dt":\(time),"main":{"temp":\(temperature),"feels_like":\(temperature - 1),\
      "temp_min":\(minimum),"temp_max":\(maximum),"pressure":1012,"sea_level":1012,\
      "grnd_level":1001,"humidity":55,"temp_kf":0},\
      "weather":[{"id":\(id),"main":"x","description":"x","icon":"\(icon)"}],\
      "clouds":{"all":40},"wind":{"speed":\(wind),"deg":180\(gustKey)},"visibility":10000,\
      \(rainBlock)\(snowBlock)"pop":\(pop),"sys":{"pod":"d"},"dt_txt":"\(text)"}\(last ? "" : ",")
      """
  }

  /// A full 5 day / 3 hour answer: 40 entries from `start`, at UTC offset `offset`.
  static func fullForecast(start: Int, offset: Int) -> String {
    let conditions = [800, 801, 500, 600]
    var entries: [String] = []
    for index in 0..<40 {
      let time: Int = start + index * 10_800
      let base = Double(index % 8)
      let probability = Double(index % 5) / 5
      entries.append(
        entry(
          time, base - 2.5, base - 3.0, base - 2.0, conditions[index % 4], probability, "-",
          last: index == 39))
    }
    return """
      {"cod":"200","message":0,"cnt":40,"list":[\(entries.joined())],
      "city":{"timezone":\(offset),"sunrise":\(start - 20_000),"sunset":\(start + 15_000)}}
      """
  }

  /// A full One Call answer: 48 hours from the hour before `now`, 8 days.
  static func fullOneCall(now: Int, offset: Int) -> String {
    let hourStart = now - now % 3_600
    let hours = (0..<48).map { (index: Int) -> String in
      """
      {"dt":\(hourStart + index * 3_600),"temp":\(Double(index % 10) + 0.5),\
      "weather":[{"id":\([800, 802, 500][index % 3]),"icon":"01d"}],"pop":\(Double(index % 4) / 4)}
      """
    }
    let noon = (now + offset) / 86_400 * 86_400 - offset + 43_200
    let days = (0..<8).map { (index: Int) -> String in
      """
      {"dt":\(noon + index * 86_400),"sunrise":\(noon + index * 86_400 - 21_000),\
      "sunset":\(noon + index * 86_400 + 20_000),\
      "temp":{"min":\(Double(index) - 4),"max":\(Double(index) + 6)},\
      "weather":[{"id":\([500, 800][index % 2]),"icon":"10d"}],"pop":0.5}
      """
    }
    return """
      {"lat":1,"lon":2,"timezone":"Etc/Test","timezone_offset":\(offset),
      "current":{"dt":\(now),"sunrise":\(noon - 21_000),"sunset":\(noon + 20_000),"temp":4.5,
      "weather":[{"id":800,"icon":"01d"}]},
      "hourly":[\(hours.joined(separator: ","))],"daily":[\(days.joined(separator: ","))]}
      """
  }
}
