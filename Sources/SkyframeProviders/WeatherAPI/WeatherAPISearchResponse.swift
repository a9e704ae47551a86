import Foundation
import SkyframeWeather

/// One element of a WeatherAPI.com `/v1/search.json` answer (a JSON array, empty when nothing
/// matches). `country` is a name ("United Kingdom"), not a code.
struct WeatherAPISearchResult: Decodable {
  var name: String?
  var country: String?
  var lat: Double?
  var lon: Double?

  var place: Forecast.Place? {
    guard let name, !name.isEmpty, let lat, let lon, lat.isFinite, lon.isFinite else { return nil }
    return Forecast.Place(
      name: name, countryCode: country.flatMap(WeatherAPICountries.code(forName:)),
      latitude: lat, longitude: lon)
  }
}

extension [WeatherAPISearchResult] {
  /// Among the usable results (in `countryCode` when any is), the first whose name is the query
  /// itself, else the first: the service ranks by relevance, but an exact name beats a longer
  /// one that merely starts the same.
  func bestMatch(for query: String, countryCode: String?) -> Forecast.Place? {
    var places = compactMap(\.place)
    if let countryCode {
      let wanted = countryCode.uppercased()
      let inCountry = places.filter { $0.countryCode == wanted }
      if !inCountry.isEmpty { places = inCountry }
    }
    let wantedName = query.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    return places.first { $0.name.lowercased() == wantedName } ?? places.first
  }
}

/// Country names as WeatherAPI.com writes them, to ISO 3166-1 alpha-2 codes. The names come from
/// the system's English region names (CLDR), compared without case, accents, "&" versus "and" or
/// "St." versus "Saint", plus the spellings the service uses where CLDR has another. A name
/// neither knows gives no code, which leaves the place's country missing, not wrong.
enum WeatherAPICountries {
  static func code(forName name: String) -> String? {
    codesByName[normalized(name)]
  }

  /// Spellings the service uses that differ from CLDR's English names.
  private static let aliases: [String: String] = [
    "United States of America": "US", "USA": "US", "UK": "GB", "Great Britain": "GB",
    "Russian Federation": "RU", "Czech Republic": "CZ", "Turkey": "TR", "Ivory Coast": "CI",
    "Democratic Republic of Congo": "CD", "Democratic Republic of the Congo": "CD",
    "Republic of the Congo": "CG", "Congo": "CG", "Macedonia": "MK", "Swaziland": "SZ",
    "Burma": "MM", "Myanmar": "MM", "Hong Kong": "HK", "Macao": "MO", "Macau": "MO",
    "Palestine": "PS", "Vatican City": "VA", "East Timor": "TL", "Cape Verde": "CV",
  ]

  private static let codesByName: [String: String] = {
    var table: [String: String] = [:]
    let english = Locale(identifier: "en_US")
    for region in Locale.Region.isoRegions where region.identifier.count == 2 {
      guard region.identifier.allSatisfy(\.isLetter),
        let name = english.localizedString(forRegionCode: region.identifier)
      else { continue }
      table[normalized(name)] = region.identifier
    }
    for (name, code) in aliases { table[normalized(name)] = code }
    return table
  }()

  private static func normalized(_ name: String) -> String {
    var text = name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
      .replacingOccurrences(of: "’", with: "'")
      .replacingOccurrences(of: "&", with: " and ")
    if text.hasPrefix("st. ") { text = "saint " + text.dropFirst(4) }
    return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }
}
