import SkyframeWeather

/// One element of an OpenWeatherMap `/geo/1.0/direct` or `/geo/1.0/reverse` answer (a JSON array,
/// empty when nothing matches).
struct OpenWeatherMapGeocodingResult: Decodable {
  var name: String?
  /// The name in other languages, keyed by ISO 639-1 code.
  var localNames: [String: String]?
  var lat: Double?
  var lon: Double?
  /// ISO 3166-1 alpha-2.
  var country: String?

  enum CodingKeys: String, CodingKey {
    case name
    case localNames = "local_names"
    case lat, lon, country
  }

  /// The place with its name in `language` when the service has one, else its default name.
  func place(language: String) -> Forecast.Place? {
    guard let name = localNames?[language.lowercased()] ?? name, !name.isEmpty, let lat, let lon,
      lat.isFinite, lon.isFinite
    else { return nil }
    return Forecast.Place(
      name: name, countryCode: country?.uppercased(), latitude: lat, longitude: lon)
  }
}

extension [OpenWeatherMapGeocodingResult] {
  /// The first usable result, preferring one in `countryCode`. The service ranks its results
  /// itself; the country is already part of the query, so this only guards against a result
  /// from elsewhere coming first.
  func bestMatch(countryCode: String?, language: String) -> Forecast.Place? {
    let places = compactMap { $0.place(language: language) }
    if let countryCode {
      let wanted = countryCode.uppercased()
      if let inCountry = places.first(where: { $0.countryCode == wanted }) { return inCountry }
    }
    return places.first
  }
}
