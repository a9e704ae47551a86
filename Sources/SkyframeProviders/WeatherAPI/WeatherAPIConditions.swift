/// WeatherAPI.com condition codes (`condition.code`, the same by day and by night) as WMO 4677
/// codes. The table, and why each code maps where it does, is `schemas/weatherapi-conditions.md`;
/// a test keeps the two equal.
public enum WeatherAPIConditions {
  /// The WMO code for `code`, or nil for a code WeatherAPI.com does not document.
  public static func wmo(_ code: Int) -> Int? {
    table[code]
  }

  /// Every documented code and its WMO code.
  static let table: [Int: Int] = [
    1000: 0,  // sunny (by day) or clear (by night)
    1003: 2,  // partly cloudy
    1006: 3,  // cloudy
    1009: 3,  // overcast
    1030: 10,  // mist
    1063: 61,  // patchy rain possible / nearby
    1066: 71,  // patchy snow possible / nearby
    1069: 68,  // patchy sleet possible / nearby
    1072: 56,  // patchy freezing drizzle possible / nearby
    1087: 95,  // thundery outbreaks possible / nearby
    1114: 38,  // blowing snow
    1117: 75,  // blizzard
    1135: 45,  // fog
    1147: 48,  // freezing fog
    1150: 51,  // patchy light drizzle
    1153: 51,  // light drizzle
    1168: 57,  // freezing drizzle
    1171: 57,  // heavy freezing drizzle
    1180: 61,  // patchy light rain
    1183: 61,  // light rain
    1186: 63,  // moderate rain at times
    1189: 63,  // moderate rain
    1192: 65,  // heavy rain at times
    1195: 65,  // heavy rain
    1198: 66,  // light freezing rain
    1201: 67,  // moderate or heavy freezing rain
    1204: 68,  // light sleet
    1207: 69,  // moderate or heavy sleet
    1210: 71,  // patchy light snow
    1213: 71,  // light snow
    1216: 73,  // patchy moderate snow
    1219: 73,  // moderate snow
    1222: 75,  // patchy heavy snow
    1225: 75,  // heavy snow
    1237: 79,  // ice pellets
    1240: 80,  // light rain shower
    1243: 81,  // moderate or heavy rain shower
    1246: 82,  // torrential rain shower
    1249: 83,  // light sleet showers
    1252: 84,  // moderate or heavy sleet showers
    1255: 85,  // light snow showers
    1258: 86,  // moderate or heavy snow showers
    1261: 79,  // light showers of ice pellets
    1264: 79,  // moderate or heavy showers of ice pellets
    1273: 95,  // patchy light rain with thunder
    1276: 97,  // moderate or heavy rain with thunder
    1279: 95,  // patchy light snow with thunder
    1282: 97,  // moderate or heavy snow with thunder
  ]
}
