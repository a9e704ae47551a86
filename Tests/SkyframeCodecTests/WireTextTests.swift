import Testing

@testable import SkyframeCodec

/// Text that the wire cannot carry as it is: found by the fuzz targets (Tests/Fuzz).
struct WireTextTests {
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

  /// A name ends at its first 0 byte on the wire, so a U+0000 ends it when it is built too: a
  /// frame built with such a name decodes to the frame it was built as.
  @Test func aNameEndsAtUPlus0000() throws {
    #expect(FrameName(truncating: "Ber\u{0}lin").string == "Ber")
    #expect(FrameName(truncating: "\u{0}Berlin").isEmpty)
    #expect(PlaceName(truncating: "a\u{0}b").string == "a")
    var frame = WeatherFrame()
    frame.name = FrameName(truncating: "Ber\u{0}lin")
    #expect(try WeatherFrame(decoding: frame.encoded()) == frame)
    let request = DeviceRequest(
      id: 7,
      body: .locations(LocationList([.place(PlaceName(truncating: "a\u{0}b"), country: nil)])))
    #expect(try DeviceRequest(parsing: BinaryRequest.encoded(request)) == request)
  }

  /// `BinaryRequest.encode` writes only names its own parser accepts, and refuses the others with
  /// the parser's error (before, it wrote them and the gateway refused the request).
  @Test func encodeRefusesWhatParsingRefusesWithTheSameError() throws {
    for (name, hex) in [
      (
        " Berlin",
        "5351010207000000000000000000000000000000204265726c696e0000000000000000000000000000000000000000000000000000000000000000007597f168"
      ),
      (
        "Berlin\t",
        "53510102070000000000000000000000000000004265726c696e09000000000000000000000000000000000000000000000000000000000000000000fc5f8bca"
      ),
      (
        "Ber\nlin",
        "53510102070000000000000000000000000000004265720a6c696e00000000000000000000000000000000000000000000000000000000000000000002efe365"
      ),
      (
        "Z\u{85}rich",
        "53510102070000000000000000000000000000005ac28572696368000000000000000000000000000000000000000000000000000000000000000000ac06312c"
      ),
    ] {
      var parsed: RequestError?
      do { _ = try DeviceRequest(parsing: Self.bytes(hex)) } catch { parsed = error }
      let request = DeviceRequest(
        id: 7, body: .locations(LocationList([.place(PlaceName(truncating: name), country: nil)])))
      var encoded: RequestError?
      do { _ = try BinaryRequest.encoded(request) } catch { encoded = error }
      #expect(parsed != nil, "\(name.debugDescription) parses")
      #expect(encoded == parsed, "\(name.debugDescription)")
    }
    let fine = DeviceRequest(
      id: 7, body: .locations(LocationList([.place(PlaceName(truncating: "Zürich"), country: nil)]))
    )
    #expect(try DeviceRequest(parsing: BinaryRequest.encoded(fine)) == fine)
  }
}
