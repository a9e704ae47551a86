import Foundation

/// A place as the index keeps it, apart from its position as a unit vector (see `UnitVector`).
struct PlaceEntry {
  var latitude: Double
  var longitude: Double
  var population: Int
  /// Where the name's UTF-8 bytes start in the index's name buffer.
  var nameStart: Int
  var nameLength: Int
  /// The place's line in the file: the last tie-breaker, so results do not depend on the grid.
  var line: Int32
  /// Two ASCII letters, first in the high byte; 0 when the file gives none.
  var country: UInt16
  /// The place's zone as a number its index knows (`TimeZoneIndex`'s places); 0: none.
  var zone: UInt16 = 0
}

/// Reads a GeoNames `cities*.txt` file in chunks, line by line, without a String per line: only
/// the five columns the index needs are looked at (name, latitude, longitude, country code,
/// population), the rest only counted.
struct GeoNamesParser {
  static let defaultChunkSize = 1 << 20
  /// How many malformed lines an error or `GeoNamesIndex.skippedLineProblems` quotes.
  static let quotedProblems = 10

  let minimumPopulation: Int
  private(set) var entries: [PlaceEntry] = []
  private(set) var names: [UInt8] = []
  private(set) var lineNumber = 0
  /// Lines that are not blank.
  private(set) var lines = 0
  private(set) var malformedLines = 0
  private(set) var problems: [GeoNamesLineProblem] = []
  private var carry: [UInt8] = []

  init(minimumPopulation: Int) {
    self.minimumPopulation = minimumPopulation
  }

  static func parse(path: String, minimumPopulation: Int, chunkSize: Int = defaultChunkSize)
    throws(GeoNamesError) -> GeoNamesParser
  {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw .fileNotFound(path: path)
    }
    guard !isDirectory.boolValue else { throw .notARegularFile(path: path) }
    let handle: FileHandle
    do {
      handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    } catch {
      throw .unreadable(path: path, reason: reason(error))
    }
    defer { try? handle.close() }
    var parser = GeoNamesParser(minimumPopulation: minimumPopulation)
    while true {
      let chunk: Data?
      do {
        chunk = try handle.read(upToCount: chunkSize)
      } catch {
        throw .unreadable(path: path, reason: reason(error))
      }
      guard let chunk, !chunk.isEmpty else { break }
      chunk.withUnsafeBytes { parser.feed($0.assumingMemoryBound(to: UInt8.self)) }
    }
    parser.finish()
    return parser
  }

  private static func reason(_ error: any Error) -> String {
    (error as NSError).localizedDescription
  }

  /// Takes the next bytes of the file; a line cut by the chunk's end waits for the next chunk.
  mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) {
    var start = 0
    var index = 0
    let count = bytes.count
    while index < count {
      if bytes[index] == 0x0A {
        if carry.isEmpty {
          consume(line: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        } else {
          carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
          var line = carry
          carry = []
          line.withUnsafeBufferPointer { consume(line: $0) }
          line.removeAll(keepingCapacity: true)
          carry = line
        }
        start = index + 1
      }
      index += 1
    }
    if start < count {
      carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<count]))
    }
  }

  /// A place known only by its position and its zone (`TimeZoneIndex.placeTable`): no name, no
  /// country, no people.
  mutating func add(latitude: Double, longitude: Double, zone: UInt16) {
    lineNumber += 1
    lines += 1
    entries.append(
      PlaceEntry(
        latitude: latitude, longitude: longitude, population: 0, nameStart: names.count,
        nameLength: 0, line: Int32(truncatingIfNeeded: lineNumber), country: 0, zone: zone))
  }

  /// The last line, when the file does not end with a newline.
  mutating func finish() {
    guard !carry.isEmpty else { return }
    let line = carry
    carry = []
    line.withUnsafeBufferPointer { consume(line: $0) }
  }

  mutating func consume(line raw: UnsafeBufferPointer<UInt8>) {
    lineNumber += 1
    var line = raw
    if lineNumber == 1, line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF {
      line = UnsafeBufferPointer(rebasing: line[3...])
    }
    if let last = line.last, last == 0x0D {
      line = UnsafeBufferPointer(rebasing: line[..<(line.count - 1)])
    }
    guard !line.isEmpty else { return }
    lines += 1
    switch Self.place(in: line, minimumPopulation: minimumPopulation) {
    case .place(let name, let entry):
      var entry = entry
      entry.nameStart = names.count
      entry.line = Int32(truncatingIfNeeded: lineNumber)
      names.append(contentsOf: UnsafeBufferPointer(rebasing: line[name]))
      entries.append(entry)
    case .belowMinimumPopulation:
      break
    case .malformed(let problem):
      malformedLines += 1
      if problems.count < Self.quotedProblems {
        problems.append(GeoNamesLineProblem(line: lineNumber, problem: problem))
      }
    }
  }

  enum LineResult {
    case place(name: Range<Int>, PlaceEntry)
    case belowMinimumPopulation
    case malformed(GeoNamesLineProblem.Problem)
  }

  static func place(in line: UnsafeBufferPointer<UInt8>, minimumPopulation: Int) -> LineResult {
    var name = 0..<0
    var latitude = 0..<0
    var longitude = 0..<0
    var country = 0..<0
    var population = 0..<0
    var column = 0
    var fieldStart = 0
    for index in 0...line.count where index == line.count || line[index] == 0x09 {
      let field = fieldStart..<index
      switch column {
      case 1: name = field
      case 4: latitude = field
      case 5: longitude = field
      case 8: country = field
      case 14: population = field
      default: break
      }
      column += 1
      fieldStart = index + 1
    }
    guard column == 19 else { return .malformed(.columnCount(found: column)) }

    guard !name.isEmpty else { return .malformed(.emptyName) }
    let nameBytes = UnsafeBufferPointer(rebasing: line[name])
    guard isValidUTF8(nameBytes) else { return .malformed(.nameNotUTF8) }

    let latitudeBytes = UnsafeBufferPointer(rebasing: line[latitude])
    guard let latitudeValue = parseDecimal(latitudeBytes) else {
      return .malformed(.notANumber(field: "latitude", text: quote(latitudeBytes)))
    }
    guard (-90.0...90.0).contains(latitudeValue) else {
      return .malformed(.outOfRange(field: "latitude", text: quote(latitudeBytes)))
    }
    let longitudeBytes = UnsafeBufferPointer(rebasing: line[longitude])
    guard let longitudeValue = parseDecimal(longitudeBytes) else {
      return .malformed(.notANumber(field: "longitude", text: quote(longitudeBytes)))
    }
    guard (-180.0...180.0).contains(longitudeValue) else {
      return .malformed(.outOfRange(field: "longitude", text: quote(longitudeBytes)))
    }

    let countryBytes = UnsafeBufferPointer(rebasing: line[country])
    var countryCode: UInt16 = 0
    if !countryBytes.isEmpty {
      guard countryBytes.count == 2, isASCIILetter(countryBytes[0]), isASCIILetter(countryBytes[1])
      else { return .malformed(.badCountryCode(text: quote(countryBytes))) }
      countryCode = UInt16(countryBytes[0] & 0xDF) << 8 | UInt16(countryBytes[1] & 0xDF)
    }

    let populationBytes = UnsafeBufferPointer(rebasing: line[population])
    guard let populationValue = parsePopulation(populationBytes) else {
      return .malformed(.notANumber(field: "population", text: quote(populationBytes)))
    }
    guard populationValue >= minimumPopulation else { return .belowMinimumPopulation }

    let entry = PlaceEntry(
      latitude: latitudeValue, longitude: longitudeValue, population: populationValue, nameStart: 0,
      nameLength: name.count, line: 0, country: countryCode)
    return .place(name: name, entry)
  }

  private static func isASCIILetter(_ byte: UInt8) -> Bool {
    (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }

  private static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var ascii = true
    for byte in bytes where byte >= 0x80 {
      ascii = false
      break
    }
    return ascii || String(validating: bytes, as: UTF8.self) != nil
  }

  /// A field as an error message quotes it: lossily decoded, at most 40 characters.
  private static func quote(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
    let text = String(decoding: bytes, as: UTF8.self)
    return text.count > 40 ? String(text.prefix(40)) + "…" : text
  }

  private static let powersOfTen: [Double] = (0...22).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
  }

  /// A decimal number like `52.52437` or `-0.1`. Up to 15 digits it is one exact integer divided
  /// by an exact power of ten, which IEEE division rounds correctly, so the result equals
  /// `Double(String)`'s; anything else (more digits, an exponent) goes to `Double(String)`.
  /// Infinities and NaN are not numbers here.
  static func parseDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    var index = 0
    var negative = false
    if index < bytes.count, bytes[index] == 0x2D || bytes[index] == 0x2B {
      negative = bytes[index] == 0x2D
      index += 1
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var fractionDigits = 0
    var seenPoint = false
    while index < bytes.count {
      let byte = bytes[index]
      if byte >= 0x30 && byte <= 0x39 {
        mantissa = mantissa &* 10 &+ UInt64(byte &- 0x30)
        digits += 1
        if seenPoint { fractionDigits += 1 }
      } else if byte == 0x2E && !seenPoint {
        seenPoint = true
      } else {
        break
      }
      index += 1
    }
    if index == bytes.count && digits > 0 && digits <= 15 {
      let magnitude = Double(mantissa) / powersOfTen[fractionDigits]
      return negative ? -magnitude : magnitude
    }
    guard !bytes.isEmpty, bytes.count <= 64,
      let value = Double(String(decoding: bytes, as: UTF8.self)),
      value.isFinite
    else { return nil }
    return value
  }

  /// Digits only; an empty field is 0 (GeoNames writes 0 when it does not know).
  static func parsePopulation(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    guard bytes.count <= 18 else { return nil }
    var value = 0
    for byte in bytes {
      guard byte >= 0x30 && byte <= 0x39 else { return nil }
      value = value * 10 + Int(byte - 0x30)
    }
    return value
  }
}
