import Foundation

/// The local time zone of a position, for services that give only UTC (MET Norway): the IANA zone
/// of the nearest principal location in the system's tz database (`zone.tab`: one line per
/// country and zone with the coordinates of its principal city, about 420 of them, public domain;
/// `zone1970.tab`, which merges countries into fewer zones, when there is no `zone.tab`), and its
/// offset at a given time from the system's zone files, daylight saving time included.
///
/// It is an approximation where zones meet: a position near a border takes the zone whose
/// principal city is nearest, which is not always the one it lies in. Farther than
/// `seaMetres` from every principal city (the open sea, or no tz database at all) it is the
/// nautical zone of the longitude: whole hours, `round(longitude / 15)`.
public struct TimeZoneIndex: Sendable {
  public struct Zone: Sendable, Equatable {
    public let identifier: String
    public let latitude: Double
    public let longitude: Double
  }

  /// Where Debian's `tzdata` package puts the tables: `zone.tab` has a principal city for every
  /// country (Oslo for Norway), where `zone1970.tab` has one for Berlin, Oslo and Stockholm alike.
  public static let systemTables = [
    "/usr/share/zoneinfo/zone.tab", "/usr/share/zoneinfo/zone1970.tab",
  ]
  /// Beyond this distance from every principal city, the nautical zone.
  public static let seaMetres = 2_000_000.0

  /// The system's tables, read once, on first use.
  public static let system = TimeZoneIndex()

  public let zones: [Zone]
  private let timeZones: [TimeZone?]

  /// The zones of the first of `paths` that can be read (`zone.tab` or `zone1970.tab` format);
  /// none when no file can be read, so every position gets its nautical zone.
  public init(paths: [String] = TimeZoneIndex.systemTables) {
    let text = paths.lazy.compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.first
    self.init(table: text ?? "")
  }

  /// The zones of a table's text: tab-separated country codes, coordinates (`±DDMM±DDDMM` or
  /// `±DDMMSS±DDDMMSS`), zone name; `#` lines are comments. Lines that do not parse are skipped.
  public init(table: String) {
    var zones: [Zone] = []
    for line in table.split(separator: "\n") where !line.hasPrefix("#") {
      let columns = line.split(separator: "\t", omittingEmptySubsequences: false)
      guard columns.count >= 3, let (latitude, longitude) = Self.coordinates(columns[1]) else {
        continue
      }
      zones.append(
        Zone(identifier: String(columns[2]), latitude: latitude, longitude: longitude))
    }
    self.zones = zones
    timeZones = zones.map { TimeZone(identifier: $0.identifier) }
  }

  /// The zone for a position: the nearest principal city's within `seaMetres`, else nil.
  public func zone(latitude: Double, longitude: Double) -> Zone? {
    nearest(latitude: latitude, longitude: longitude).map { zones[$0] }
  }

  /// Seconds east of UTC at `latitude`, `longitude` at Unix time `time`.
  public func utcOffsetSeconds(latitude: Double, longitude: Double, at time: Int64) -> Int {
    if let index = nearest(latitude: latitude, longitude: longitude),
      let timeZone = timeZones[index]
    {
      return Self.utcOffsetSeconds(timeZone, at: time)
    }
    return Self.nauticalOffsetSeconds(longitude: longitude)
  }

  /// Seconds east of UTC of the IANA zone `identifier` (`Europe/Berlin`) at Unix time `time`,
  /// daylight saving time included, from the system's zone files; nil for a name they lack.
  public static func utcOffsetSeconds(zone identifier: String, at time: Int64) -> Int? {
    TimeZone(identifier: identifier).map { Self.utcOffsetSeconds($0, at: time) }
  }

  static func utcOffsetSeconds(_ timeZone: TimeZone, at time: Int64) -> Int {
    timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(time)))
  }

  /// Whole hours from the longitude, as at sea: 7.5° W to 7.5° E is UTC, and so on.
  public static func nauticalOffsetSeconds(longitude: Double) -> Int {
    guard longitude.isFinite else { return 0 }
    let wrapped = longitude.remainder(dividingBy: 360)
    return Int((wrapped / 15).rounded()) * 3_600
  }

  private func nearest(latitude: Double, longitude: Double) -> Int? {
    guard latitude.isFinite, longitude.isFinite else { return nil }
    var best: (index: Int, metres: Double)?
    for (index, zone) in zones.enumerated() {
      let metres = GeoNamesIndex.haversineMetres(
        fromLatitude: latitude, longitude: longitude, toLatitude: zone.latitude,
        longitude: zone.longitude)
      if metres < best?.metres ?? Self.seaMetres { best = (index, metres) }
    }
    return best?.index
  }

  /// `+5230+01322` (degrees and minutes) or `-013230+0365500` (with seconds).
  static func coordinates(_ text: Substring) -> (Double, Double)? {
    let bytes = Array(text.utf8)
    // The longitude starts at the second sign.
    guard let split = bytes.indices.dropFirst().first(where: { bytes[$0] == 43 || bytes[$0] == 45 })
    else { return nil }
    guard let latitude = angle(bytes[..<split], degreeDigits: 2),
      let longitude = angle(bytes[split...], degreeDigits: 3)
    else { return nil }
    return (latitude, longitude)
  }

  private static func angle(_ bytes: ArraySlice<UInt8>, degreeDigits: Int) -> Double? {
    guard let sign = bytes.first, sign == 43 || sign == 45 else { return nil }
    let digits = bytes.dropFirst()
    guard digits.allSatisfy({ (48...57).contains($0) }),
      digits.count == degreeDigits + 2 || digits.count == degreeDigits + 4
    else { return nil }
    func number(_ from: Int, _ count: Int) -> Double {
      digits.dropFirst(from).prefix(count).reduce(0) { $0 * 10 + Double($1 - 48) }
    }
    let value =
      number(0, degreeDigits) + number(degreeDigits, 2) / 60
      + (digits.count == degreeDigits + 4 ? number(degreeDigits + 2, 2) / 3_600 : 0)
    return sign == 45 ? -value : value
  }
}
