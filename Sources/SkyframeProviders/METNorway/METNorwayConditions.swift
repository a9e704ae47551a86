/// MET Norway `symbol_code` ids (without the `_day`/`_night`/`_polartwilight` suffix) as WMO
/// 4677 codes. The table, and why each id maps where it does, is `schemas/metno-symbols.md`; a
/// test keeps the two equal.
public enum METNorwayConditions {
  /// The WMO code for `symbol` (with or without its suffix), and whether the suffix says day;
  /// nil for a symbol the service does not document.
  public static func wmo(symbol: String) -> (code: Int, isDay: Bool?)? {
    let parts = symbol.split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
    let id = String(parts[0])
    guard let code = table[id] else { return nil }
    guard parts.count == 2 else { return variants.contains(id) ? nil : (code, nil) }
    guard variants.contains(id) else { return nil }
    switch parts[1] {
    case "day": return (code, true)
    case "night", "polartwilight": return (code, false)
    default: return nil
    }
  }

  /// Every documented symbol id and its WMO code.
  static let table: [String: Int] = [
    "clearsky": 0,  // clear sky
    "fair": 1,  // fair
    "partlycloudy": 2,  // partly cloudy
    "cloudy": 3,  // cloudy
    "fog": 45,  // fog
    "lightrainshowers": 80,  // light rain showers
    "rainshowers": 81,  // rain showers
    "heavyrainshowers": 82,  // heavy rain showers
    "lightrainshowersandthunder": 95,  // light rain showers and thunder
    "rainshowersandthunder": 97,  // rain showers and thunder
    "heavyrainshowersandthunder": 97,  // heavy rain showers and thunder
    "lightsleetshowers": 83,  // light sleet showers
    "sleetshowers": 84,  // sleet showers
    "heavysleetshowers": 84,  // heavy sleet showers
    "lightssleetshowersandthunder": 95,  // light sleet showers and thunder (the service's spelling)
    "sleetshowersandthunder": 97,  // sleet showers and thunder
    "heavysleetshowersandthunder": 97,  // heavy sleet showers and thunder
    "lightsnowshowers": 85,  // light snow showers
    "snowshowers": 86,  // snow showers
    "heavysnowshowers": 86,  // heavy snow showers
    "lightssnowshowersandthunder": 95,  // light snow showers and thunder (the service's spelling)
    "snowshowersandthunder": 97,  // snow showers and thunder
    "heavysnowshowersandthunder": 97,  // heavy snow showers and thunder
    "lightrain": 61,  // light rain
    "rain": 63,  // rain
    "heavyrain": 65,  // heavy rain
    "lightrainandthunder": 95,  // light rain and thunder
    "rainandthunder": 97,  // rain and thunder
    "heavyrainandthunder": 97,  // heavy rain and thunder
    "lightsleet": 68,  // light sleet
    "sleet": 69,  // sleet
    "heavysleet": 69,  // heavy sleet
    "lightsleetandthunder": 95,  // light sleet and thunder
    "sleetandthunder": 97,  // sleet and thunder
    "heavysleetandthunder": 97,  // heavy sleet and thunder
    "lightsnow": 71,  // light snow
    "snow": 73,  // snow
    "heavysnow": 75,  // heavy snow
    "lightsnowandthunder": 95,  // light snow and thunder
    "snowandthunder": 97,  // snow and thunder
    "heavysnowandthunder": 97,  // heavy snow and thunder
  ]

  /// The ids that come with a day, night or polar-twilight suffix.
  static let variants: Set<String> = [
    "clearsky", "fair", "partlycloudy",
    "lightrainshowers", "rainshowers", "heavyrainshowers",
    "lightrainshowersandthunder", "rainshowersandthunder", "heavyrainshowersandthunder",
    "lightsleetshowers", "sleetshowers", "heavysleetshowers",
    "lightssleetshowersandthunder", "sleetshowersandthunder", "heavysleetshowersandthunder",
    "lightsnowshowers", "snowshowers", "heavysnowshowers",
    "lightssnowshowersandthunder", "snowshowersandthunder", "heavysnowshowersandthunder",
  ]
}
