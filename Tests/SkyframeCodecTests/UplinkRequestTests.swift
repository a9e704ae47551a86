import Foundation
import Testing

@testable import SkyframeCodec

/// The LoRaWAN uplink request (`schemas/lorawan-uplink-v1.md`): the gateway's parser and the
/// device's writers against the golden vectors of `schemas/vectors/lorawan/`, which the
/// independent generator wrote from the spec.
@Suite struct UplinkRequestTests {
  struct Vector: Decodable {
    var description: String
    var hex: String
    var configuredPlaces: Int
    var write: Write?
    var expect: Expectation

    enum CodingKeys: String, CodingKey {
      case description, hex, write, expect
      case configuredPlaces = "configured_places"
    }

    struct Write: Decodable {
      var latitude: Int32
      var longitude: Int32

      enum CodingKeys: String, CodingKey {
        case latitude = "lat_e5"
        case longitude = "lon_e5"
      }
    }

    /// A request (`kind` …) or an error (`error`, `status` …); `id` in both.
    struct Expectation: Decodable, Equatable {
      var id: Int
      var kind: String?
      var latitude: Double?
      var longitude: Double?
      var index: Int?
      var check: String?
      var error: String?
      var status: String?
      var count: Int?
      var version: Int?
      var kindNumber: Int?

      enum CodingKeys: String, CodingKey {
        case id, kind, latitude, longitude, index, check, error, status, count, version
      }

      init(
        id: Int, kind: String? = nil, latitude: Double? = nil, longitude: Double? = nil,
        index: Int? = nil, check: String? = nil, error: String? = nil, status: String? = nil,
        count: Int? = nil, version: Int? = nil, kindNumber: Int? = nil
      ) {
        (self.id, self.kind, self.latitude, self.longitude) = (id, kind, latitude, longitude)
        (self.index, self.check, self.error, self.status) = (index, check, error, status)
        (self.count, self.version, self.kindNumber) = (count, version, kindNumber)
      }

      init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(Int.self, forKey: .id)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        // An error's "kind" is the header's number; a request's "kind" its name.
        if error != nil {
          kindNumber = try c.decodeIfPresent(Int.self, forKey: .kind)
        } else {
          kind = try c.decode(String.self, forKey: .kind)
        }
        latitude = try c.decodeIfPresent(Double.self, forKey: .latitude)
        longitude = try c.decodeIfPresent(Double.self, forKey: .longitude)
        check = try c.decodeIfPresent(String.self, forKey: .check)
        status = try c.decodeIfPresent(String.self, forKey: .status)
        count = try c.decodeIfPresent(Int.self, forKey: .count)
        version = try c.decodeIfPresent(Int.self, forKey: .version)
        index = try c.decodeIfPresent(Int.self, forKey: .index)
      }
    }
  }

  static func vectors() -> [URL] { FrameViewTests.vectors("lorawan") }

  static func load(_ file: URL) throws -> Vector {
    try JSONDecoder().decode(Vector.self, from: Data(contentsOf: file))
  }

  static func checkHex(_ check: UInt32?) -> String? {
    check.map { value in
      let digits = String(value, radix: 16)
      return String(repeating: "0", count: 8 - digits.count) + digits
    }
  }

  static func expectation(of request: DeviceUplink) -> Vector.Expectation {
    let check = checkHex(request.check)
    switch request.body {
    case .coordinates(let point):
      return .init(
        id: Int(request.id), kind: "coordinates", latitude: Double(point.latitude) / 100_000,
        longitude: Double(point.longitude) / 100_000, check: check)
    case .place(let index):
      return .init(id: Int(request.id), kind: "place", index: Int(index), check: check)
    case .refresh:
      return .init(id: Int(request.id), kind: "refresh", check: check)
    }
  }

  static func expectation(of error: UplinkError, id: UInt8) -> Vector.Expectation {
    let status = error.frameStatus.name.map { "\($0)" }
    switch error {
    case .tooShort(let count):
      return .init(id: Int(id), error: "too_short", status: status, count: count)
    case .tooLong(let count):
      return .init(id: Int(id), error: "too_long", status: status, count: count)
    case .unsupportedVersion(let version):
      return .init(
        id: Int(id), error: "unsupported_version", status: status, version: Int(version))
    case .unknownKind(let kind):
      return .init(id: Int(id), error: "unknown_kind", status: status, kindNumber: Int(kind))
    case .latitudeOutOfRange:
      return .init(id: Int(id), error: "latitude_out_of_range", status: status)
    case .longitudeOutOfRange:
      return .init(id: Int(id), error: "longitude_out_of_range", status: status)
    case .placeNotConfigured(let index, let count):
      return .init(
        id: Int(id), index: Int(index), error: "place_not_configured", status: status,
        count: count)
    }
  }

  /// The parameterized tests below pass on no arguments: an empty or missing
  /// schemas/vectors/lorawan/ must fail here (28 vectors when this was written).
  @Test func thereAreEnoughVectors() {
    #expect(Self.vectors().count >= 28, "schemas/vectors/lorawan/: \(Self.vectors().count) vectors")
  }

  @Test func thereAreVectorsOfEveryKindAndError() throws {
    let expectations = try Self.vectors().map { try Self.load($0).expect }
    let kinds = Set(expectations.compactMap(\.kind))
    let errors = Set(expectations.compactMap(\.error))
    #expect(kinds == ["coordinates", "place", "refresh"])
    #expect(
      errors == [
        "too_short", "too_long", "unsupported_version", "unknown_kind", "latitude_out_of_range",
        "longitude_out_of_range", "place_not_configured",
      ])
  }

  /// Every vector parses to exactly its expectation, from an odd address; an error's answer
  /// echoes the id the vector names.
  @Test(arguments: vectors())
  func parsesTheVector(_ file: URL) throws {
    let vector = try Self.load(file)
    let bytes = FrameViewTests.bytes(vector.hex)
    let got = FrameViewTests.atOddAddress(bytes) { buffer -> Vector.Expectation in
      do throws(UplinkError) {
        return Self.expectation(
          of: try DeviceUplink(parsing: buffer, configuredPlaces: vector.configuredPlaces))
      } catch {
        return Self.expectation(of: error, id: DeviceUplink.requestID(in: buffer))
      }
    }
    #expect(got == vector.expect, "\(file.lastPathComponent): \(vector.description)")
  }

  /// The valid vectors, rebuilt by the writers a device uses, byte for byte (coordinates from
  /// the 1e-5° the vector says the writer was given), into a buffer at an odd address.
  @Test(arguments: vectors())
  func writersRebuildTheVector(_ file: URL) throws {
    let vector = try Self.load(file)
    guard let kind = vector.expect.kind else { return }
    let id = UInt8(vector.expect.id)
    let check = vector.expect.check.map { UInt32($0, radix: 16)! }
    var storage = [UInt8](repeating: 0xEE, count: UplinkRequest.maximumSize + 1)
    let count = try storage.withUnsafeMutableBytes { all throws -> Int in
      let buffer = UnsafeMutableRawBufferPointer(rebasing: all[1...])
      switch kind {
      case "coordinates":
        let write = try #require(vector.write)
        return try UplinkRequest.writeCoordinates(
          latitude: write.latitude, longitude: write.longitude, id: id, check: check, into: buffer)
      case "place":
        return try UplinkRequest.writePlace(
          index: UInt8(try #require(vector.expect.index)), id: id, check: check, into: buffer)
      default:
        return try UplinkRequest.writeRefresh(id: id, check: check, into: buffer)
      }
    }
    #expect(Array(storage[1..<1 + count]) == FrameViewTests.bytes(vector.hex))
    #expect(storage[0] == 0xEE && storage[(1 + count)...].allSatisfy { $0 == 0xEE })
  }

  @Test func writersRefuseWhatTheyCannotWrite() {
    var small = [UInt8](repeating: 0, count: 9)
    small.withUnsafeMutableBytes { buffer in
      #expect(throws: RequestEncodeError.bufferTooSmall) {
        try UplinkRequest.writeCoordinates(
          latitude: 0, longitude: 0, id: 0, check: 1, into: buffer)
      }
      #expect(throws: RequestEncodeError.latitudeOutOfRange) {
        try UplinkRequest.writeCoordinates(
          latitude: 9_000_001, longitude: 0, id: 0, check: nil, into: buffer)
      }
      #expect(throws: RequestEncodeError.longitudeOutOfRange) {
        try UplinkRequest.writeCoordinates(
          latitude: 0, longitude: -18_000_001, id: 0, check: nil, into: buffer)
      }
      #expect(
        (try? UplinkRequest.writeCoordinates(
          latitude: 0, longitude: 0, id: 0, check: nil, into: buffer)) == 6)
    }
    var two = [UInt8](repeating: 0, count: 2)
    two.withUnsafeMutableBytes { buffer in
      #expect(throws: RequestEncodeError.bufferTooSmall) {
        try UplinkRequest.writePlace(index: 0, id: 0, check: nil, into: buffer)
      }
      #expect((try? UplinkRequest.writeRefresh(id: 1, check: nil, into: buffer)) == 2)
    }
  }

  /// Every position a writer accepts comes back from the parser as its 0.01° cell, rounded half
  /// away from zero, and the errors carry the status the spec names.
  @Test func writtenCoordinatesParseToTheirCell() throws {
    var random = SeededRandom(seed: 25)
    for _ in 0..<2_000 {
      let latitude = Int32.random(in: -9_000_000...9_000_000, using: &random)
      let longitude = Int32.random(in: -18_000_000...18_000_000, using: &random)
      var bytes = [UInt8](repeating: 0, count: UplinkRequest.maximumSize)
      let count = try bytes.withUnsafeMutableBytes { buffer in
        try UplinkRequest.writeCoordinates(
          latitude: latitude, longitude: longitude, id: 1, check: 0xABCD_EF01, into: buffer)
      }
      let parsed = try DeviceUplink(parsing: Array(bytes[..<count]), configuredPlaces: 0)
      func cell(_ value: Int32) -> Int32 {
        Int32((Double(value) / 1000).rounded(.toNearestOrAwayFromZero)) * 1000
      }
      #expect(
        parsed
          == DeviceUplink(
            id: 1,
            body: .coordinates(
              Coordinates(latitude: cell(latitude), longitude: cell(longitude))),
            check: 0xABCD_EF01))
    }
    #expect(UplinkError.placeNotConfigured(index: 1, count: 1).frameStatus == .notFound)
    #expect(UplinkError.tooLong(count: 12).frameStatus == .badRequest)
  }
}
