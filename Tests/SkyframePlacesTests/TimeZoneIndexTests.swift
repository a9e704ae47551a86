import Foundation
import Testing

@testable import SkyframePlaces

/// Local time for services that give only UTC: the zone of the nearest place (GeoNames' towns,
/// the tz database's principal cities), its offset at the time asked (daylight saving time
/// included), and the nautical zone at sea.
@Suite struct TimeZoneIndexTests {
  static let index = TimeZoneIndex()
  /// 2025-01-15 12:00 UTC and 2025-07-15 12:00 UTC.
  static let january: Int64 = 1_736_942_400
  static let july: Int64 = 1_752_580_800

  @Test(arguments: [
    // Chatham Islands: +13:45 in the southern summer, +12:45 in winter.
    ("Chatham", -43.95, -176.55, january, 13 * 3_600 + 45 * 60),
    ("Chatham", -43.95, -176.55, july, 12 * 3_600 + 45 * 60),
    ("Kathmandu", 27.7172, 85.324, january, 5 * 3_600 + 45 * 60),
    ("Kathmandu", 27.7172, 85.324, july, 5 * 3_600 + 45 * 60),
    // Bergen lies at 5.3° E (nautically UTC+0) but keeps Central European time.
    ("Bergen", 60.3913, 5.3221, january, 3_600),
    ("Bergen", 60.3913, 5.3221, july, 7_200),
    // Lord Howe Island moves by half an hour: +11 in summer, +10:30 in winter.
    ("Lord Howe", -31.5553, 159.0821, january, 11 * 3_600),
    ("Lord Howe", -31.5553, 159.0821, july, 10 * 3_600 + 30 * 60),
    ("St. John's", 47.5615, -52.7126, january, -(3 * 3_600 + 30 * 60)),
    // 808 km from Pyongyang (UTC+9), the nearest principal city of a zone, and 1,067 km from
    // Shanghai: China's UTC+8 all the same.
    ("Beijing", 39.9075, 116.39723, january, 8 * 3_600),
    // Near a border: Tijuana keeps Pacific time (UTC-8), San Diego's, not Mexico City's.
    ("Tijuana", 32.5027, -117.00371, january, -8 * 3_600),
    // The South Pacific, over 2,000 km from any principal city: nautical time, -100° → UTC-7.
    ("at sea", -45.0, -100.0, january, -7 * 3_600),
  ])
  func offsetsAtFetchTime(
    _ place: String, _ latitude: Double, _ longitude: Double, _ time: Int64, _ expected: Int
  ) {
    #expect(
      Self.index.utcOffsetSeconds(latitude: latitude, longitude: longitude, at: time) == expected,
      "\(place)")
  }

  /// Every capital and every place of a million people or more in the place data
  /// (`CapitalsAndMillionCities`, from the same GeoNames data as `TimeZoneIndex.placeTable`)
  /// gets the offset of its own GeoNames zone, in January and in July.
  @Test func everyCapitalAndCityOfAMillionHasTheOffsetOfItsZone() throws {
    var checked = 0
    var wrong: [String] = []
    for line in CapitalsAndMillionCities.table.split(separator: "\n") {
      let fields = line.split(separator: "\t").map(String.init)
      try #require(fields.count == 6, "\(line)")
      let (latitude, longitude) = (try #require(Double(fields[2])), try #require(Double(fields[3])))
      let zone = try #require(TimeZone(identifier: fields[4]), "\(fields[4])")
      for time in [Self.january, Self.july] {
        let expected = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(time)))
        let found = TimeZoneIndex.system.utcOffsetSeconds(
          latitude: latitude, longitude: longitude, at: time)
        if found != expected {
          wrong.append(
            "\(fields[0]) \(fields[1]) at \(time): \(found), not \(fields[4]) \(expected)")
        }
      }
      checked += 1
    }
    #expect(checked > 700)
    #expect(wrong.isEmpty, "\(wrong.count) wrong: \(wrong.prefix(20).joined(separator: "; "))")
  }

  @Test func theSystemTableIsReadAndPointsAtSeaHaveNoZone() throws {
    #expect(Self.index.zones.count > 250)
    #expect(Self.index.zone(latitude: -43.95, longitude: -176.55)?.identifier == "Pacific/Chatham")
    #expect(Self.index.zone(latitude: -45, longitude: -100) == nil)
  }

  @Test func tablesInBothCoordinateFormsParseAndBadLinesAreSkipped() throws {
    let table = """
      # comment
      NP\t+2743+08519\tAsia/Kathmandu
      AQ\t-690022+0393524\tAntarctica/Syowa\tSyowa
      XX\tnonsense\tBad/Line
      XX\t+12+034\tShort/Form
      """
    let index = TimeZoneIndex(table: table)
    #expect(index.zones.map(\.identifier) == ["Asia/Kathmandu", "Antarctica/Syowa"])
    let syowa = try #require(index.zones.last)
    #expect(abs(syowa.latitude - -(69 + 0 / 60.0 + 22 / 3_600.0)) < 1e-9)
    #expect(abs(syowa.longitude - (39 + 35 / 60.0 + 24 / 3_600.0)) < 1e-9)
    // No table and no places: every position gets the nautical zone; GeoNames' places alone
    // still know Bergen's.
    let places = TimeZoneIndex(paths: ["/nonexistent/zone.tab"])
    #expect(places.utcOffsetSeconds(latitude: 60.39, longitude: 5.32, at: Self.january) == 3_600)
    let none = TimeZoneIndex(paths: ["/nonexistent/zone.tab"], places: false)
    #expect(none.utcOffsetSeconds(latitude: 60.39, longitude: 5.32, at: Self.january) == 0)
    #expect(none.utcOffsetSeconds(latitude: 0, longitude: 172.6, at: Self.january) == 12 * 3_600)
    #expect(TimeZoneIndex.nauticalOffsetSeconds(longitude: -7.4) == 0)
    #expect(TimeZoneIndex.nauticalOffsetSeconds(longitude: 190) == -11 * 3_600)
  }
}
