// Fuzz target request_binary: the 64-byte binary request, parsed and encoded.
// Seeds: requests-binary
// Max length: 160
//
// 1. The input as it is, and its first 64 bytes sealed ("SQ", version 1, the CRC made right;
//    kind, id, coordinates, country and name as the fuzzer wrote them), are parsed and compared
//    with the reference decoder written from schemas/request-v1.md §3; the echoed id is the
//    spec's. A request that parses re-encodes (BinaryRequest.encode) to the input made canonical
//    (reserved bytes and the other kinds' fields 0, the country in capitals, the name's bytes
//    after its first 0 zeroed, the CRC recomputed), which parses to the same request; one whose
//    place the text form can carry parses the same from text too.
// 2. A DeviceRequest built from the bytes after the first 64 through the public API:
//    BinaryRequest.encode refuses it exactly when the binary form cannot carry it (several
//    places, coordinates out of range, an empty name) or the gateway would refuse it (the
//    reference decoder's error on the request it would write), writes only 64 bytes of a larger
//    buffer, refuses a smaller one; the bytes parse back to the same request. A PlaceName never
//    holds U+0000 (the wire's name ends at its first 0, and so does PlaceName(truncating:)).

import SkyframeCodec

@_cdecl("LLVMFuzzerTestOneInput")
public func requestBinaryFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  fuzzEntry(data, size) { input in
    let raw = [UInt8](input)
    checkBinary(raw, "input")
    var sealed = [UInt8](repeating: 0, count: 64)
    for index in 0..<min(raw.count, 64) { sealed[index] = raw[index] }
    sealed[0] = 0x53
    sealed[1] = 0x51
    sealed[2] = 1
    sealed.put32(referenceCRC32(sealed[0..<60]), at: 60)
    checkBinary(sealed, "sealed input")
    var reader = ByteReader(input, from: 64)
    buildAndEncodeRequest(&reader)
  }
}

func checkBinary(_ bytes: [UInt8], _ label: String) {
  let echoed = bytes.withUnsafeBytes { DeviceRequest.requestID(in: $0) }
  checkEqual(echoed, referenceEcho(bytes), "\(label): the id echoed")
  guard let request = checkParse(bytes, maximum: 7, label), looksBinary(bytes) else { return }
  checkEqual(echoed, request.id, "\(label): the echoed id of a parsed request")

  let encoded: [UInt8]
  do { encoded = try BinaryRequest.encoded(request) } catch {
    fail("\(label): a parsed binary request does not encode: \(error)")
  }
  checkEqual(encoded, canonicalBinary(bytes), "\(label): re-encoded bytes")
  switch parse(encoded, maximum: 7) {
  case .success(let again): check(again == request, "\(label): re-encoded, parses to \(again)")
  case .failure(let error): fail("\(label): re-encoded, it is refused: \(error)")
  }

  // The same request as text, when the text form can carry its place.
  guard let text = textForm(of: request) else { return }
  switch parse(text, maximum: 7) {
  case .success(let again):
    // The text form written here carries the id and the places (profile and checks are options
    // textForm does not write).
    check(
      again.id == request.id && again.body == request.body,
      "\(label): as text \(hexString(text)) it parses to \(again)")
    note("\(label): also parsed as text")
  case .failure(let error): fail("\(label): as text \(hexString(text)) it is refused: \(error)")
  }
}

/// What BinaryRequest.encode writes for the request `bytes` hold.
func canonicalBinary(_ bytes: [UInt8]) -> [UInt8] {
  var canonical = bytes
  // Byte 6 (profile) is kept; of byte 7 only bit 0, which keeps the check in 56-59.
  let hasCheck = bytes[7] & 1 != 0
  let end = hasCheck ? 56 : 60
  canonical[7] = hasCheck ? 1 : 0
  for index in [18, 19] { canonical[index] = 0 }
  switch bytes[3] {
  case 1:
    for index in 16..<end { canonical[index] = 0 }
  case 2:
    for index in 8..<16 { canonical[index] = 0 }
    canonical[16] &= 0xDF
    canonical[17] &= 0xDF
    let length = bytes[20..<end].prefix { $0 != 0 }.count
    for index in (20 + length)..<end { canonical[index] = 0 }
  default:
    for index in 8..<end { canonical[index] = 0 }
  }
  canonical.put32(referenceCRC32(canonical[0..<60]), at: 60)
  return canonical
}

/// "#id place" when the text form can say it: a name must not start like a number, hold ";" or
/// ",", or be "refresh" without a country.
func textForm(of request: DeviceRequest) -> [UInt8]? {
  var text = Array("#\(request.id) ".utf8)
  guard case .locations(let list) = request.body else { return text + Array("refresh".utf8) }
  switch list[0] {
  case .coordinates(let point):
    for (index, value) in [point.latitude, point.longitude].enumerated() {
      if index > 0 { text.append(0x2C) }
      let magnitude = abs(Int(value))
      let fraction = String(magnitude % 100_000)
      text += Array(
        ((value < 0 ? "-" : "") + "\(magnitude / 100_000)."
          + String(repeating: "0", count: 5 - fraction.count) + fraction).utf8)
    }
  case .place(let name, let country):
    let bytes = placeNameBytes(name)
    let lead = bytes[0]
    guard !(isDigit(lead) || lead == 0x2B || lead == 0x2D || lead == 0x2E || lead == 0x7E),
      !bytes.contains(0x3B), !bytes.contains(0x2C),
      country != nil || String(decoding: bytes, as: UTF8.self).lowercased() != "refresh"
    else { return nil }
    text += bytes
    if let country { text += [0x2C, country.first, country.second] }
  }
  return text
}

func buildAndEncodeRequest(_ reader: inout ByteReader) {
  let id = reader.u16()
  var expectedError: RequestError?
  var places: [LocationQuery] = []
  let body: DeviceRequest.Body
  if reader.u8() % 4 == 0 {
    body = .refresh
  } else {
    let count = reader.u8() % 8 == 0 ? Int(reader.u8() % 17) : 1
    for _ in 0..<count {
      if reader.bool() {
        let latitude: Int32 = reader.value(-9_000_000...9_000_000)
        let longitude: Int32 = reader.value(-18_000_000...18_000_000)
        places.append(.coordinates(Coordinates(latitude: latitude, longitude: longitude)))
      } else {
        let name = PlaceName(truncating: String(decoding: reader.sizedBytes(48), as: UTF8.self))
        places.append(.place(name, country: CountryCode(reader.u8(), reader.u8())))
      }
    }
    body = .locations(LocationList(places))
    if places.count != 1 {
      expectedError = .tooManyLocations(count: places.count, maximum: 1)
    } else if case .coordinates(let point) = places[0] {
      if !(-9_000_000...9_000_000).contains(point.latitude) {
        expectedError = .latitudeOutOfRange(slot: 0)
      } else if !(-18_000_000...18_000_000).contains(point.longitude) {
        expectedError = .longitudeOutOfRange(slot: 0)
      }
      check(point.isValid == (expectedError == nil), "Coordinates.isValid of \(point)")
    } else if case .place(let name, let country) = places[0] {
      let bytes = placeNameBytes(name)
      check(!bytes.contains(0), "PlaceName(truncating:) keeps a U+0000")
      if name.isEmpty {
        expectedError = .emptyLocation(slot: 0)
      } else {
        // encode writes only what the gateway accepts: the reference's verdict on the request
        // it would write is the error it must throw.
        var wire = [UInt8](repeating: 0, count: 64)
        wire[0] = 0x53
        wire[1] = 0x51
        wire[2] = 1
        wire[3] = 2
        wire[4] = UInt8(id & 0xFF)
        wire[5] = UInt8(id >> 8)
        wire[16] = country?.first ?? 0
        wire[17] = country?.second ?? 0
        wire.replaceSubrange(20..<20 + bytes.count, with: bytes)
        let crc = referenceCRC32(wire[0..<60])
        for index in 0..<4 { wire[60 + index] = UInt8((crc >> (8 * UInt32(index))) & 0xFF) }
        if case .failure(let error) = referenceBinary(wire) { expectedError = error }
      }
    }
  }
  let request = DeviceRequest(id: id, body: body)

  let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 + 9, alignment: 1)
  defer { buffer.deallocate() }
  buffer.initializeMemory(as: UInt8.self, repeating: 0xEE)
  let odd = UnsafeMutableRawBufferPointer(rebasing: buffer[1...])
  do {
    try BinaryRequest.encode(request, into: odd)
  } catch {
    check(expectedError != nil, "BinaryRequest.encode of \(request) throws \(error)")
    checkEqual(error, expectedError!, "BinaryRequest.encode's error")
    note("built request: encode refuses, \(caseName(error))")
    return
  }
  check(expectedError == nil, "BinaryRequest.encode accepts \(request), expected \(expectedError!)")
  check(
    buffer[0] == 0xEE && odd[64...].allSatisfy { $0 == 0xEE },
    "BinaryRequest.encode writes outside its 64 bytes")
  let encoded = [UInt8](odd[0..<64])
  do {
    let small = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<63])
    try BinaryRequest.encode(request, into: small)
    fail("BinaryRequest.encode into 63 bytes succeeds")
  } catch {
    checkEqual(error, .wrongBinaryLength(count: 63), "BinaryRequest.encode into 63 bytes")
  }

  let expected = request
  let reference = referenceBinary(encoded)
  switch parse(encoded, maximum: 7) {
  case .success(let parsed):
    check(parsed == expected, "\(request) encoded as \(hexString(encoded)) parses to \(parsed)")
    note("built request: round trip")
  case .failure(let error):
    // encode refuses what parsing would refuse, so what it wrote must parse.
    fail(
      "\(request) encoded as \(hexString(encoded)) is refused: \(error) (reference: \(reference))")
  }
}
