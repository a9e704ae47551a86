import Foundation
import Testing

@testable import SkyframeCodec

/// The decode-only firmware API (`ProfileView` over `StandardLayout`) and the device's request writers
/// (`RequestEncoder/BinaryRequest.swift`), against the golden vectors and the C header.
@Suite struct FrameViewTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func vectors(_ folder: String) -> [URL] {
    let directory = root.appendingPathComponent("schemas/vectors/\(folder)")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted().map {
      directory.appendingPathComponent($0)
    }
  }

  static func object(_ file: URL) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
  }

  static func bytes(_ hex: String) -> [UInt8] {
    var bytes = [UInt8]()
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      bytes.append(UInt8(hex[index..<next], radix: 16)!)
      index = next
    }
    return bytes
  }

  /// Calls `body` with `bytes` copied to an odd address.
  static func atOddAddress<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws -> R)
    rethrows -> R
  {
    let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + 1, alignment: 8)
    defer { storage.deallocate() }
    let odd = UnsafeMutableRawBufferPointer(rebasing: storage[1...])
    odd.copyBytes(from: bytes)
    return try body(UnsafeRawBufferPointer(odd))
  }

  @Test func thereAreFrameVectors() {
    #expect(Self.vectors("frames").count >= 25)
  }

  /// Each row of `StandardLayout` read through `ProfileView` is the little-endian integer at the
  /// row's offset, nil at its sentinel, from an odd address; and the model `WeatherFrame(view:)`
  /// reads holds, for each row it visits, the same wire value.
  @Test(arguments: vectors("frames"))
  func readsEveryRowOfAVectorFromAnOddAddress(_ file: URL) throws {
    let bytes = Self.bytes(try #require(try Self.object(file)["hex"] as? String))
    let table = try bytes.withUnsafeBytes { try ValidatedFrame(decoding: $0) }
    try Self.atOddAddress(bytes) { buffer in
      let view = try ProfileView(checking: buffer, as: .standard)
      var expected: [String: Int64?] = [:]
      for row in StandardLayout.fields where row.storage != .text && row.storage != .reserved {
        for index in 0..<row.count {
          let wire = Self.littleEndian(bytes, at: row.offset(index), row.storage)
          let value = wire == row.sentinel ? nil : wire
          #expect(view.value(row, index) == value, "\(row.name)[\(index)]")
          #expect(table.value(row, at: index).map { Int64($0) } == value, "\(row.name)[\(index)]")
          expected["\(row.name)[\(index)]"] = value
        }
      }
      #expect(Array(view.text(StandardLayout.name)) == Array(bytes[40..<64].prefix { $0 != 0 }))
      var frame = WeatherFrame(view: view)
      var recorder = RowRecorder()
      frame.visitRows(&recorder)
      for seen in recorder.seen where !seen.isText {
        #expect(
          expected["\(seen.name)[\(seen.index)]"] == seen.value, "\(seen.name)[\(seen.index)]")
      }
      #expect(frame == table.frame)
    }
  }

  /// The integer of `storage` at `offset`, sign-extended.
  static func littleEndian(_ bytes: [UInt8], at offset: Int, _ storage: LayoutField.Storage)
    -> Int64
  {
    var unsigned: UInt64 = 0
    for index in 0..<storage.width {
      unsigned |= UInt64(bytes[offset + index]) << (8 * UInt64(index))
    }
    switch storage {
    case .i8: return Int64(Int8(truncatingIfNeeded: unsigned))
    case .i16: return Int64(Int16(truncatingIfNeeded: unsigned))
    case .i32: return Int64(Int32(truncatingIfNeeded: unsigned))
    default: return Int64(unsigned)
    }
  }

  /// The error codes are the C header's `SKYFRAME_ERR_*`, read from the header itself.
  @Test func errorCodesAreTheCHeaders() throws {
    let header = try String(
      contentsOf: Self.root.appendingPathComponent("firmware-notes/skyframe_frame.h"),
      encoding: .utf8)
    func code(_ name: String) -> Int8? {
      guard
        let line = header.split(separator: "\n").first(where: {
          $0.hasPrefix("#define SKYFRAME_ERR_\(name) ")
        })
      else { return nil }
      let digits = line.drop { $0 != "(" }.dropFirst().prefix { $0 != ")" }
      return Int8(digits)
    }
    #expect(code("TRUNCATED") == FrameCheckError.truncated.rawValue)
    #expect(code("TOO_LONG") == FrameCheckError.tooLong.rawValue)
    #expect(code("BAD_MAGIC") == FrameCheckError.badMagic.rawValue)
    #expect(code("BAD_VERSION") == FrameCheckError.unsupportedVersion.rawValue)
    #expect(code("CRC") == FrameCheckError.checksumMismatch.rawValue)
  }

  /// Length, magic, version, CRC: the first failing check is the one thrown, as in the C header
  /// and `FrameError`.
  @Test func checksInTheSpecsOrder() throws {
    let good = Self.bytes(
      try #require(
        try Self.object(Self.vectors("frames")[0])["hex"] as? String))
    func error(_ bytes: [UInt8]) -> FrameCheckError? {
      bytes.withUnsafeBytes { buffer in
        do throws(FrameCheckError) {
          _ = try ProfileView(checking: buffer, as: .standard)
          return nil
        } catch { return error }
      }
    }
    #expect(error(good) == nil)
    #expect(error([]) == .truncated)
    #expect(error(Array(good.dropLast())) == .truncated)
    #expect(error(good + [0]) == .tooLong)
    var broken = good
    broken[0] = 0x54  // magic, with the CRC now wrong too
    #expect(error(broken) == .badMagic)
    broken = good
    broken[2] = 2
    #expect(error(broken) == .unsupportedVersion)
    for position in [3, 100, 187, 188, 191] {
      broken = good
      broken[position] ^= 0x10
      #expect(error(broken) == .checksumMismatch, "byte \(position)")
    }
    // The gateway's error says the same, with the values.
    broken = good
    broken[100] ^= 0x10
    #expect(throws: FrameError.self) { try WeatherFrame(decoding: broken) }
  }

  /// frame-v1.md §6.1: two ASCII letters are a country (upper-cased); any other pair is missing.
  @Test func countryBytesThatAreNotTwoLettersAreMissing() throws {
    let good = Self.bytes(
      try #require(try Self.object(Self.vectors("frames")[0])["hex"] as? String))
    let cases: [(UInt8, UInt8, String?)] = [
      (0x44, 0x45, "DE"), (0x64, 0x65, "DE"), (0x44, 0x00, nil), (0x00, 0x45, nil),
      (0x31, 0x32, nil), (0x40, 0x5B, nil), (0x60, 0x7B, nil), (0xC3, 0x84, nil), (0x00, 0x00, nil),
    ]
    for (first, second, shown) in cases {
      var bytes = good
      bytes[36] = first
      bytes[37] = second
      bytes.withUnsafeMutableBytes { WeatherFrame.seal($0) }
      let country = try bytes.withUnsafeBytes {
        try ProfileView(checking: $0, as: .standard).country(StandardLayout.country)
      }
      #expect(country.map { String(decoding: [$0.first, $0.second], as: UTF8.self) } == shown)
      #expect(try WeatherFrame(decoding: bytes).country == country)
    }
  }

  // MARK: Request writers

  static func write(_ body: (UnsafeMutableRawBufferPointer) throws(RequestEncodeError) -> Void)
    -> Result<[UInt8], RequestEncodeError>
  {
    var bytes = [UInt8](repeating: 0xEE, count: BinaryRequest.size)
    var failure: RequestEncodeError?
    bytes.withUnsafeMutableBytes { buffer in
      do throws(RequestEncodeError) { try body(buffer) } catch { failure = error }
    }
    if let failure { return .failure(failure) }
    return .success(bytes)
  }

  /// The binary request vectors, rebuilt by the writers a device uses, byte for byte; and the
  /// gateway parses what they write.
  @Test func writersRebuildTheBinaryRequestVectors() throws {
    var rebuilt = 0
    for file in Self.vectors("requests") {
      let vector = try Self.object(file)
      let hex = try #require(vector["hex"] as? String)
      guard hex.hasPrefix("5351"), hex.count == 128,
        let expect = vector["expect"] as? [String: Any], expect["error"] == nil
      else { continue }
      let id = UInt16(try #require(expect["id"] as? Int))
      let locations = try #require(expect["locations"] as? [[String: Any]])
      let result: Result<[UInt8], RequestEncodeError>
      if expect["refresh"] as? Bool == true {
        result = Self.write { (buffer) throws(RequestEncodeError) in
          try BinaryRequest.writeRefresh(id: id, into: buffer)
        }
      } else if let name = locations.first?["name"] as? String {
        let country = (locations.first?["country"] as? String).flatMap(CountryCode.init)
        let utf8 = Array(name.utf8)
        result = utf8.withUnsafeBytes { name in
          Self.write { (buffer) throws(RequestEncodeError) in
            try BinaryRequest.writePlace(name, country: country, id: id, into: buffer)
          }
        }
      } else {
        let point = try #require(locations.first)
        let latitude = Int32(((try #require(point["latitude"] as? Double)) * 100_000).rounded())
        let longitude = Int32(((try #require(point["longitude"] as? Double)) * 100_000).rounded())
        result = Self.write { (buffer) throws(RequestEncodeError) in
          try BinaryRequest.writeCoordinates(
            latitude: latitude, longitude: longitude, id: id, into: buffer)
        }
      }
      var written = try result.get()
      // Options as a device adds them: the profile (binary 0 when the vector names none) and the
      // first slot's check.
      let profile = (expect["profile"] as? String).flatMap(FrameProfile.init(named:)) ?? .standard
      let check = ((expect["checks"] as? [Any])?.first as? String).flatMap { UInt32($0, radix: 16) }
      if profile != .standard || check != nil {
        var failure: RequestEncodeError?
        written.withUnsafeMutableBytes { buffer in
          do throws(RequestEncodeError) {
            try BinaryRequest.setOptions(profile: profile, check: check, in: buffer)
          } catch { failure = error }
        }
        #expect(failure == nil, "\(file.lastPathComponent)")
      }
      #expect(written == Self.bytes(hex), "\(file.lastPathComponent)")
      #expect(try DeviceRequest(parsing: written).id == id)
      rebuilt += 1
    }
    #expect(rebuilt >= 3)
  }

  @Test func writersRefuseWhatTheGatewayWouldRefuse() {
    func place(_ name: [UInt8]) -> RequestEncodeError? {
      let result = name.withUnsafeBytes { name in
        Self.write { (buffer) throws(RequestEncodeError) in
          try BinaryRequest.writePlace(name, country: nil, id: 1, into: buffer)
        }
      }
      guard case .failure(let error) = result else { return nil }
      return error
    }
    #expect(place(Array("Berlin".utf8)) == nil)
    #expect(place(Array(repeating: UInt8(ascii: "a"), count: 40)) == nil)
    #expect(place(Array(repeating: UInt8(ascii: "a"), count: 41)) == .badName)
    #expect(place([]) == .badName)
    #expect(place(Array(" Berlin".utf8)) == .badName)
    #expect(place(Array("Berlin ".utf8)) == .badName)
    #expect(place(Array("Ber\tlin".utf8)) == .badName)
    #expect(place(Array("Ber\u{7F}lin".utf8)) == .badName)
    #expect(place(Array("Ber\u{85}lin".utf8)) == .badName)  // C1 control NEL
    #expect(place(Array("Köln".utf8)) == nil)

    func point(_ latitude: Int32, _ longitude: Int32, size: Int = BinaryRequest.size)
      -> RequestEncodeError?
    {
      var bytes = [UInt8](repeating: 0, count: size)
      return bytes.withUnsafeMutableBytes { buffer in
        do throws(RequestEncodeError) {
          try BinaryRequest.writeCoordinates(
            latitude: latitude, longitude: longitude, id: 1, into: buffer)
          return nil
        } catch { return error }
      }
    }
    #expect(point(9_000_000, -18_000_000) == nil)
    #expect(point(9_000_001, 0) == .latitudeOutOfRange)
    #expect(point(0, 18_000_001) == .longitudeOutOfRange)
    #expect(point(0, 0, size: 63) == .bufferTooSmall)
  }
}

/// `tiny` derived from `standard` (frame-profiles.md §3.1): whole degrees and half metres
/// rounded half away from zero, directions halved rounding half up with 360 → 0, offsets in
/// quarter hours or missing.
@Suite struct TinyDerivationTests {
  @Test(arguments: [
    (Int16(-25), Int64(-3)), (25, 3), (-24, -2), (24, 2), (-5, -1), (4, 0), (1_000, 100),
    (-1_000, -100),
  ])
  func wholeDegrees(_ tenths: Int16, _ degrees: Int64) throws {
    var frame = WeatherFrame()
    frame.daily[0].minimum = tenths
    frame.daily[3].maximum = tenths
    let tiny = try Self.tiny(frame)
    #expect(tiny.value(TinyLayout.dailyMinimum, 0) == degrees)
    #expect(tiny.value(TinyLayout.dailyMaximum, 3) == degrees)
  }

  @Test func windDirectionAndOffset() throws {
    var frame = WeatherFrame()
    for (degrees, wire) in [(UInt16(359), Int64(0)), (1, 1), (0, 0), (181, 91), (358, 179)] {
      frame.current.windDirection = degrees
      frame.current.windSpeed = 12
      frame.current.windGust = 5_000
      frame.utcOffsetMinutes = 345
      let tiny = try Self.tiny(frame)
      #expect(tiny.value(TinyLayout.windDirection) == wire)
      #expect(tiny.value(TinyLayout.windSpeed) == 2)
      #expect(tiny.value(TinyLayout.windGust) == 254)
      #expect(tiny.value(TinyLayout.utcOffset) == 23)
    }
    frame.utcOffsetMinutes = 50
    #expect(try Self.tiny(frame).value(TinyLayout.utcOffset) == nil)
  }

  /// The tiny frame made from `frame`, read back through a checked view.
  struct Tiny {
    let bytes: [UInt8]
    func value(_ field: LayoutField, _ index: Int = 0) -> Int64? {
      bytes.withUnsafeBytes { try! ProfileView(checking: $0).value(field, index) }
    }
  }

  static func tiny(_ frame: WeatherFrame) throws -> Tiny {
    let standard = try frame.encoded()
    var bytes = [UInt8](repeating: 0, count: TinyLayout.size)
    standard.withUnsafeBytes { source in
      bytes.withUnsafeMutableBytes { target in
        TinyLayout.write(
          from: ProfileView(unchecked: source.baseAddress!, kind: .standard), into: target)
      }
    }
    let checked = try bytes.withUnsafeBytes { try MessageKind.check($0) }
    #expect(checked == .tiny)
    return Tiny(bytes: bytes)
  }
}
