import Foundation
import Testing

@testable import SkyframePlaces

/// Local time for services that give only UTC: the zone of the nearest principal city of the
/// system's tz database, its offset at the time asked (daylight saving time included), and the
/// nautical zone at sea.
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
    // No table: every position gets the nautical zone.
    let none = TimeZoneIndex(paths: ["/nonexistent/zone.tab"])
    #expect(none.utcOffsetSeconds(latitude: 60.39, longitude: 5.32, at: Self.january) == 0)
    #expect(none.utcOffsetSeconds(latitude: 0, longitude: 172.6, at: Self.january) == 12 * 3_600)
    #expect(TimeZoneIndex.nauticalOffsetSeconds(longitude: -7.4) == 0)
    #expect(TimeZoneIndex.nauticalOffsetSeconds(longitude: 190) == -11 * 3_600)
  }
}
