import Foundation
import SkyframeWeather

/// An Open-Meteo geocoding `/v1/search` answer. When nothing matches, the service leaves out the
/// `results` key altogether.
struct OpenMeteoGeocodingResponse: Decodable {
  var results: [Result]?

  struct Result: Decodable {
    var name: String?
    var latitude: Double?
    var longitude: Double?
    /// ISO 3166-1 alpha-2.
    var countryCode: String?

    enum CodingKeys: String, CodingKey {
      case name, latitude, longitude
      case countryCode = "country_code"
    }
  }

  /// The best match for `query`: among the results with a name and coordinates (in `countryCode`
  /// when given), the first whose name is the query itself, else the first. The service ranks by
  /// relevance and population, so the first result is usually right; an exact name beats a
  /// longer name that merely starts the same.
  func bestMatch(for query: String, countryCode: String?) -> Forecast.Place? {
    var places = (results ?? []).compactMap(\.place)
    if let countryCode {
      let wanted = countryCode.uppercased()
      let inCountry = places.filter { $0.countryCode?.uppercased() == wanted }
      if !inCountry.isEmpty { places = inCountry }
    }
    let wantedName = query.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    return places.first { $0.name.lowercased() == wantedName } ?? places.first
  }
}

extension OpenMeteoGeocodingResponse.Result {
  fileprivate var place: Forecast.Place? {
    guard let name, let latitude, let longitude, latitude.isFinite, longitude.isFinite else {
      return nil
    }
    return Forecast.Place(
      name: name, countryCode: countryCode?.uppercased(), latitude: latitude, longitude: longitude)
  }
}
