/// Answers in WeatherAPI.com's shapes (`/v1/forecast.json`, `/v1/search.json`, error bodies) with
/// values made up for the tests: no recorded response is copied here. Real answers carry 24 hours
/// per day; these carry a few, which is all the mapping needs.
enum WeatherAPIFixtures {
  // MARK: Kathmandu, UTC+5:45, "2025-03-10 9:05" (hour not padded), two days.

  static let kathmandu = """
    {"location":{"name":"Kathmandu","region":"Bagmati","country":"Nepal","lat":27.72,"lon":85.32,
    "tz_id":"Asia/Kathmandu","localtime_epoch":1741576837,"localtime":"2025-03-10 9:05"},
    "current":{"last_updated_epoch":1741576500,"last_updated":"2025-03-10 09:00","temp_c":14.2,
    "temp_f":57.6,"is_day":1,"condition":{"text":"Partly cloudy",
    "icon":"//cdn.weatherapi.com/weather/64x64/day/116.png","code":1003},"wind_mph":4.5,
    "wind_kph":7.2,"wind_degree":135,"wind_dir":"SE","pressure_mb":1017.0,"pressure_in":30.03,
    "precip_mm":0.0,"precip_in":0.0,"humidity":62,"cloud":25,"feelslike_c":13.1,
    "feelslike_f":55.6,"vis_km":8.0,"vis_miles":4.0,"uv":4.0,"gust_mph":8.1,"gust_kph":13.0},
    "forecast":{"forecastday":[
    {"date":"2025-03-10","date_epoch":1741564800,
    "day":{"maxtemp_c":24.5,"maxtemp_f":76.1,"mintemp_c":8.1,"mintemp_f":46.6,"avgtemp_c":15.9,
    "maxwind_kph":11.5,"totalprecip_mm":0.0,"avghumidity":51,"daily_will_it_rain":0,
    "daily_chance_of_rain":0,"daily_will_it_snow":0,"daily_chance_of_snow":0,
    "condition":{"text":"Sunny","icon":"//cdn.weatherapi.com/weather/64x64/day/113.png",
    "code":1000},"uv":5.0},
    "astro":{"sunrise":"06:17 AM","sunset":"06:04 PM","moonrise":"12:48 PM",
    "moonset":"02:31 AM","moon_phase":"Waxing Gibbous","moon_illumination":78,"is_moon_up":0,
    "is_sun_up":1},
    "hour":[
    {"time_epoch":1741544100,"time":"2025-03-10 00:00","temp_c":9.9,"is_day":0,
    "condition":{"text":"Clear ","code":1000},"wind_mph":3.4,"wind_kph":5.4,"wind_degree":95,
    "wind_dir":"E","precip_mm":0.0,"precip_in":0.0,"snow_cm":0.0,"chance_of_rain":0,
    "chance_of_snow":0,"gust_mph":5.6,"gust_kph":9.0,"uv":0.0},
    {"time_epoch":1741547700,"time":"2025-03-10 01:00","temp_c":9.2,"is_day":0,
    "condition":{"text":"Clear ","code":1000},"wind_mph":2.2,"wind_kph":3.6,"wind_degree":88,
    "wind_dir":"E","precip_mm":0.0,"precip_in":0.0,"snow_cm":0.0,"chance_of_rain":0,
    "chance_of_snow":0,"gust_mph":4.5,"gust_kph":7.2,"uv":0.0},
    {"time_epoch":1741551300,"time":"2025-03-10 02:00","temp_c":8.6,"is_day":0,
    "condition":{"text":"Mist","code":1030},"wind_mph":1.1,"wind_kph":1.8,"wind_degree":70,
    "wind_dir":"ENE","precip_mm":0.0,"precip_in":0.0,"snow_cm":0.0,"chance_of_rain":0,
    "chance_of_snow":0,"gust_mph":2.7,"gust_kph":4.3,"uv":0.0}]},
    {"date":"2025-03-11","date_epoch":1741651200,
    "day":{"maxtemp_c":21.3,"mintemp_c":9.4,"maxwind_mph":10.1,"maxwind_kph":16.2,
    "totalprecip_mm":4.9,"totalprecip_in":0.19,"totalsnow_cm":0.0,"daily_will_it_rain":1,
    "daily_chance_of_rain":78,"daily_will_it_snow":0,"daily_chance_of_snow":0,
    "condition":{"text":"Patchy light rain with thunder","code":1273},"uv":3.0},
    "astro":{"sunrise":"06:16 AM","sunset":"06:05 PM","moon_illumination":"85"},
    "hour":[
    {"time_epoch":1741680900,"time":"2025-03-11 14:00","temp_c":20.7,"is_day":1,
    "condition":{"text":"Moderate rain","code":1189},"wind_mph":8.9,"wind_kph":14.4,
    "precip_mm":2.1,"precip_in":0.08,"snow_cm":0.0,"chance_of_rain":65,"chance_of_snow":0,
    "gust_mph":19.0,"gust_kph":30.6,"uv":6.0},
    {"time_epoch":1741684500,"time":"2025-03-11 15:00","temp_c":19.8,"is_day":1,
    "condition":{"text":"Light rain shower","code":1240},"wind_mph":6.7,"wind_kph":10.8,
    "precip_mm":0.7,"precip_in":0.03,"chance_of_rain":"40","chance_of_snow":"0",
    "gust_mph":12.1,"gust_kph":19.4,"uv":4.0}]}]}}
    """

  // MARK: Tromsø in polar night, UTC+1, "2025-12-20 0:07" (hour 0).

  static let tromso = """
    {"location":{"name":"Tromso","region":"Troms","country":"Norway","lat":69.65,"lon":18.96,
    "tz_id":"Europe/Oslo","localtime_epoch":1766185632,"localtime":"2025-12-20 0:07"},
    "current":{"last_updated_epoch":1766185200,"temp_c":-7.4,"is_day":0,
    "condition":{"text":"Light snow","code":1213},"wind_kph":18.0,"wind_degree":160,
    "pressure_mb":1003.0,"precip_mm":0.1,"humidity":88,"cloud":90,"feelslike_c":-13.6,
    "vis_km":6.0,"dewpoint_c":-9.1,"uv":0.0,"gust_kph":27.4},
    "forecast":{"forecastday":[
    {"date":"2025-12-20","date_epoch":1766188800,
    "day":{"maxtemp_c":-5.9,"mintemp_c":-9.3,"daily_chance_of_rain":0,"daily_chance_of_snow":91,
    "condition":{"text":"Moderate snow","code":1219}},
    "astro":{"sunrise":"No sunrise","sunset":"No sunset","is_sun_up":0},
    "hour":[
    {"time_epoch":1766185200,"temp_c":-7.4,"is_day":0,"condition":{"code":1213},
    "precip_mm":0.2,"snow_cm":0.3,"chance_of_rain":0,"chance_of_snow":80},
    {"time_epoch":1766188800,"temp_c":-7.8,"is_day":0,"condition":{"code":1219},
    "chance_of_rain":0,"chance_of_snow":91},
    {"time_epoch":1766192400,"temp_c":-8.1,"is_day":0,"condition":{"code":1258},
    "chance_of_rain":0,"chance_of_snow":88}]},
    {"date":"2025-12-21","date_epoch":1766275200,
    "day":{"maxtemp_c":-4.0,"mintemp_c":-8.8,"daily_chance_of_rain":12,"daily_chance_of_snow":35,
    "condition":{"text":"Blowing snow","code":1114}},
    "astro":{"sunrise":"No sunrise","sunset":"No sunset"},
    "hour":[
    {"time_epoch":1766311200,"temp_c":-5.0,"is_day":0,"condition":{"code":1114}},
    {"time_epoch":1766314800,"temp_c":-4.2,"is_day":1,"condition":{"code":1117}},
    {"time_epoch":1766318400,"temp_c":-4.6,"is_day":0,"condition":{"code":1009}}]}]}}
    """

  // MARK: St. John's, UTC-3:30, with keys missing and nulls.

  /// No gust, visibility, UV or condition now; a day with only `date_epoch`, no astro, one null
  /// and one unknown condition; an hour without `time_epoch`.
  static let stJohnsSparse = """
    {"location":{"name":"St. John's","country":"Canada","lat":47.56,"lon":-52.71,
    "tz_id":"America/St_Johns","localtime_epoch":1737378682,"localtime":"2025-01-20 9:41"},
    "current":{"last_updated_epoch":1737378000,"temp_c":-3.0,"is_day":1,"wind_kph":36.0,
    "wind_degree":250,"pressure_mb":1009.0,"precip_mm":0.3,"humidity":93,"cloud":100,
    "feelslike_c":-9.8,"uv":null},
    "forecast":{"forecastday":[
    {"date_epoch":1737331200,
    "day":{"maxtemp_c":-1.1,"mintemp_c":-6.2,"daily_chance_of_rain":null,
    "condition":{"code":1399}},
    "hour":[
    {"time_epoch":1737376200,"temp_c":-3.4,"is_day":1,"condition":{"code":1066},
    "chance_of_snow":58},
    {"temp_c":-3.0,"is_day":1,"condition":{"code":1066}},
    {"time_epoch":1737383400,"temp_c":null,"is_day":1,"condition":null}]},
    {"date":"2025-01-21","day":{},"astro":{"sunrise":"08:15 AM","sunset":"04:41 PM"}}]}}
    """

  /// A day of midnight sun: every hour is day.
  static let polarDay = """
    {"location":{"localtime_epoch":1750543200,"localtime":"2025-06-22 0:00"},
    "forecast":{"forecastday":[{"date":"2025-06-22",
    "astro":{"sunrise":"No sunrise","sunset":"No sunset"},
    "hour":[{"time_epoch":1750543200,"is_day":1},{"time_epoch":1750546800,"is_day":1}]}]}}
    """

  // MARK: Search.

  static let searchPerth = """
    [{"id":2107390,"name":"Perth","region":"Western Australia","country":"Australia",
    "lat":-31.93,"lon":115.83,"url":"perth-western-australia-australia"},
    {"id":2801268,"name":"Perth","region":"Perth and Kinross","country":"United Kingdom",
    "lat":56.4,"lon":-3.43,"url":"perth-perth-and-kinross-united-kingdom"},
    {"id":2618520,"name":"Perth Amboy","region":"New Jersey",
    "country":"United States of America","lat":40.51,"lon":-74.27,
    "url":"perth-amboy-new-jersey-united-states-of-america"}]
    """

  static let searchUnknownCountry = """
    [{"id":1,"name":"Brigadoon","region":"","country":"Atlantis","lat":56.1,"lon":-4.2,
    "url":"brigadoon"}]
    """

  // MARK: Error bodies.

  static func error(_ code: Int, _ message: String) -> String {
    #"{"error":{"code":\#(code),"message":"\#(message)"}}"#
  }

  // MARK: Builders.

  /// A full answer: `days` days of 24 hours from the local midnight before `now`. Hour `h` has
  /// wind (1 + h % 5) m/s and gusts 1 m/s more, 1.2 mm at 06:00 and none otherwise (with 2.5 cm
  /// of snow depth in every hour), UV 1 (`i` + 3 at noon on day `i`); day `i` has `i`.5 mm, maximum
  /// wind 5 × (`i` + 1) m/s and `uv` 2; the dew point now is 6.5 °C.
  static func full(now: Int, offset: Int, days: Int = 3) -> String {
    let midnight = (now + offset) / 86_400 * 86_400 - offset
    let wallClock = now + offset
    let hour = wallClock % 86_400 / 3_600
    let minute = wallClock % 3_600 / 60
    let date = { (index: Int) -> String in
      let day = (wallClock / 86_400) + index
      return civilDate(day)
    }
    let forecastDays = (0..<days).map { (index: Int) -> String in
      let hours = (0..<24).map { (hour: Int) -> String in
        """
        {"time_epoch":\(midnight + index * 86_400 + hour * 3_600),"temp_c":\(Double(hour) - 3.5),\
        "is_day":\(hour >= 7 && hour < 18 ? 1 : 0),"condition":{"code":\([1000, 1003, 1183][hour % 3])},\
        "wind_kph":\(["3.6", "7.2", "10.8", "14.4", "18.0"][hour % 5]),\
        "precip_mm":\(hour == 6 ? "1.2" : "0.0"),"snow_cm":2.5,"chance_of_rain":\(hour * 4),\
        "chance_of_snow":0,"gust_kph":\(["7.2", "10.8", "14.4", "18.0", "21.6"][hour % 5]),\
        "uv":\(hour == 12 ? index + 3 : 1).0}
        """
      }
      return """
        {"date":"\(date(index))","date_epoch":\((wallClock / 86_400 + index) * 86_400),\
        "day":{"maxtemp_c":\(Double(index) + 12),"mintemp_c":\(Double(index) - 1),\
        "maxwind_kph":\(18 * (index + 1)).0,"totalprecip_mm":\(index).5,"uv":2.0,\
        "daily_chance_of_rain":\(index * 30),"daily_chance_of_snow":0,"condition":{"code":1063}},\
        "astro":{"sunrise":"07:05 AM","sunset":"06:10 PM"},"hour":[\(hours.joined(separator: ","))]}
        """
    }
    return """
      {"location":{"name":"Testville","country":"Nowhere","lat":1,"lon":2,"tz_id":"Etc/Test",
      "localtime_epoch":\(now),"localtime":"\(date(0)) \(hour):\(minute < 10 ? "0" : "")\(minute)"},
      "current":{"last_updated_epoch":\(now - 300),"temp_c":11.0,"is_day":1,
      "condition":{"code":1000},"wind_kph":10.8,"dewpoint_c":6.5},
      "forecast":{"forecastday":[\(forecastDays.joined(separator: ","))]}}
      """
  }

  /// Days since 1970-01-01 as "YYYY-MM-DD" (the civil-from-days algorithm).
  private static func civilDate(_ days: Int) -> String {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(year)-\(two(month))-\(two(day))"
  }
}
