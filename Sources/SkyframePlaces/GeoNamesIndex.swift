import Foundation

/// The places of a GeoNames `cities*.txt` file (cities500, cities1000, cities5000, cities15000 from
/// https://download.geonames.org/export/dump/), indexed for "which named place is nearest to this
/// position". Immutable once loaded, so one index serves every request concurrently.
///
/// Places sit in buckets of a 1°×1° latitude/longitude grid, stored as one array sorted by bucket
/// with the start of every bucket (a bucket row is one contiguous run). A query looks at the
/// buckets that can hold a place within a search radius, which is the spherical cap's bounding
/// box: latitudes ±r, longitudes ±asin(sin r / cos φ), wrapped across the antimeridian, and every
/// longitude when the cap reaches a pole. A place found within the radius is provably the
/// nearest; otherwise the radius grows (to the best distance seen, or fourfold) up to the maximum.
/// Distances are compared as squared chords between unit vectors (three multiplications per
/// place, and the same order as the haversine distance: hav θ = chord² / 4); the answer's distance
/// is the haversine formula on a sphere of radius `earthRadiusMetres`.
public final class GeoNamesIndex: Sendable {
  /// The mean Earth radius (IUGG), in metres.
  public static let earthRadiusMetres = 6_371_008.8
  /// A file with more malformed lines than this fraction of its non-blank lines is rejected;
  /// with fewer, they are skipped and counted in `skippedLines`.
  public static let maximumMalformedFraction = 0.02
  /// Two places whose distances differ by at most this are equally near: the more populous one
  /// wins, then the one earlier in the file.
  public static let tieMetres = 0.001

  /// Non-blank lines that were skipped because they are malformed.
  public let skippedLines: Int
  /// The first few of them (at most 10), for a log.
  public let skippedLineProblems: [GeoNamesLineProblem]

  static let rows = 180
  static let columns = 360
  /// The first radius looked at, in metres: enough for most positions in a cities500 file.
  static let firstSearchMetres = 10_000.0
  /// How much beyond the asked radius a search box reaches, so rounding in the box's corners
  /// never hides a place (and a place tied within `tieMetres` is always seen).
  static let boxMarginMetres = 0.01

  /// For bucket `row * columns + column`, the range `cellStarts[bucket]..<cellStarts[bucket + 1]`
  /// of `points` and `entries`.
  private let cellStarts: [Int]
  private let points: [UnitVector]
  private let entries: [PlaceEntry]
  /// The names' UTF-8 bytes, back to back, in file order.
  private let names: [UInt8]

  /// The places in the index.
  public var count: Int { entries.count }

  /// Reads and indexes a GeoNames `cities*.txt` file, keeping places with at least
  /// `minimumPopulation` people. Malformed lines are skipped and counted when they are at most
  /// `maximumMalformedFraction` of the non-blank lines; more, and the file is rejected with the
  /// first few line numbers and what is wrong with them.
  ///
  /// The file is read 1 MiB at a time and only five of its columns are kept (name, position,
  /// country, population), so even cities500 (about 200 000 places) stays small in memory.
  public static func load(path: String, minimumPopulation: Int = 0) throws(GeoNamesError)
    -> GeoNamesIndex
  {
    try load(
      path: path, minimumPopulation: minimumPopulation, chunkSize: GeoNamesParser.defaultChunkSize)
  }

  /// `load` reading `chunkSize` bytes at a time: tests cut lines across chunks with small sizes.
  static func load(path: String, minimumPopulation: Int, chunkSize: Int) throws(GeoNamesError)
    -> GeoNamesIndex
  {
    let parser = try GeoNamesParser.parse(
      path: path, minimumPopulation: minimumPopulation, chunkSize: chunkSize)
    guard parser.lines > 0 else { throw .empty(path: path) }
    if Double(parser.malformedLines) > maximumMalformedFraction * Double(parser.lines) {
      throw .malformed(
        path: path, problems: parser.problems, malformedLines: parser.malformedLines,
        lines: parser.lines)
    }
    guard !parser.entries.isEmpty else {
      throw .noPlaces(
        path: path, minimumPopulation: minimumPopulation,
        lines: parser.lines - parser.malformedLines)
    }
    return GeoNamesIndex(parser: parser)
  }

  init(parser: GeoNamesParser) {
    let unsorted = parser.entries
    let cellCount = Self.rows * Self.columns
    var starts = [Int](repeating: 0, count: cellCount + 1)
    var cells = [Int](repeating: 0, count: unsorted.count)
    for (index, entry) in unsorted.enumerated() {
      let cell = Self.row(entry.latitude) * Self.columns + Self.column(entry.longitude)
      cells[index] = cell
      starts[cell + 1] += 1
    }
    for cell in 0..<cellCount { starts[cell + 1] += starts[cell] }
    var next = starts
    var order = [Int](repeating: 0, count: unsorted.count)
    for (index, cell) in cells.enumerated() {
      order[next[cell]] = index
      next[cell] += 1
    }
    let sorted = order.map { unsorted[$0] }
    cellStarts = starts
    entries = sorted
    points = sorted.map { UnitVector(latitude: $0.latitude, longitude: $0.longitude) }
    names = parser.names
    skippedLines = parser.malformedLines
    skippedLineProblems = parser.problems
  }

  /// The nearest place to a position within `maximumMetres`, or nil when there is none, the
  /// latitude is outside -90...90, or a number is not finite. Any longitude is taken modulo 360.
  /// Places equally near (within `tieMetres`) go to the more populous one.
  public func nearest(latitude: Double, longitude: Double, within maximumMetres: Double = 20_000)
    -> NearestPlace?
  {
    guard let (entry, distance) = nearestEntry(latitude, longitude, within: maximumMetres) else {
      return nil
    }
    let name = names.withUnsafeBufferPointer {
      String(
        decoding: UnsafeBufferPointer(
          rebasing: $0[entry.nameStart..<entry.nameStart + entry.nameLength]), as: UTF8.self)
    }
    return NearestPlace(
      name: name, countryCode: Self.countryCode(entry.country), latitude: entry.latitude,
      longitude: entry.longitude, distanceMetres: distance)
  }

  /// The nearest place's zone number (`PlaceEntry.zone`), position and distance in metres, as
  /// `nearest` finds it.
  func nearestZone(latitude: Double, longitude: Double, within maximumMetres: Double)
    -> (zone: UInt16, latitude: Double, longitude: Double, metres: Double)?
  {
    nearestEntry(latitude, longitude, within: maximumMetres).map {
      ($0.entry.zone, $0.entry.latitude, $0.entry.longitude, $0.metres)
    }
  }

  private func nearestEntry(_ latitude: Double, _ longitude: Double, within maximumMetres: Double)
    -> (entry: PlaceEntry, metres: Double)?
  {
    guard latitude.isFinite, longitude.isFinite, (-90.0...90.0).contains(latitude),
      maximumMetres >= 0
    else { return nil }
    let wrappedLongitude = longitude.remainder(dividingBy: 360)
    let query = UnitVector(latitude: latitude, longitude: wrappedLongitude)
    var best = Best(limit: Self.chordSquared(metres: maximumMetres + Self.boxMarginMetres))
    var radius = min(maximumMetres, Self.firstSearchMetres)
    cellStarts.withUnsafeBufferPointer { cellStarts in
      points.withUnsafeBufferPointer { points in
        entries.withUnsafeBufferPointer { entries in
          while true {
            let box = SearchBox(
              latitude: latitude, longitude: wrappedLongitude, radiusMetres: radius)
            for row in box.rows {
              let rowStart = row * Self.columns
              for columns in box.columns {
                let start = cellStarts[rowStart + columns.lowerBound]
                let end = cellStarts[rowStart + columns.upperBound + 1]
                Self.scan(start..<end, from: query, points: points, entries: entries, best: &best)
              }
            }
            if box.coversEverything || radius >= maximumMetres { return }
            if best.index >= 0 {
              let distance = Self.metres(chordSquared: best.chordSquared)
              if distance <= radius + Self.boxMarginMetres / 2 { return }
              radius = min(maximumMetres, distance)
            } else {
              radius = min(maximumMetres, radius * 4)
            }
          }
        }
      }
    }
    guard best.index >= 0 else { return nil }
    let entry = entries[best.index]
    let distance = Self.haversineMetres(
      fromLatitude: latitude, longitude: wrappedLongitude, toLatitude: entry.latitude,
      longitude: entry.longitude)
    guard distance <= maximumMetres else { return nil }
    return (entry, distance)
  }

  /// The great-circle distance between two positions on a sphere of radius `earthRadiusMetres`,
  /// by the haversine formula.
  public static func haversineMetres(
    fromLatitude latitude1: Double, longitude longitude1: Double, toLatitude latitude2: Double,
    longitude longitude2: Double
  ) -> Double {
    let radians = Double.pi / 180
    let phi1 = latitude1 * radians
    let phi2 = latitude2 * radians
    let sinHalfPhi = sin((phi2 - phi1) / 2)
    let sinHalfLambda = sin((longitude2 - longitude1) * radians / 2)
    let a = sinHalfPhi * sinHalfPhi + cos(phi1) * cos(phi2) * sinHalfLambda * sinHalfLambda
    return 2 * earthRadiusMetres * asin(min(1, a.squareRoot()))
  }

  // MARK: - Search

  /// The best place so far, by squared chord, and how close another must come to tie with it.
  struct Best {
    var index = -1
    var chordSquared: Double
    var tieTolerance = 0.0

    init(limit: Double) { chordSquared = limit }
  }

  private static func scan(
    _ places: Range<Int>, from query: UnitVector, points: UnsafeBufferPointer<UnitVector>,
    entries: UnsafeBufferPointer<PlaceEntry>, best: inout Best
  ) {
    for index in places {
      let point = points[index]
      let dx = point.x - query.x
      let dy = point.y - query.y
      let dz = point.z - query.z
      let chordSquared = dx * dx + dy * dy + dz * dz
      if chordSquared > best.chordSquared + best.tieTolerance { continue }
      if best.index >= 0, chordSquared >= best.chordSquared - best.tieTolerance {
        let candidate = entries[index]
        let current = entries[best.index]
        let wins =
          candidate.population > current.population
          || (candidate.population == current.population && candidate.line < current.line)
        if !wins { continue }
      }
      best.index = index
      best.chordSquared = chordSquared
      // (chord + τ)² − chord², τ being tieMetres as a chord on the unit sphere.
      let tau = tieMetres / earthRadiusMetres
      best.tieTolerance = 2 * chordSquared.squareRoot() * tau + tau * tau
    }
  }

  /// The buckets a spherical cap around a position can touch.
  struct SearchBox {
    var rows: ClosedRange<Int>
    /// One range of columns, or two when the box wraps across the antimeridian.
    var columns: ColumnRanges
    var coversEverything: Bool

    /// `longitude` in -180...180.
    init(latitude: Double, longitude: Double, radiusMetres: Double) {
      let angle = (radiusMetres + GeoNamesIndex.boxMarginMetres) / GeoNamesIndex.earthRadiusMetres
      let degrees = angle * 180 / .pi
      let reachesPole = latitude + degrees >= 90 || latitude - degrees <= -90
      rows =
        GeoNamesIndex.row(
          max(-90, latitude - degrees))...GeoNamesIndex.row(min(90, latitude + degrees))
      let halfWidth =
        reachesPole ? 180 : asin(min(1, sin(angle) / cos(latitude * .pi / 180))) * 180 / .pi
      let first = Int((longitude - halfWidth + 180).rounded(.down))
      let last = Int((longitude + halfWidth + 180).rounded(.down))
      let columnCount = GeoNamesIndex.columns
      if reachesPole || last - first + 1 >= columnCount {
        columns = ColumnRanges(0...(columnCount - 1))
      } else if first < 0 {
        columns = ColumnRanges(0...last, (first + columnCount)...(columnCount - 1))
      } else if last >= columnCount {
        columns = ColumnRanges(first...(columnCount - 1), 0...(last - columnCount))
      } else {
        columns = ColumnRanges(first...last)
      }
      coversEverything = rows == 0...(GeoNamesIndex.rows - 1) && columns.first.count == columnCount
    }
  }

  /// Up to two ranges of bucket columns, iterable without an array.
  struct ColumnRanges: Sequence, IteratorProtocol {
    var first: ClosedRange<Int>
    var second: ClosedRange<Int>?
    private var taken = 0

    init(_ first: ClosedRange<Int>, _ second: ClosedRange<Int>? = nil) {
      self.first = first
      self.second = second
    }

    mutating func next() -> ClosedRange<Int>? {
      taken += 1
      switch taken {
      case 1: return first
      case 2: return second
      default: return nil
      }
    }
  }

  static func row(_ latitude: Double) -> Int {
    min(max(Int((latitude + 90).rounded(.down)), 0), rows - 1)
  }

  /// Longitude 180 is in the bucket of -180.
  static func column(_ longitude: Double) -> Int {
    let column = Int((longitude + 180).rounded(.down)) % columns
    return column < 0 ? column + columns : column
  }

  /// The squared chord on the unit sphere of a great-circle distance; 4 from half the globe on.
  static func chordSquared(metres: Double) -> Double {
    let angle = metres / earthRadiusMetres
    guard angle < .pi else { return 4 }
    let chord = 2 * sin(angle / 2)
    return chord * chord
  }

  static func metres(chordSquared: Double) -> Double {
    2 * earthRadiusMetres * asin(min(1, chordSquared.squareRoot() / 2))
  }

  private static func countryCode(_ packed: UInt16) -> String {
    guard packed != 0 else { return "" }
    var code = ""
    code.unicodeScalars.append(Unicode.Scalar(UInt8(packed >> 8)))
    code.unicodeScalars.append(Unicode.Scalar(UInt8(packed & 0xFF)))
    return code
  }
}

/// A position on the unit sphere.
struct UnitVector {
  var x: Double
  var y: Double
  var z: Double

  init(latitude: Double, longitude: Double) {
    let phi = latitude * .pi / 180
    let lambda = longitude * .pi / 180
    x = cos(phi) * cos(lambda)
    y = cos(phi) * sin(lambda)
    z = sin(phi)
  }
}
