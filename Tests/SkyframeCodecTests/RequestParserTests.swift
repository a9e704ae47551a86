import Testing

@testable import SkyframeCodec

@Suite struct RequestParserTests {
  func parse(_ text: String, maximum: Int = 7) throws(RequestError) -> DeviceRequest {
    try DeviceRequest(parsing: Array(text.utf8), maximumLocations: maximum)
  }

  func places(_ request: DeviceRequest) -> [LocationQuery] {
    guard case .locations(let list) = request.body else { return [] }
    return Array(list)
  }

  @Test func coordinatesBecomeHundredThousandthsOfADegree() throws {
    let request = try parse("52.52,13.41")
    #expect(
      places(request) == [.coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000))])
    #expect(request.id == 0)
    #expect(
      places(try parse(" -33.8688 , 151.2093 "))
        == [.coordinates(Coordinates(latitude: -3_386_880, longitude: 15_120_930))])
    #expect(
      places(try parse("+0.000005,.5")) == [
        .coordinates(Coordinates(latitude: 1, longitude: 50_000))
      ])
  }

  @Test func namesKeepTheirSpellingAndCountriesAreUppercased() throws {
    guard case .place(let name, let country) = places(try parse("Frankfurt am Main,de")).first
    else {
      Issue.record("not a place")
      return
    }
    #expect(name.string == "Frankfurt am Main")
    #expect(country?.string == "DE")
    guard case .place(let kyiv, nil) = places(try parse("Київ")).first else {
      Issue.record("not a place without country")
      return
    }
    #expect(kyiv.string == "Київ")
  }

  @Test func severalPlacesKeepTheirOrder() throws {
    let request = try parse("#9 Berlin;Paris,FR;48.85,2.35")
    #expect(request.id == 9)
    let list = places(request)
    #expect(list.count == 3)
    #expect(list[2] == .coordinates(Coordinates(latitude: 4_885_000, longitude: 235_000)))
  }

  @Test func refreshInAnyCase() throws {
    #expect(try parse("refresh").body == .refresh)
    #expect(try parse("#65535 Refresh\n") == DeviceRequest(id: 65_535, body: .refresh))
  }

  @Test func textErrorsSayWhatIsWrong() {
    let cases: [(String, RequestError)] = [
      ("", RequestError.empty),
      ("   ", .empty),
      ("#12 ", .empty),
      ("#", .badRequestID(offset: 0)),
      ("#12Berlin", .badRequestID(offset: 0)),
      ("#123456 Berlin", .badRequestID(offset: 0)),
      ("90.00001,0", .latitudeOutOfRange(slot: 0)),
      ("0,-180.00001", .longitudeOutOfRange(slot: 0)),
      ("52.52", .badNumber(slot: 0)),
      ("52.52,", .badNumber(slot: 0)),
      ("52,13,4", .badNumber(slot: 0)),
      ("1e3,5", .badNumber(slot: 0)),
      ("-,5", .badNumber(slot: 0)),
      ("--5,5", .badNumber(slot: 0)),
      ("1000,5", .badNumber(slot: 0)),
      ("0x10,5", .badNumber(slot: 0)),
      ("Oslo;inf,inf", .badCountryCode(slot: 1)),
      ("Berlin,Germany", .badCountryCode(slot: 0)),
      ("Berlin,", .badCountryCode(slot: 0)),
      (",DE", .emptyLocation(slot: 0)),
      ("Berlin;", .emptyLocation(slot: 1)),
      (";Berlin", .emptyLocation(slot: 0)),
      ("Ber\tlin", .controlCharacter(offset: 3)),
      ("Ber\u{7F}lin", .controlCharacter(offset: 3)),
      ("Ber\u{85}lin", .controlCharacter(offset: 3)),
      // One NUL at the very end is a C string's terminator, not part of the request.
      ("\u{0}", .empty),
      ("\u{0}\u{0}", .controlCharacter(offset: 0)),
      ("Ber\u{0}lin\u{0}", .controlCharacter(offset: 3)),
      ("A;B;C;D;E;F;G;H", .tooManyLocations(count: 8, maximum: 7)),
    ]
    for (text, error) in cases {
      #expect(throws: error, "\(text.debugDescription)") { try parse(text) }
    }
  }

  @Test func theLocationLimitIsConfigurableUpToSixteen() throws {
    #expect(throws: RequestError.tooManyLocations(count: 3, maximum: 2)) {
      try parse("A;B;C", maximum: 2)
    }
    let sixteen = Array(repeating: "X", count: 16).joined(separator: ";")
    #expect(places(try parse(sixteen, maximum: 100)).count == 16)
    #expect(throws: RequestError.tooManyLocations(count: 17, maximum: 16)) {
      try parse(sixteen + ";Y", maximum: 100)
    }
  }

  @Test func invalidUTF8IsNamedByItsOffset() {
    for (bytes, offset) in [
      ([0x42, 0xFF], 1), ([0xC0, 0x80], 0), ([0xE2, 0x82], 2), ([0xED, 0xA0, 0x80], 1),
      ([0xF4, 0x90, 0x80, 0x80], 1), ([0x41, 0x80], 1),
    ] as [([UInt8], Int)] {
      #expect(throws: RequestError.invalidUTF8(offset: offset)) {
        try DeviceRequest(parsing: bytes)
      }
    }
  }

  @Test func lengthIsCappedBeforeAnythingElse() {
    let long = [UInt8](repeating: UInt8(ascii: "a"), count: 513)
    #expect(throws: RequestError.tooLong(count: 513)) { try DeviceRequest(parsing: long) }
    let name = String(repeating: "ä", count: 21)
    #expect(throws: RequestError.nameTooLong(slot: 0, bytes: 42)) { try parse(name) }
  }

  @Test func binaryRequestsRoundTrip() throws {
    let requests = [
      DeviceRequest(id: 1, body: .refresh),
      DeviceRequest(
        id: 65_535,
        body: .locations(
          LocationList([.coordinates(Coordinates(latitude: -9_000_000, longitude: 18_000_000))]))),
      DeviceRequest(
        id: 0,
        body: .locations(
          LocationList([
            .place(PlaceName(truncating: "Ciudad de México"), country: CountryCode("MX"))
          ]))),
    ]
    for request in requests {
      let bytes = try BinaryRequest.encoded(request)
      #expect(bytes.count == 64)
      #expect(try DeviceRequest(parsing: bytes) == request)
    }
  }

  @Test func binaryErrors() throws {
    let good = try BinaryRequest.encoded(DeviceRequest(id: 5, body: .refresh))
    #expect(throws: RequestError.wrongBinaryLength(count: 63)) {
      try DeviceRequest(parsing: Array(good.dropLast()))
    }
    var version = good
    version[2] = 2
    #expect(throws: RequestError.unsupportedVersion(2)) { try DeviceRequest(parsing: version) }
    var kind = good
    kind[3] = 0
    kind.withUnsafeMutableBytes { raw in
      let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<60]))
      raw.storeBytes(of: crc.littleEndian, toByteOffset: 60, as: UInt32.self)
    }
    #expect(throws: RequestError.unknownKind(0)) { try DeviceRequest(parsing: kind) }
    // Several places do not fit the binary form.
    let two = DeviceRequest(
      body: .locations(
        LocationList([
          .coordinates(Coordinates(latitude: 0, longitude: 0)),
          .coordinates(Coordinates(latitude: 1, longitude: 1)),
        ])))
    #expect(throws: RequestError.tooManyLocations(count: 2, maximum: 1)) {
      try BinaryRequest.encoded(two)
    }
  }

  @Test func tooManyLocationsHasItsOwnFrameStatus() {
    #expect(RequestError.tooManyLocations(count: 9, maximum: 7).frameStatus == .tooManyLocations)
    #expect(RequestError.badNumber(slot: 0).frameStatus == .badRequest)
  }

  @Test func randomBytesNeverTrapTheParser() async {
    var random = SeededRandom(seed: 0x7E57)
    let alphabet =
      Array("0123456789.,;-+# abcRrefshSQ\u{1}\n".utf8) + [0xC3, 0xA4, 0xFF, 0xE2, 0x80]
    var parsed = 0
    for index in 0..<100_000 {
      if index % 500 == 0 { await Task.yield() }
      let length = Int.random(in: 0...80, using: &random)
      var bytes: [UInt8]
      if index % 2 == 0 {
        bytes = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
      } else {
        bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
      }
      if index % 10 == 0 {
        // Binary-looking input with a valid CRC, so kind, coordinates and name are reached.
        bytes = [0x53, 0x51, 1] + (0..<61).map { _ in UInt8.random(in: 0...255, using: &random) }
        bytes[3] = UInt8.random(in: 0...4, using: &random)
        bytes.withUnsafeMutableBytes { raw in
          let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<60]))
          raw.storeBytes(of: crc.littleEndian, toByteOffset: 60, as: UInt32.self)
        }
      }
      if (try? DeviceRequest(
        parsing: bytes, maximumLocations: Int.random(in: -1...20, using: &random))) != nil
      {
        parsed += 1
      }
    }
    #expect(parsed > 0)
  }
}

@Suite struct RequestIDRecoveryTests {
  func id(_ bytes: [UInt8]) -> UInt16 { bytes.withUnsafeBytes { DeviceRequest.requestID(in: $0) } }

  @Test func theIdOfARequestThatFailsIsStillFound() throws {
    #expect(id(Array("#9 A;B;C;D;E;F;G;H".utf8)) == 9)
    #expect(id(Array("  #77 91,0".utf8)) == 77)
    #expect(id(Array("Berlin".utf8)) == 0)
    #expect(id(Array("#99999 x".utf8)) == 0)
    var binary = try BinaryRequest.encoded(DeviceRequest(id: 513, body: .refresh))
    binary[10] ^= 1
    #expect(id(binary) == 513)
    #expect(id([0x53, 0x51, 0x01]) == 0)
  }

  /// request-v1 says the id is echoed: however much whitespace comes first.
  @Test func theIdIsFoundAfterAnyLeadingWhitespace() {
    for count in [16, 17, 40, 200] {
      #expect(
        id(Array((String(repeating: " \t", count: count) + "#4242 A;B;C;D;E;F;G;H").utf8)) == 4242)
    }
  }

  @Test func textThatStartsWithSQAndANewlineIsText() {
    #expect(throws: RequestError.controlCharacter(offset: 2)) {
      try DeviceRequest(parsing: Array("SQ\nx".utf8))
    }
    #expect(throws: RequestError.wrongBinaryLength(count: 3)) {
      try DeviceRequest(parsing: [0x53, 0x51, 0x01])
    }
  }
}
