import Foundation

/// The local time zone of a position, for services that give only UTC (MET Norway): the IANA zone
/// of the nearest place that has one, and its offset at a given time from the system's zone
/// files, daylight saving time included. The places are GeoNames' (`placeTable`: every place of
/// 15,000 people or more and every capital, about 34,000, each with the zone GeoNames gives it)
/// and the principal cities of the system's tz database (`zone.tab`: one line per country and
/// zone, about 420, public domain; `zone1970.tab` when there is no `zone.tab`), which also cover
/// zones without a town of that size.
///
/// It is an approximation where zones meet, but a fine one: a position takes the zone of the
/// nearest town, not of the nearest principal city of a zone (which put Beijing, 808 km from
/// Pyongyang and 1,067 km from Shanghai, in Korea's UTC+9). Farther than `seaMetres` from every
/// place (the open sea) it is the nautical zone of the longitude: whole hours,
/// `round(longitude / 15)`.
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
  /// Beyond this distance from every place, the nautical zone.
  public static let seaMetres = 2_000_000.0

  /// The system's tables and GeoNames' places, read once, on first use.
  public static let system = TimeZoneIndex()

  /// The principal cities of the tz database's table.
  public let zones: [Zone]
  private let timeZones: [TimeZone?]
  /// GeoNames' places and their zones; nil: the principal cities alone.
  private let places: Places?

  /// The places of `placeTable`, each with the number of its zone in `identifiers` (1-based).
  struct Places: Sendable {
    let index: GeoNamesIndex
    let identifiers: [String]
    let timeZones: [TimeZone?]

    static let table = Places(text: TimeZoneIndex.placeTable)

    /// Lines of a zone's name, each followed by lines of ` latitude,longitude` in hundredths of
    /// a degree.
    init(text: String) {
      var parser = GeoNamesParser(minimumPopulation: 0)
      var identifiers: [String] = []
      for line in text.split(separator: "\n") {
        guard line.first == " " else {
          identifiers.append(line.trimmingCharacters(in: .whitespaces))
          continue
        }
        for point in line.split(separator: " ") {
          let parts = point.split(separator: ",")
          guard parts.count == 2, let latitude = Int(parts[0]), let longitude = Int(parts[1]),
            !identifiers.isEmpty
          else { continue }
          parser.add(
            latitude: Double(latitude) / 100, longitude: Double(longitude) / 100,
            zone: UInt16(identifiers.count))
        }
      }
      index = GeoNamesIndex(parser: parser)
      self.identifiers = identifiers
      timeZones = identifiers.map { TimeZone(identifier: $0) }
    }
  }

  /// The zones of the first of `paths` that can be read (`zone.tab` or `zone1970.tab` format),
  /// with GeoNames' places unless `places` is false; without either, every position gets its
  /// nautical zone.
  public init(paths: [String] = TimeZoneIndex.systemTables, places: Bool = true) {
    let text = paths.lazy.compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.first
    self.init(table: text ?? "", places: places ? Places.table : nil)
  }

  /// The zones of a table's text: tab-separated country codes, coordinates (`±DDMM±DDDMM` or
  /// `±DDMMSS±DDDMMSS`), zone name; `#` lines are comments. Lines that do not parse are skipped.
  /// No places: the table's principal cities alone.
  public init(table: String) {
    self.init(table: table, places: nil)
  }

  init(table: String, places: Places?) {
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
    self.places = places
  }

  /// The zone for a position, with the place that decided it: the nearest place's within
  /// `seaMetres`, else nil.
  public func zone(latitude: Double, longitude: Double) -> Zone? {
    nearest(latitude: latitude, longitude: longitude)?.zone
  }

  /// Seconds east of UTC at `latitude`, `longitude` at Unix time `time`.
  public func utcOffsetSeconds(latitude: Double, longitude: Double, at time: Int64) -> Int {
    if let timeZone = nearest(latitude: latitude, longitude: longitude)?.timeZone {
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

  /// The nearer of the nearest principal city and the nearest place, within `seaMetres`.
  private func nearest(latitude: Double, longitude: Double)
    -> (zone: Zone, timeZone: TimeZone?)?
  {
    guard latitude.isFinite, longitude.isFinite else { return nil }
    var best: (zone: Zone, timeZone: TimeZone?, metres: Double)?
    for (index, zone) in zones.enumerated() {
      let metres = GeoNamesIndex.haversineMetres(
        fromLatitude: latitude, longitude: longitude, toLatitude: zone.latitude,
        longitude: zone.longitude)
      if metres < best?.metres ?? Self.seaMetres { best = (zone, timeZones[index], metres) }
    }
    if let places,
      let place = places.index.nearestZone(
        latitude: latitude, longitude: longitude, within: best?.metres ?? Self.seaMetres),
      place.zone > 0, place.metres < best?.metres ?? .infinity
    {
      let number = Int(place.zone) - 1
      best = (
        Zone(
          identifier: places.identifiers[number], latitude: place.latitude,
          longitude: place.longitude),
        places.timeZones[number], place.metres
      )
    }
    return best.map { ($0.zone, $0.timeZone) }
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
