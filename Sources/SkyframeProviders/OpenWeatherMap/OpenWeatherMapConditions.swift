/// OpenWeatherMap condition ids (`weather[].id`) as WMO 4677 codes. The table, and why each id
/// maps where it does, is `schemas/openweathermap-conditions.md`; a test keeps the two equal.
public enum OpenWeatherMapConditions {
  /// The WMO code for `id`, or nil for an id OpenWeatherMap does not document.
  public static func wmo(_ id: Int) -> Int? {
    table[id]
  }

  /// Every documented id and its WMO code.
  static let table: [Int: Int] = [
    200: 95,  // thunderstorm, light rain
    201: 95,  // thunderstorm, rain
    202: 97,  // thunderstorm, heavy rain
    210: 95,  // thunderstorm, light
    211: 95,  // thunderstorm
    212: 97,  // thunderstorm, heavy
    221: 95,  // thunderstorm, ragged
    230: 95,  // thunderstorm, light drizzle
    231: 95,  // thunderstorm, drizzle
    232: 95,  // thunderstorm, heavy drizzle
    300: 51,  // drizzle, light
    301: 53,  // drizzle
    302: 55,  // drizzle, heavy
    310: 58,  // drizzle and rain, light
    311: 59,  // drizzle and rain
    312: 59,  // drizzle and rain, heavy
    313: 81,  // showers of rain and drizzle
    314: 82,  // showers of rain and drizzle, heavy
    321: 80,  // drizzle showers
    500: 61,  // rain, light
    501: 63,  // rain, moderate
    502: 65,  // rain, heavy
    503: 65,  // rain, very heavy
    504: 65,  // rain, extreme
    511: 67,  // freezing rain
    520: 80,  // rain showers, light
    521: 81,  // rain showers
    522: 82,  // rain showers, heavy
    531: 81,  // rain showers, ragged
    600: 71,  // snow, light
    601: 73,  // snow
    602: 75,  // snow, heavy
    611: 69,  // sleet
    612: 83,  // sleet showers, light
    613: 84,  // sleet showers
    615: 68,  // rain and snow, light
    616: 69,  // rain and snow
    620: 85,  // snow showers, light
    621: 86,  // snow showers
    622: 86,  // snow showers, heavy
    701: 10,  // mist
    711: 4,  // smoke
    721: 5,  // haze
    731: 8,  // whirls of sand or dust
    741: 45,  // fog
    751: 7,  // sand
    761: 6,  // dust
    762: 4,  // volcanic ash
    771: 18,  // squalls
    781: 19,  // tornado
    800: 0,  // clear sky
    801: 1,  // few clouds (11–25 %)
    802: 2,  // scattered clouds (25–50 %)
    803: 3,  // broken clouds (51–84 %)
    804: 3,  // overcast (85–100 %)
  ]
}
