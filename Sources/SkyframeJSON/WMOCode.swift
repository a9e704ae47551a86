/// Short English meanings of the WMO 4677 codes weather services use (`schemas/wmo-codes.md`).
public enum WMOCode {
  public static func meaning(_ code: Int) -> String {
    switch code {
    case 0: "clear sky"
    case 1: "mainly clear"
    case 2: "partly cloudy"
    case 3: "overcast"
    case 45: "fog"
    case 48: "depositing rime fog"
    case 51: "light drizzle"
    case 53: "drizzle"
    case 55: "dense drizzle"
    case 56: "light freezing drizzle"
    case 57: "freezing drizzle"
    case 61: "light rain"
    case 63: "rain"
    case 65: "heavy rain"
    case 66: "light freezing rain"
    case 67: "freezing rain"
    case 71: "light snow"
    case 73: "snow"
    case 75: "heavy snow"
    case 77: "snow grains"
    case 80: "light showers"
    case 81: "showers"
    case 82: "violent showers"
    case 85: "light snow showers"
    case 86: "snow showers"
    case 95: "thunderstorm"
    case 96: "thunderstorm with hail"
    case 99: "thunderstorm with heavy hail"
    default: "code \(code)"
    }
  }
}
