// Requests as schemas/request-v1.md defines them, written from the spec and independently of the
// codec: the oracle for DeviceRequest(parsing:) and DeviceRequest.requestID(in:).
//
// Where the spec leaves a detail open this follows the code, and says so:
//   - UTF-8 and control characters are checked in one pass, the first offending byte decides
//     ("\u{1}\u{FF}" is a control character at 0, not invalid UTF-8 at 1);
//   - a UTF-8 sequence cut short by the end of the text (or, in a binary name, by its first 0
//     byte or the field's end) is invalidUTF8 at the offset just past the text;
//   - a binary name that starts or ends with whitespace is controlCharacter at the name's first
//     byte (20) when it starts with it, else at its first trailing whitespace byte.

import SkyframeCodec

/// A parsed request in plain values, comparable with the reference's.
struct PlainRequest: Equatable, CustomStringConvertible {
  enum Place: Equatable {
    case coordinates(Int, Int)
    case name([UInt8], country: [UInt8]?)
  }
  var id: Int
  /// nil: refresh.
  var places: [Place]?

  init(id: Int, places: [Place]?) {
    self.id = id
    self.places = places
  }

  init(_ request: DeviceRequest) {
    id = Int(request.id)
    switch request.body {
    case .refresh: places = nil
    case .locations(let list):
      places = list.map { query in
        switch query {
        case .coordinates(let point):
          .coordinates(Int(point.latitude), Int(point.longitude))
        case .place(let name, let country):
          .name(placeNameBytes(name), country: country.map { [$0.first, $0.second] })
        }
      }
    }
  }

  var description: String {
    guard let places else { return "#\(id) refresh" }
    let parts = places.map { place in
      switch place {
      case .coordinates(let latitude, let longitude): "(\(latitude), \(longitude))"
      case .name(let name, let country):
        "\"\(String(decoding: name, as: UTF8.self))\" [\(hexString(name))]"
          + (country.map { ", " + String(decoding: $0, as: UTF8.self) } ?? "")
      }
    }
    return "#\(id) " + parts.joined(separator: "; ")
  }
}

let space: UInt8 = 0x20

func isWhitespace(_ byte: UInt8) -> Bool {
  byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
}
func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

/// `start..<end` without the whitespace (SP, HTAB, CR, LF) at either end.
func trimWhitespace(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Range<Int> {
  var start = start
  var end = end
  while start < end, isWhitespace(bytes[start]) { start += 1 }
  while end > start, isWhitespace(bytes[end - 1]) { end -= 1 }
  return start..<end
}

/// "SQ" and a control byte other than HTAB, LF, CR (request-v1.md §1).
func looksBinary(_ bytes: [UInt8]) -> Bool {
  bytes.count >= 3 && bytes[0] == 0x53 && bytes[1] == 0x51 && bytes[2] < 0x20
    && !isWhitespace(bytes[2])
}

/// Well-formed UTF-8 (Unicode table 3-7) without control characters (C0, DEL, C1); whitespace is
/// allowed outside `edges`. Offsets count from the start of `bytes`.
func referenceTextError(_ bytes: [UInt8], edges: Range<Int>) -> RequestError? {
  var index = 0
  while index < bytes.count {
    let lead = bytes[index]
    if lead < 0x80 {
      if lead == 0x7F || (lead < 0x20 && (edges.contains(index) || !isWhitespace(lead))) {
        return .controlCharacter(offset: index)
      }
      index += 1
      continue
    }
    // (length, allowed range of the second byte)
    let shape: (Int, ClosedRange<UInt8>)
    switch lead {
    case 0xC2...0xDF: shape = (2, 0x80...0xBF)
    case 0xE0: shape = (3, 0xA0...0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: shape = (3, 0x80...0xBF)
    case 0xED: shape = (3, 0x80...0x9F)
    case 0xF0: shape = (4, 0x90...0xBF)
    case 0xF1...0xF3: shape = (4, 0x80...0xBF)
    case 0xF4: shape = (4, 0x80...0x8F)
    default: return .invalidUTF8(offset: index)
    }
    var scalar = UInt32(lead) & (shape.0 == 2 ? 0x1F : shape.0 == 3 ? 0x0F : 0x07)
    for continuation in 1..<shape.0 {
      let position = index + continuation
      guard position < bytes.count else { return .invalidUTF8(offset: position) }
      let allowed = continuation == 1 ? shape.1 : 0x80...0xBF
      guard allowed.contains(bytes[position]) else { return .invalidUTF8(offset: position) }
      scalar = scalar << 6 | UInt32(bytes[position] & 0x3F)
    }
    if (0x80...0x9F).contains(scalar) { return .controlCharacter(offset: index) }
    index += shape.0
  }
  return nil
}

/// A number of the text form in 1/100 000 (request-v1.md §2.1, §2.2): an optional sign, 1-3
/// integer digits with an optional fraction or a fraction alone, at most 24 bytes, rounded half
/// away from zero at the 6th decimal.
func referenceNumber(_ bytes: ArraySlice<UInt8>) -> Int? {
  guard !bytes.isEmpty, bytes.count <= 24 else { return nil }
  var rest = bytes[...]
  var negative = false
  if let sign = rest.first, sign == 0x2B || sign == 0x2D {
    negative = sign == 0x2D
    rest = rest.dropFirst()
  }
  let whole = rest.prefix(while: isDigit)
  rest = rest.dropFirst(whole.count)
  var fraction = ArraySlice<UInt8>()
  if rest.first == 0x2E {
    rest = rest.dropFirst()
    fraction = rest.prefix(while: isDigit)
    rest = rest.dropFirst(fraction.count)
  }
  guard rest.isEmpty, whole.count <= 3, whole.count + fraction.count > 0 else { return nil }
  var value = 0
  for digit in whole { value = value * 10 + Int(digit - 0x30) }
  for place in 0..<5 {
    let digit = place < fraction.count ? Int(fraction[fraction.startIndex + place] - 0x30) : 0
    value = value * 10 + digit
  }
  if fraction.count > 5, fraction[fraction.startIndex + 5] >= 0x35 { value += 1 }
  return negative ? -value : value
}

/// The text form, request-v1.md §2, with the order of checks of §2.3.
func referenceText(_ bytes: [UInt8], maximum: Int) -> Result<PlainRequest, RequestError> {
  guard bytes.count <= 512 else { return .failure(.tooLong(count: bytes.count)) }
  // §2.2: one NUL as the very last byte (a C string's terminator) is not part of the request.
  let bytes = bytes.last == 0 ? Array(bytes.dropLast()) : bytes
  let payload = trimWhitespace(bytes, 0, bytes.count)
  if let error = referenceTextError(bytes, edges: payload) { return .failure(error) }
  guard !payload.isEmpty else { return .failure(.empty) }

  var body = payload
  var id = 0
  if bytes[payload.lowerBound] == 0x23 {
    let hash = payload.lowerBound
    var end = hash + 1
    while end < bytes.count, end - hash <= 5, isDigit(bytes[end]) {
      id = id * 10 + Int(bytes[end] - 0x30)
      end += 1
    }
    guard end > hash + 1, id <= 65535, end < bytes.count, bytes[end] == space else {
      return .failure(.badRequestID(offset: hash))
    }
    body = trimWhitespace(bytes, end, payload.upperBound)
    guard !body.isEmpty else { return .failure(.empty) }
  }
  // Options, request-v1.md §2.4: `~` words ended by a space.
  var checkOption = 0..<0
  var checkCount = 0
  var profileGiven = false
  while bytes[body.lowerBound] == 0x7E {
    var end = body.lowerBound
    while end < body.upperBound, bytes[end] != space { end += 1 }
    let word = Array(bytes[body.lowerBound..<end])
    let text = OptionText(truncating: String(decoding: word, as: UTF8.self))
    // Bytes, not Strings: a String compares characters, and "=" followed by a combining mark is
    // one character that is not "=".
    let lower = word.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    if ["~standard", "~large", "~tiny"].contains(where: { lower == Array($0.utf8) }) {
      if profileGiven { return .failure(.badOption(offset: body.lowerBound, text: text)) }
      profileGiven = true
    } else if lower.starts(with: "~check=".utf8), lower.count > 7 {
      if checkCount > 0 { return .failure(.badOption(offset: body.lowerBound, text: text)) }
      let items = lower.dropFirst(7).split(separator: 0x2C, omittingEmptySubsequences: false)
      for item in items {
        let hex = item.allSatisfy { Array("0123456789abcdef".utf8).contains($0) }
        guard Array(item) == [0x2D] || (item.count == 8 && hex) else {
          return .failure(.badOption(offset: body.lowerBound, text: text))
        }
      }
      guard items.count <= 16 else {
        return .failure(.badOption(offset: body.lowerBound, text: text))
      }
      checkCount = items.count
      checkOption = body.lowerBound..<end
    } else {
      return .failure(.unknownOption(offset: body.lowerBound, text: text))
    }
    body = trimWhitespace(bytes, end, body.upperBound)
    guard !body.isEmpty else { return .failure(.empty) }
  }
  if body.count == 7, zip(bytes[body], "refresh".utf8).allSatisfy({ $0 | 0x20 == $1 }) {
    return .success(PlainRequest(id: id, places: nil))
  }

  var parts: [Range<Int>] = []
  var start = body.lowerBound
  for index in body where bytes[index] == 0x3B {
    parts.append(start..<index)
    start = index + 1
  }
  parts.append(start..<body.upperBound)
  let maximum = min(max(maximum, 1), 16)
  guard parts.count <= maximum else {
    return .failure(.tooManyLocations(count: parts.count, maximum: maximum))
  }

  var places: [PlainRequest.Place] = []
  for (slot, part) in parts.enumerated() {
    let span = trimWhitespace(bytes, part.lowerBound, part.upperBound)
    guard !span.isEmpty else { return .failure(.emptyLocation(slot: slot)) }
    let comma = span.first { bytes[$0] == 0x2C }
    let lead = bytes[span.lowerBound]
    if isDigit(lead) || lead == 0x2B || lead == 0x2D || lead == 0x2E {
      guard let comma,
        let latitude = referenceNumber(bytes[trimWhitespace(bytes, span.lowerBound, comma)]),
        let longitude = referenceNumber(bytes[trimWhitespace(bytes, comma + 1, span.upperBound)])
      else { return .failure(.badNumber(slot: slot)) }
      guard abs(latitude) <= 9_000_000 else { return .failure(.latitudeOutOfRange(slot: slot)) }
      guard abs(longitude) <= 18_000_000 else {
        return .failure(.longitudeOutOfRange(slot: slot))
      }
      places.append(.coordinates(latitude, longitude))
      continue
    }
    let name = trimWhitespace(bytes, span.lowerBound, comma ?? span.upperBound)
    guard !name.isEmpty else { return .failure(.emptyLocation(slot: slot)) }
    guard name.count <= 40 else { return .failure(.nameTooLong(slot: slot, bytes: name.count)) }
    var country: [UInt8]?
    if let comma {
      let code = trimWhitespace(bytes, comma + 1, span.upperBound)
      guard code.count == 2, bytes[code].allSatisfy(isASCIILetter) else {
        return .failure(.badCountryCode(slot: slot))
      }
      country = bytes[code].map { $0 & 0xDF }
    }
    places.append(.name(Array(bytes[name]), country: country))
  }
  if checkCount > places.count {
    let option = Array(bytes[checkOption])
    return .failure(
      .badOption(
        offset: checkOption.lowerBound,
        text: OptionText(truncating: String(decoding: option, as: UTF8.self))))
  }
  return .success(PlainRequest(id: id, places: places))
}

/// The binary form, request-v1.md §3.
func referenceBinary(_ bytes: [UInt8]) -> Result<PlainRequest, RequestError> {
  guard bytes.count == 64 else { return .failure(.wrongBinaryLength(count: bytes.count)) }
  guard bytes[2] == 1 else { return .failure(.unsupportedVersion(bytes[2])) }
  let stored = bytes.u32(60)
  let computed = referenceCRC32(bytes[0..<60])
  guard stored == computed else {
    return .failure(.checksumMismatch(stored: stored, computed: computed))
  }
  let id = Int(bytes.u16(4))
  guard (1...3).contains(bytes[3]) else { return .failure(.unknownKind(bytes[3])) }
  guard bytes[6] <= 2 else { return .failure(.unknownProfile(bytes[6])) }
  // With a content check (byte 7 bit 0) in bytes 56-59, the name ends at 56.
  let nameEnd = bytes[7] & 1 != 0 ? 56 : 60
  switch bytes[3] {
  case 1:
    let latitude = Int(bytes.i32(8))
    let longitude = Int(bytes.i32(12))
    guard abs(latitude) <= 9_000_000 else { return .failure(.latitudeOutOfRange(slot: 0)) }
    guard abs(longitude) <= 18_000_000 else { return .failure(.longitudeOutOfRange(slot: 0)) }
    return .success(PlainRequest(id: id, places: [.coordinates(latitude, longitude)]))
  case 2:
    let name = Array(bytes[20..<nameEnd].prefix { $0 != 0 })
    guard !name.isEmpty else { return .failure(.emptyLocation(slot: 0)) }
    let text = trimWhitespace(name, 0, name.count)
    switch referenceTextError(name, edges: text) {
    case .invalidUTF8(let offset): return .failure(.invalidUTF8(offset: 20 + offset))
    case .controlCharacter(let offset): return .failure(.controlCharacter(offset: 20 + offset))
    default: break
    }
    guard text == 0..<name.count else {
      return .failure(.controlCharacter(offset: 20 + (text.lowerBound > 0 ? 0 : text.upperBound)))
    }
    var country: [UInt8]?
    if bytes[16] != 0 || bytes[17] != 0 {
      guard isASCIILetter(bytes[16]), isASCIILetter(bytes[17]) else {
        return .failure(.badCountryCode(slot: 0))
      }
      country = [bytes[16] & 0xDF, bytes[17] & 0xDF]
    }
    return .success(PlainRequest(id: id, places: [.name(name, country: country)]))
  case 3:
    return .success(PlainRequest(id: id, places: nil))
  default:
    return .failure(.unknownKind(bytes[3]))
  }
}

func referenceRequest(_ bytes: [UInt8], maximum: Int) -> Result<PlainRequest, RequestError> {
  looksBinary(bytes) ? referenceBinary(bytes) : referenceText(bytes, maximum: maximum)
}

/// The request id an error frame echoes (request-v1.md §4: "as far as it could be read, else
/// 0"): the binary form's id field when it has one, or a text's leading "#id " (after any
/// whitespace), whatever follows.
func referenceEcho(_ bytes: [UInt8]) -> UInt16 {
  if looksBinary(bytes) { return bytes.count >= 6 ? bytes.u16(4) : 0 }
  guard let hash = bytes.firstIndex(where: { !isWhitespace($0) }), bytes[hash] == 0x23 else {
    return 0
  }
  var end = hash + 1
  var id = 0
  while end < bytes.count, end - hash <= 5, isDigit(bytes[end]) {
    id = id * 10 + Int(bytes[end] - 0x30)
    end += 1
  }
  guard end > hash + 1, id <= 65535, end < bytes.count, bytes[end] == space else { return 0 }
  return UInt16(id)
}

/// DeviceRequest(parsing:) of a buffer, as a Result; the array initializer must agree.
func parse(_ bytes: [UInt8], maximum: Int) -> Result<DeviceRequest, RequestError> {
  let fromBuffer: Result<DeviceRequest, RequestError> = bytes.withUnsafeBytes { buffer in
    do throws(RequestError) {
      return .success(try DeviceRequest(parsing: buffer, maximumLocations: maximum))
    } catch { return .failure(error) }
  }
  let fromArray: Result<DeviceRequest, RequestError>
  do throws(RequestError) {
    fromArray = .success(try DeviceRequest(parsing: bytes, maximumLocations: maximum))
  } catch { fromArray = .failure(error) }
  checkEqual(fromArray, fromBuffer, "DeviceRequest(parsing:) of an array against of a buffer")
  return fromBuffer
}

/// Parses with the codec and compares with the reference: the same request or the same error.
@discardableResult
func checkParse(_ bytes: [UInt8], maximum: Int, _ label: String) -> DeviceRequest? {
  let expected = referenceRequest(bytes, maximum: maximum)
  switch (parse(bytes, maximum: maximum), expected) {
  case (.failure(let error), .failure(let reference)):
    checkEqual(error, reference, "\(label) (maximum \(maximum)): error")
    checkEqual(error.frameStatus, referenceStatus(reference), "\(label): the error's frame status")
    check(!error.description.isEmpty, "\(label): the error describes itself")
    note("\(label): refused, \(caseName(error))")
    return nil
  case (.failure(let error), .success(let reference)):
    fail("\(label) (maximum \(maximum)): refused with \(error), the spec reads \(reference)")
  case (.success(let parsed), .failure(let reference)):
    fail(
      "\(label) (maximum \(maximum)): parsed as \(PlainRequest(parsed)), the spec says \(reference)"
    )
  case (.success(let parsed), .success(let reference)):
    let plain = PlainRequest(parsed)
    checkEqual(plain, reference, "\(label) (maximum \(maximum)): request")
    note("\(label): parsed, \(plain.places.map { "\($0.count) places" } ?? "refresh")")
    return parsed
  }
}

func referenceStatus(_ error: RequestError) -> FrameStatus {
  if case .tooManyLocations = error { return .tooManyLocations }
  return .badRequest
}

func caseName(_ error: RequestError) -> String {
  switch error {
  case .empty: "empty"
  case .tooLong: "tooLong"
  case .invalidUTF8: "invalidUTF8"
  case .controlCharacter: "controlCharacter"
  case .badRequestID: "badRequestID"
  case .emptyLocation: "emptyLocation"
  case .badNumber: "badNumber"
  case .latitudeOutOfRange: "latitudeOutOfRange"
  case .longitudeOutOfRange: "longitudeOutOfRange"
  case .nameTooLong: "nameTooLong"
  case .badCountryCode: "badCountryCode"
  case .tooManyLocations: "tooManyLocations"
  case .wrongBinaryLength: "wrongBinaryLength"
  case .unsupportedVersion: "unsupportedVersion"
  case .checksumMismatch: "checksumMismatch"
  case .unknownKind: "unknownKind"
  case .unknownProfile: "unknownProfile"
  case .unknownOption: "unknownOption"
  case .badOption: "badOption"
  @unknown default: "other"
  }
}
