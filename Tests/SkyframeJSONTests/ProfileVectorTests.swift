import Foundation
import SkyframeCodec
import Testing

@testable import SkyframeJSON

/// The `large`, `tiny` and `unchanged` golden vectors (written by `schemas/vectors/generate.py`,
/// independent of this codec): the Swift decoder reads every field as the vector says, the table
/// writer reproduces the bytes, the content check matches, and the tables agree with the spec's
/// machine-readable layouts.
@Suite struct ProfileVectorTests {
  struct Vector: Decodable {
    var profile: String?
    var hex: String
    var contentCheck: String?

    enum CodingKeys: String, CodingKey {
      case profile, hex
      case contentCheck = "content_check"
    }
  }

  static let profileFiles =
    GoldenVectorTests.files("large") + GoldenVectorTests.files("tiny")
    + GoldenVectorTests.files("unchanged")

  @Test func thereAreVectorsOfEveryKind() {
    #expect(GoldenVectorTests.files("large").count >= 10)
    #expect(GoldenVectorTests.files("tiny").count >= 10)
    #expect(GoldenVectorTests.files("unchanged").count >= 3)
  }

  @Test(arguments: profileFiles) func decodesEveryFieldAsTheVectorSays(_ file: URL) throws {
    let data = try Data(contentsOf: file)
    let vector = try JSONDecoder().decode(Vector.self, from: data)
    let expected = try #require(
      (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["frame"] as? NSDictionary)
    let bytes = GoldenVectorTests.bytes(vector.hex)
    try bytes.withUnsafeBytes { buffer in
      let view = try ProfileView(checking: buffer)
      let json = ProfileDocument.json(view)
      let decoded = try #require(
        try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary)
      #expect(decoded == expected, "\(file.lastPathComponent)")
      if let check = vector.contentCheck {
        #expect(String(format: "%08x", view.contentCheck) == check)
      }
    }
  }

  /// The vector's JSON read back (`skyframe encode`) gives its bytes.
  @Test(arguments: profileFiles) func theDocumentReadsBackToTheSameBytes(_ file: URL) throws {
    let data = try Data(contentsOf: file)
    let vector = try JSONDecoder().decode(Vector.self, from: data)
    let object = try #require(
      (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["frame"] as? [String: Any])
    #expect(try ProfileDocument.message(from: object) == GoldenVectorTests.bytes(vector.hex))
  }

  /// Every field's wire value written back through `ProfileWriter` gives the vector's bytes.
  @Test(arguments: profileFiles) func theTableWriterWritesTheSameBytes(_ file: URL) throws {
    let vector = try JSONDecoder().decode(Vector.self, from: Data(contentsOf: file))
    let bytes = GoldenVectorTests.bytes(vector.hex)
    var written = [UInt8](repeating: 0xAA, count: bytes.count)
    try bytes.withUnsafeBytes { source in
      let view = try ProfileView(checking: source)
      written.withUnsafeMutableBytes { target in
        var out = ProfileWriter(target, kind: view.kind)
        for field in view.kind.fields where ProfileDocument.isShown(field) {
          if field.storage == .text || field.storage == .country {
            let range = field.offset..<field.offset + field.size
            target[range].copyBytes(from: source[range])
            continue
          }
          for index in 0..<field.count { out.set(field, index, view.value(field, index)) }
        }
        // The vectors hold unknown statuses and the extremes on purpose: the table's ranges
        // must still accept every value a vector carries.
        #expect(out.outOfRange == nil, "\(file.lastPathComponent)")
        ProfileWriter.seal(target, kind: view.kind)
      }
    }
    #expect(written == bytes, "\(file.lastPathComponent)")
  }

  @Test(arguments: GoldenVectorTests.files("frames"))
  func standardVectorsHaveTheirContentCheck(_ file: URL) throws {
    let vector = try JSONDecoder().decode(Vector.self, from: Data(contentsOf: file))
    guard let check = vector.contentCheck else { return }
    let bytes = GoldenVectorTests.bytes(vector.hex)
    let computed = bytes.withUnsafeBytes { ContentCheck.of($0, kind: .standard) }
    #expect(String(format: "%08x", computed) == check)
  }

  /// The Swift tables against `schemas/frame-large.json` and `frame-tiny.json`.
  @Test(arguments: [("large", LargeLayout.fields, 960), ("tiny", TinyLayout.fields, 48)])
  func theTablesAreTheSpecsLayouts(_ name: String, _ fields: [LayoutField], _ size: Int) throws {
    let url = GoldenVectorTests.root.appendingPathComponent("schemas/frame-\(name).json")
    let layout = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    #expect(layout["size"] as? Int == size)
    let specified = try #require(layout["fields"] as? [[String: Any]])
    #expect(specified.count == fields.count)
    var end = 0
    for (spec, field) in zip(specified, fields) {
      let label = "\(field.name)"
      #expect(spec["name"] as? String == label)
      #expect(spec["offset"] as? Int == field.offset, "\(label)")
      #expect(field.offset == end, "\(label) follows the field before it")
      #expect(field.offset % field.storage.width == 0, "\(label) is aligned")
      end = field.offset + field.size
      #expect(spec["count"] as? Int == field.count, "\(label)")
      #expect((spec["length"] as? Int ?? 1) == field.length, "\(label)")
      #expect(abs((spec["scale"] as? Double ?? 1) - field.scale) < 1e-12, "\(label)")
      #expect((spec["unit"] as? String ?? "") == "\(field.unit)", "\(label)")
      #expect((spec["sentinel"] as? Int).map(Int64.init) == field.sentinel, "\(label)")
      #expect((spec["min"] as? Int).map(Int64.init) == field.minimum, "\(label)")
      #expect((spec["max"] as? Int).map(Int64.init) == field.maximum, "\(label)")
      let type = spec["type"] as? String
      let expectedType: String =
        switch field.storage {
        case .text: "utf8"
        case .country: "char"
        case .reserved: "u8"
        default: "\(field.storage)"
        }
      #expect(type == expectedType, "\(label)")
    }
    #expect(end == size)
  }
}
