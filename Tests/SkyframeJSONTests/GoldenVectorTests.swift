import Foundation
import SkyframeCodec
import Testing

@testable import SkyframeJSON

/// The golden vectors in `schemas/vectors/` were written by an encoder independent of this one
/// (`schemas/vectors/generate.py`); the Swift codec must produce and read exactly the same.
@Suite struct GoldenVectorTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func files(_ folder: String) -> [URL] {
    let directory = root.appendingPathComponent("schemas/vectors/\(folder)")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted().map {
      directory.appendingPathComponent($0)
    }
  }

  struct FrameVector: Decodable {
    var hex: String
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

  @Test func thereAreEnoughVectors() {
    #expect(Self.files("frames").count >= 12)
    #expect(Self.files("requests").count >= 12)
  }

  /// The standard vectors in the one JSON shape (frame-profiles.md §8): the codec reads the
  /// bytes, the table's document says what the vector says, and the document read back gives
  /// the same bytes — from the encoder and from the document reader.
  @Test(arguments: files("frames"))
  func frameVector(_ file: URL) throws {
    let data = try Data(contentsOf: file)
    let vector = try JSONDecoder().decode(FrameVector.self, from: data)
    let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    #expect(object["profile"] as? String == "standard")
    let expected = try #require(object["frame"] as? [String: Any])
    let bytes = Self.bytes(vector.hex)
    let decoded = try WeatherFrame(decoding: bytes)
    #expect(try decoded.encoded() == bytes, "encoding \(file.lastPathComponent)")
    let json = try bytes.withUnsafeBytes { try ProfileDocument.json(of: $0) }
    let shown = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? NSDictionary)
    #expect(shown == expected as NSDictionary, "decoding \(file.lastPathComponent)")
    #expect(
      try ProfileDocument.message(from: expected) == bytes, "reading \(file.lastPathComponent)")
  }

  struct RequestVector: Decodable {
    var hex: String
    var maxLocations: Int
    var expect: Expectation

    enum CodingKeys: String, CodingKey {
      case hex, expect
      case maxLocations = "max_locations"
    }

    struct Expectation: Decodable, Equatable {
      var id: Int?
      var refresh: Bool?
      var locations: [Location]?
      var profile: String?
      var checks: [String?]?
      var error: String?
      var status: String?
      var slot: Int?
      var offset: Int?
      var count: Int?
      var maximum: Int?
      var bytes: Int?
      var stored: UInt32?
      var computed: UInt32?
      var kind: Int?
    }

    struct Location: Decodable, Equatable {
      var latitude: Double?
      var longitude: Double?
      var name: String?
      var country: String?
    }
  }

  @Test(arguments: files("requests"))
  func requestVector(_ file: URL) throws {
    let vector = try JSONDecoder().decode(RequestVector.self, from: Data(contentsOf: file))
    let bytes = Self.bytes(vector.hex)
    let expect = vector.expect
    do {
      let request = try DeviceRequest(parsing: bytes, maximumLocations: vector.maxLocations)
      #expect(
        expect.error == nil, "\(file.lastPathComponent) should fail with \(expect.error ?? "")")
      #expect(Int(request.id) == expect.id)
      switch request.body {
      case .refresh:
        #expect(expect.refresh == true)
      case .locations(let list):
        #expect(expect.refresh == false)
        let locations = list.map { query -> RequestVector.Location in
          switch query {
          case .coordinates(let point):
            RequestVector.Location(
              latitude: Double(point.latitude) / 100_000,
              longitude: Double(point.longitude) / 100_000)
          case .place(let name, let country):
            RequestVector.Location(name: name.string, country: country?.string)
          }
        }
        #expect(locations == expect.locations, "\(file.lastPathComponent)")
      }
      #expect(request.profile.map { "\($0.name)" } == expect.profile, "\(file.lastPathComponent)")
      let checks = (0..<request.checks.count).map { slot in
        request.checks[slot].map { check in
          let digits = String(check, radix: 16)
          return String(repeating: "0", count: 8 - digits.count) + digits
        }
      }
      #expect(checks == expect.checks ?? [], "\(file.lastPathComponent)")
    } catch {
      #expect(Self.expectation(of: error) == expect, "\(file.lastPathComponent): \(error)")
    }
    // A binary request that parses must also be what our encoder writes.
    if expect.error == nil, bytes.first == UInt8(ascii: "S"), bytes.count == BinaryRequest.size {
      let request = try DeviceRequest(parsing: bytes)
      #expect(try BinaryRequest.encoded(request) == bytes)
    }
  }

  static func expectation(of error: RequestError) -> RequestVector.Expectation {
    var expect = RequestVector.Expectation(status: error.frameStatus.name?.description)
    switch error {
    case .empty: expect.error = "empty"
    case .tooLong(let count): (expect.error, expect.count) = ("too_long", count)
    case .invalidUTF8(let offset): (expect.error, expect.offset) = ("invalid_utf8", offset)
    case .controlCharacter(let offset):
      (expect.error, expect.offset) = ("control_character", offset)
    case .badRequestID(let offset): (expect.error, expect.offset) = ("bad_request_id", offset)
    case .emptyLocation(let slot): (expect.error, expect.slot) = ("empty_location", slot)
    case .badNumber(let slot): (expect.error, expect.slot) = ("bad_number", slot)
    case .latitudeOutOfRange(let slot):
      (expect.error, expect.slot) = ("latitude_out_of_range", slot)
    case .longitudeOutOfRange(let slot):
      (expect.error, expect.slot) = ("longitude_out_of_range", slot)
    case .nameTooLong(let slot, let bytes):
      (expect.error, expect.slot, expect.bytes) = ("name_too_long", slot, bytes)
    case .badCountryCode(let slot): (expect.error, expect.slot) = ("bad_country_code", slot)
    case .tooManyLocations(let count, let maximum):
      (expect.error, expect.count, expect.maximum) = ("too_many_locations", count, maximum)
    case .wrongBinaryLength(let count):
      (expect.error, expect.count) = ("wrong_binary_length", count)
    case .unsupportedVersion(let version):
      (expect.error, expect.kind) = ("unsupported_version", Int(version))
    case .checksumMismatch(let stored, let computed):
      (expect.error, expect.stored, expect.computed) = ("checksum_mismatch", stored, computed)
    case .unknownKind(let kind): (expect.error, expect.kind) = ("unknown_kind", Int(kind))
    case .unknownProfile(let profile):
      (expect.error, expect.kind) = ("unknown_profile", Int(profile))
    case .unknownOption(let offset, _): (expect.error, expect.offset) = ("unknown_option", offset)
    case .badOption(let offset, _): (expect.error, expect.offset) = ("bad_option", offset)
    }
    return expect
  }
}
