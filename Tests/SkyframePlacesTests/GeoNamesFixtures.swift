import Foundation
import Testing

@testable import SkyframePlaces

/// A fresh directory under the system's temporary directory, removed when the test is done.
final class TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-places-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// Writes `text` (as UTF-8) to `name` in the directory and returns its path.
  func write(_ name: String, _ text: String) throws -> String {
    try write(name, Data(text.utf8))
  }

  func write(_ name: String, _ data: Data) throws -> String {
    let file = url.appendingPathComponent(name)
    try data.write(to: file)
    return file.path
  }
}

/// One place as a line of a GeoNames `cities*.txt` file: 19 tab-separated columns.
struct CityLine {
  var id: Int
  var name: String
  var latitude: String
  var longitude: String
  var countryCode: String
  var population: Int

  init(
    _ id: Int, _ name: String, _ latitude: String, _ longitude: String, _ countryCode: String,
    _ population: Int
  ) {
    self.id = id
    self.name = name
    self.latitude = latitude
    self.longitude = longitude
    self.countryCode = countryCode
    self.population = population
  }

  var text: String {
    [
      String(id), name, name, "\(name) Alt,\(name)-Alias", latitude, longitude, "P", "PPL",
      countryCode, "", "01", "", "", "", String(population), "", "42", "Etc/UTC", "2024-05-01",
    ].joined(separator: "\t")
  }
}

enum Cities {
  static let berlin = CityLine(2_950_159, "Berlin", "52.52437", "13.41053", "DE", 3_426_354)
  static let potsdam = CityLine(2_852_458, "Potsdam", "52.39886", "13.06566", "DE", 129_469)
  static let paris = CityLine(2_988_507, "Paris", "48.85341", "2.3488", "FR", 2_138_551)
  static let sydney = CityLine(2_147_714, "Sydney", "-33.86785", "151.20732", "AU", 4_627_345)
  static let auckland = CityLine(2_193_733, "Auckland", "-36.84853", "174.76349", "NZ", 417_910)
  static let suva = CityLine(2_198_148, "Suva", "-18.14161", "178.44149", "FJ", 77_366)
  /// Invented: just east of the antimeridian, in Fiji's Lau group.
  static let eastOfAntimeridian = CityLine(9_000_001, "Vuna East", "-16.85", "-179.99", "FJ", 600)
  static let kiritimati = CityLine(4_030_939, "Kiritimati", "1.87", "-157.43", "KI", 5_586)
  static let longyearbyen = CityLine(2_729_907, "Longyearbyen", "78.2232", "15.64689", "SJ", 2_060)
  static let mcMurdo = CityLine(6_696_480, "McMurdo Station", "-77.846", "166.676", "AQ", 1_258)
  /// Invented places at the poles.
  static let southPole = CityLine(9_000_002, "Amundsen-Scott", "-90", "0", "AQ", 150)
  static let northCamp = CityLine(9_000_003, "North Camp", "89.95", "-90", "", 30)
  static let zurich = CityLine(2_657_896, "Zürich", "47.36667", "8.55", "CH", 341_730)
  static let tokyo = CityLine(1_850_147, "東京", "35.6895", "139.69171", "JP", 8_336_599)
  static let saoPaulo = CityLine(3_448_439, "São Paulo", "-23.5475", "-46.63611", "BR", 10_021_295)

  static let all = [
    berlin, potsdam, paris, sydney, auckland, suva, eastOfAntimeridian, kiritimati, longyearbyen,
    mcMurdo, southPole, northCamp, zurich, tokyo, saoPaulo,
  ]

  static func file(_ lines: [CityLine]) -> String {
    lines.map { $0.text + "\n" }.joined()
  }
}

/// SplitMix64: a fixed sequence for a fixed seed, so the cross-check fails the same way everywhere.
struct SeededRandom: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}

/// The nearest place by looking at every place, with the index's rule for ties: distances within
/// `GeoNamesIndex.tieMetres` go to the more populous place, then the one earlier in the file.
func linearNearest(
  _ places: [CityLine], latitude: Double, longitude: Double, within maximumMetres: Double
) -> NearestPlace? {
  var best: (place: CityLine, index: Int, distance: Double)?
  for (index, place) in places.enumerated() {
    let distance = GeoNamesIndex.haversineMetres(
      fromLatitude: latitude, longitude: longitude, toLatitude: Double(place.latitude)!,
      longitude: Double(place.longitude)!)
    guard distance <= maximumMetres else { continue }
    if let current = best {
      if distance > current.distance + GeoNamesIndex.tieMetres { continue }
      if distance >= current.distance - GeoNamesIndex.tieMetres {
        let wins =
          place.population > current.place.population
          || (place.population == current.place.population && index < current.index)
        if !wins { continue }
      }
    }
    best = (place, index, distance)
  }
  return best.map {
    NearestPlace(
      name: $0.place.name, countryCode: $0.place.countryCode, latitude: Double($0.place.latitude)!,
      longitude: Double($0.place.longitude)!, distanceMetres: $0.distance)
  }
}
