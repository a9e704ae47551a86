/// The text form of request v1:
///
///     request  = [ "#" id " " ] ( "refresh" / location *( ";" location ) )
///     location = latitude "," longitude / name [ "," country ]
///
/// One pass over at most 512 bytes, no allocation: places are stored inline.
enum TextRequestParser {
  /// Parses `bytes` into `request`, a refresh with id 0 when called (what it stays on an error
  /// is not to be used).
  static func parse(
    _ bytes: UnsafeRawBufferPointer, maximumLocations: Int, into request: inout DeviceRequest
  ) throws(RequestError) {
    guard bytes.count <= DeviceRequest.maximumTextLength else {
      throw .tooLong(count: bytes.count)
    }
    // A C string sent with its terminating NUL (`strlen + 1` bytes): one 0x00 at the very end is
    // not part of the request (request-v1.md §2.2). Anywhere else it is a control character.
    let bytes = bytes.last == 0 ? UnsafeRawBufferPointer(rebasing: bytes.dropLast()) : bytes
    try validateText(bytes)
    var span = trimmed(bytes, 0, bytes.count)
    guard span.start < span.end else { throw .empty }

    if bytes[span.start] == UInt8(ascii: "#") {
      let (id, next) = try requestID(bytes, from: span.start)
      request.id = id
      span = trimmed(bytes, next, span.end)
      guard span.start < span.end else { throw .empty }
    }
    var checkOption: Span = (0, 0)
    while bytes[span.start] == UInt8(ascii: "~") {
      var end = span.start
      while end < span.end, bytes[end] != UInt8(ascii: " ") { end += 1 }
      let checksBefore = request.checks.count
      try option(bytes, (span.start, end), into: &request)
      if request.checks.count != checksBefore { checkOption = (span.start, end) }
      span = trimmed(bytes, end, span.end)
      guard span.start < span.end else { throw .empty }
    }
    if isRefresh(bytes, span) { return }

    var separators = 0
    for index in span.start..<span.end where bytes[index] == UInt8(ascii: ";") { separators += 1 }
    guard separators < maximumLocations else {
      throw .tooManyLocations(count: separators + 1, maximum: maximumLocations)
    }

    var start = span.start
    var slot = 0
    while start <= span.end {
      var end = start
      while end < span.end, bytes[end] != UInt8(ascii: ";") { end += 1 }
      request.appendPlace(try location(bytes, trimmed(bytes, start, end), slot: slot))
      slot += 1
      start = end + 1
    }
    if request.checks.count > request.places.count {
      throw .badOption(offset: checkOption.start, text: optionText(bytes, checkOption))
    }
  }

  /// One `~` option (request-v1.md §2.4): a profile name or `check=` with 8 hex digits (or `-`)
  /// per place.
  static func option(
    _ bytes: UnsafeRawBufferPointer, _ span: Span, into request: inout DeviceRequest
  )
    throws(RequestError)
  {
    let text = optionText(bytes, span)
    for profile in FrameProfile.allCases where matches(bytes, span, profile.optionName) {
      guard request.profile == nil else { throw .badOption(offset: span.start, text: text) }
      request.profile = profile
      return
    }
    let prefix: StaticString = "~check="
    guard span.end - span.start > prefix.utf8CodeUnitCount,
      matches(bytes, (span.start, span.start + prefix.utf8CodeUnitCount), prefix)
    else { throw .unknownOption(offset: span.start, text: text) }
    guard request.checks.isEmpty else { throw .badOption(offset: span.start, text: text) }
    var index = span.start + prefix.utf8CodeUnitCount
    while true {
      var end = index
      while end < span.end, bytes[end] != UInt8(ascii: ",") { end += 1 }
      var check: UInt32? = nil
      if end - index == 1, bytes[index] == UInt8(ascii: "-") {
        check = nil
      } else {
        guard end - index == 8 else { throw .badOption(offset: span.start, text: text) }
        var value: UInt32 = 0
        for position in index..<end {
          guard let digit = hexValue(bytes[position]) else {
            throw .badOption(offset: span.start, text: text)
          }
          value = value << 4 | UInt32(digit)
        }
        check = value
      }
      guard request.checks.append(check) else { throw .badOption(offset: span.start, text: text) }
      guard end < span.end else { return }
      index = end + 1
    }
  }

  /// The option as the error frame's name shows it: its text cut after the last whole character
  /// that fits (the text was validated as UTF-8 before).
  static func optionText(_ bytes: UnsafeRawBufferPointer, _ span: Span) -> OptionText {
    OptionText(
      truncating: String(
        decoding: UnsafeRawBufferPointer(rebasing: bytes[span.start..<span.end]), as: UTF8.self))
  }

  /// Whether the bytes of `span` are `word`, ASCII letters in any case.
  static func matches(_ bytes: UnsafeRawBufferPointer, _ span: Span, _ word: StaticString) -> Bool {
    guard span.end - span.start == word.utf8CodeUnitCount else { return false }
    return word.withUTF8Buffer { expected in
      for offset in 0..<expected.count {
        let byte = bytes[span.start + offset]
        let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
        if folded != expected[offset] { return false }
      }
      return true
    }
  }

  static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x41 + 10
    case 0x61...0x66: byte - 0x61 + 10
    default: nil
    }
  }

  typealias Span = (start: Int, end: Int)

  /// Refuses invalid UTF-8 and control characters; leading and trailing ASCII whitespace (a
  /// newline from `echo`) is allowed and later trimmed.
  static func validateText(_ bytes: UnsafeRawBufferPointer) throws(RequestError) {
    let edges = trimmed(bytes, 0, bytes.count)
    var index = 0
    while index < bytes.count {
      let byte = bytes[index]
      if byte < 0x80 {
        let inside = index >= edges.start && index < edges.end
        if byte == 0x7F || (byte < 0x20 && (inside || !isSpace(byte))) {
          throw .controlCharacter(offset: index)
        }
        index += 1
        continue
      }
      let length = try utf8SequenceLength(bytes, at: index)
      // C1 controls U+0080–U+009F are encoded as C2 80 … C2 9F.
      if byte == 0xC2, bytes[index + 1] < 0xA0 { throw .controlCharacter(offset: index) }
      index += length
    }
  }

  /// The length of the well-formed UTF-8 sequence at `index` (Unicode table 3-7), or the offset
  /// of the first byte that breaks it.
  static func utf8SequenceLength(_ bytes: UnsafeRawBufferPointer, at index: Int)
    throws(RequestError)
    -> Int
  {
    let lead = bytes[index]
    let length: Int
    var low: UInt8 = 0x80
    var high: UInt8 = 0xBF
    switch lead {
    case 0xC2...0xDF: length = 2
    case 0xE0:
      length = 3
      low = 0xA0
    case 0xE1...0xEC, 0xEE...0xEF: length = 3
    case 0xED:
      length = 3
      high = 0x9F
    case 0xF0:
      length = 4
      low = 0x90
    case 0xF1...0xF3: length = 4
    case 0xF4:
      length = 4
      high = 0x8F
    default: throw .invalidUTF8(offset: index)
    }
    for continuation in 1..<length {
      let position = index + continuation
      guard position < bytes.count else { throw .invalidUTF8(offset: position) }
      let byte = bytes[position]
      let (lower, upper) = continuation == 1 ? (low, high) : (0x80, 0xBF)
      guard byte >= lower, byte <= upper else { throw .invalidUTF8(offset: position) }
    }
    return length
  }

  static func isSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  static func trimmed(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Span {
    var start = start
    var end = end
    while start < end, isSpace(bytes[start]) { start += 1 }
    while end > start, isSpace(bytes[end - 1]) { end -= 1 }
    return (start, end)
  }

  static func requestID(_ bytes: UnsafeRawBufferPointer, from hash: Int) throws(RequestError) -> (
    UInt16, Int
  ) {
    var index = hash + 1
    var value = 0
    while index < bytes.count, index - hash <= 5, let digit = digitValue(bytes[index]) {
      value = value * 10 + digit
      index += 1
    }
    guard index > hash + 1, value <= Int(UInt16.max), index < bytes.count,
      bytes[index] == UInt8(ascii: " ")
    else { throw .badRequestID(offset: hash) }
    return (UInt16(value), index)
  }

  static func isRefresh(_ bytes: UnsafeRawBufferPointer, _ span: Span) -> Bool {
    matches(bytes, span, "refresh")
  }

  static func location(_ bytes: UnsafeRawBufferPointer, _ span: Span, slot: Int)
    throws(RequestError)
    -> LocationQuery
  {
    guard span.start < span.end else { throw .emptyLocation(slot: slot) }
    var comma = span.start
    while comma < span.end, bytes[comma] != UInt8(ascii: ",") { comma += 1 }
    let first = trimmed(bytes, span.start, comma)
    let lead = bytes[span.start]
    let numeric =
      digitValue(lead) != nil || lead == UInt8(ascii: "-") || lead == UInt8(ascii: "+")
      || lead == UInt8(ascii: ".")
    if numeric {
      guard comma < span.end else { throw .badNumber(slot: slot) }
      let second = trimmed(bytes, comma + 1, span.end)
      guard let latitude = decimalE5(bytes, first), let longitude = decimalE5(bytes, second) else {
        throw .badNumber(slot: slot)
      }
      guard (-9_000_000...9_000_000).contains(latitude) else {
        throw .latitudeOutOfRange(slot: slot)
      }
      guard (-18_000_000...18_000_000).contains(longitude) else {
        throw .longitudeOutOfRange(slot: slot)
      }
      return .coordinates(Coordinates(latitude: Int32(latitude), longitude: Int32(longitude)))
    }

    guard first.start < first.end else { throw .emptyLocation(slot: slot) }
    let length = first.end - first.start
    guard length <= PlaceName.capacityBytes else { throw .nameTooLong(slot: slot, bytes: length) }
    var country: CountryCode?
    if comma < span.end {
      let code = trimmed(bytes, comma + 1, span.end)
      guard code.end - code.start == 2,
        let parsed = CountryCode(bytes[code.start], bytes[code.start + 1])
      else { throw .badCountryCode(slot: slot) }
      country = parsed
    }
    let name = PlaceName(
      checkedBytes: UnsafeRawBufferPointer(rebasing: bytes[first.start..<first.end]))
    return .place(name, country: country)
  }

  /// A decimal like `-33.8688` or `+151` in 1/100 000, rounded half away from zero at the sixth
  /// decimal; nil for anything else (exponents, `nan`, `inf`, hex, two signs, no digits).
  static func decimalE5(_ bytes: UnsafeRawBufferPointer, _ span: Span) -> Int? {
    var index = span.start
    guard index < span.end, span.end - span.start <= 24 else { return nil }
    var negative = false
    if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
      negative = bytes[index] == UInt8(ascii: "-")
      index += 1
    }
    var whole = 0
    var digits = 0
    while index < span.end, let digit = digitValue(bytes[index]) {
      guard digits < 3 else { return nil }
      whole = whole * 10 + digit
      digits += 1
      index += 1
    }
    var fraction = 0
    var fractionDigits = 0
    var roundUp = false
    if index < span.end, bytes[index] == UInt8(ascii: ".") {
      index += 1
      while index < span.end, let digit = digitValue(bytes[index]) {
        if fractionDigits < 5 {
          fraction = fraction * 10 + digit
        } else if fractionDigits == 5 {
          roundUp = digit >= 5
        }
        fractionDigits += 1
        digits += 1
        index += 1
      }
    }
    guard digits > 0, index == span.end else { return nil }
    for _ in min(fractionDigits, 5)..<5 { fraction *= 10 }
    let magnitude = whole * 100_000 + fraction + (roundUp ? 1 : 0)
    return negative ? -magnitude : magnitude
  }

  static func digitValue(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
  }
}
