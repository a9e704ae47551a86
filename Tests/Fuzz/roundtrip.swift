// Fuzz target roundtrip: encode ∘ decode, decode ∘ encode, rewrite and FixedText.
// Seeds: frames
// Max length: 600
//
// 1. Decoded bytes re-encoded. The input sealed (as in frame_decode) is decoded and encoded again.
//    Encoding succeeds exactly when every value is in the range frame-v1.json gives it
//    (fieldsOutOfRange), else it throws outOfRange naming one of those fields with its value.
//    When it succeeds, the 192 bytes are NOT always the input's: decoding keeps what the spec
//    defines and encoding writes it canonically, so the output is canonicalFrame(input):
//      - is_day other than 0/1 and sun other than 0/1/2 decode as missing and encode as 0xFF;
//      - a country that is not two ASCII letters decodes as none (encoded 0 0), and a lower-case
//        one is encoded in capitals;
//      - name bytes after the first 0 are dropped (encoded 0);
//      - v1.1 values a decoder reads as absent (air quality with bits 0-14 zero, alerts with a
//        severity of 0 or 7, a precipitation time other than 1-61 and 127) are encoded as 0;
//      - reserved byte 87 is encoded as 0;
//      - the CRC follows.
//    Every other byte is the input's, and the output decodes to the same WeatherFrame.
// 2. The same with every out-of-range value brought to the nearer end of its range: that frame
//    must encode, to canonicalFrame of it.
// 3. A WeatherFrame built from the fuzz bytes through the public API, mostly in range: it encodes
//    exactly when all of its values are in range, and then decodes back equal, except:
//      - AlertSummary.count above 31 comes back as 31 (the wire keeps "31 or more");
//    (A name never holds U+0000: FrameName(truncating:) ends the text there, as the wire does.)
//    The encode never writes past 192 bytes of a larger buffer, and a smaller one is refused.
// 4. FrameName / PlaceName(truncating:): the longest prefix of whole characters that fits;
//    CountryCode(String); MoonPhase(fraction:).
// 5. WeatherFrame.rewrite of the sealed frame: the rewritten fields read back as given
//    (coordinates clamped to their range), every other field unchanged, the CRC valid.

import SkyframeCodec

@_cdecl("LLVMFuzzerTestOneInput")
public func roundtripFuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  fuzzEntry(data, size) { input in
    let sealed = sealedFrame(input)
    reencode(sealed, "sealed input")
    reencode(clamped(sealed), "clamped input", mustEncode: true)
    var reader = ByteReader(input)
    buildAndEncode(&reader)
    checkTruncation(&reader)
    checkRewrite(sealed, &reader)
  }
}

// MARK: 1 and 2: decode, then encode

func reencode(_ frame: [UInt8], _ label: String, mustEncode: Bool = false) {
  let decoded: WeatherFrame
  do { decoded = try WeatherFrame(decoding: frame) } catch {
    fail("\(label): a sealed frame does not decode: \(error)")
  }
  let outOfRange = fieldsOutOfRange(frame)
  let encoded: [UInt8]
  do {
    encoded = try decoded.encoded()
  } catch {
    guard case .outOfRange(let field, let value) = error else {
      fail("\(label): encoding a decoded frame throws \(error)")
    }
    let name = field
    note("\(label): encode throws outOfRange")
    check(!mustEncode, "\(label): every value is in range, yet encoding throws \(error)")
    check(
      outOfRange.contains(name),
      "\(label): encode throws \(error) but the spec's ranges say \(outOfRange)")
    let row = spec(name)
    let wires = (0..<row.count).map { row.wire(frame, $0) }
    let index = specAirQuality(frame.u16(38))?.index
    check(
      wires.contains(value) || (name == "air_quality" && value == index),
      "\(label): \(error) names a value the frame does not hold")
    return
  }
  check(
    outOfRange.isEmpty,
    "\(label): encode succeeds although \(outOfRange) are outside their ranges")
  let canonical = canonicalFrame(frame)
  note("\(label): encodes" + (canonical == frame ? ", bytes unchanged" : ", bytes made canonical"))
  if encoded != canonical {
    let first = (0..<frameSize).first { encoded[$0] != canonical[$0] }!
    fail(
      "\(label): re-encoded bytes differ from the canonical input at byte \(first): "
        + "\(hexString(encoded)) against \(hexString(canonical))")
  }
  do {
    let again = try WeatherFrame(decoding: encoded)
    check(again == decoded, "\(label): the re-encoded frame decodes to the same WeatherFrame")
  } catch {
    fail("\(label): the re-encoded frame does not decode: \(error)")
  }
  checkBuffers(decoded, encoded, label)
}

/// encode(into:) writes exactly 192 bytes of a larger buffer and refuses a smaller one.
func checkBuffers(_ frame: WeatherFrame, _ expected: [UInt8], _ label: String) {
  let large = UnsafeMutableRawBufferPointer.allocate(byteCount: frameSize + 9, alignment: 1)
  defer { large.deallocate() }
  large.initializeMemory(as: UInt8.self, repeating: 0xEE)
  let odd = UnsafeMutableRawBufferPointer(rebasing: large[1...])
  do { try frame.encode(into: odd) } catch {
    fail("\(label): encode(into:) of 200 bytes at an odd address throws \(error)")
  }
  checkEqual([UInt8](odd[0..<frameSize]), expected, "\(label): encode(into:) at an odd address")
  check(
    large[0] == 0xEE && odd[frameSize...].allSatisfy { $0 == 0xEE },
    "\(label): encode(into:) writes outside its 192 bytes")
  let small = UnsafeMutableRawBufferPointer(rebasing: large[0..<frameSize - 1])
  do {
    try frame.encode(into: small)
    fail("\(label): encode(into:) of 191 bytes succeeds")
  } catch {
    checkEqual(error, .bufferTooSmall(count: frameSize - 1), "\(label): encode into 191 bytes")
  }
}

/// The frame with every value outside its range brought to the nearer end of the range.
func clamped(_ sealed: [UInt8]) -> [UInt8] {
  var frame = sealed
  for row in specFields where row.minimum != nil || row.maximum != nil {
    for index in 0..<row.count {
      let wire = row.wire(frame, index)
      guard wire != row.sentinel, !row.inRange(wire) else { continue }
      let at = row.offset + index * row.elementSize
      let value = min(max(wire, row.minimum!), row.maximum!)
      switch row.elementSize {
      case 1: frame[at] = UInt8(truncatingIfNeeded: value)
      case 2: frame.put16(UInt16(truncatingIfNeeded: value), at: at)
      default: frame.put32(UInt32(truncatingIfNeeded: value), at: at)
      }
    }
  }
  if frame[6] >= frame[7] { frame[6] = frame[7] - 1 }
  if let quality = specAirQuality(frame.u16(38)), quality.index > 999 { frame.put16(0, at: 38) }
  reseal(&frame)
  return frame
}

// MARK: 3: build, encode, decode

func buildAndEncode(_ reader: inout ByteReader) {
  var frame = WeatherFrame()
  var outOfRange: [String] = []
  func track<T: FixedWidthInteger>(_ value: T?, _ range: ClosedRange<T>, _ name: String) -> T? {
    if let value, !range.contains(value), !outOfRange.contains(name) { outOfRange.append(name) }
    return value
  }
  let temperatures: ClosedRange<Int16> = -1000...1000
  frame.status = FrameStatus(rawValue: reader.u8())
  frame.requestID = reader.u16()
  frame.slotCount = reader.value(1...255)
  frame.slotIndex = reader.value(0...max(frame.slotCount, 1) - 1)
  if frame.slotCount == 0 { outOfRange.append("slot_count") }
  // slot_index has its own range (0...254, frame-v1.json) besides being below slot_count.
  if frame.slotIndex > 254 || (frame.slotCount > 0 && frame.slotIndex >= frame.slotCount) {
    outOfRange.append("slot_index")
  }
  frame.service = WeatherService(rawValue: reader.u8())
  frame.isDay = reader.u8() % 3 == 0 ? nil : reader.bool()
  frame.sun = SunState(rawValue: reader.u8() % 4)
  frame.hourlyStepHours = track(reader.value(0...24), 0...24, "hourly_step_h")!
  frame.latitude = track(
    reader.optional(-9_000_000...9_000_000), -9_000_000...9_000_000, "latitude")
  frame.longitude = track(
    reader.optional(-18_000_000...18_000_000), -18_000_000...18_000_000, "longitude")
  frame.observedAt = track(reader.optional(1...UInt32.max), 1...UInt32.max, "observed_at")
  frame.fetchedAt = track(reader.optional(1...UInt32.max), 1...UInt32.max, "fetched_at")
  frame.hourlyStart = track(reader.optional(1...UInt32.max), 1...UInt32.max, "hourly_start")
  frame.utcOffsetMinutes = track(reader.optional(-720...840), -720...840, "utc_offset_min")
  frame.dailyStart = track(reader.optional(0...65534), 0...65534, "daily_start")
  frame.country = CountryCode(reader.u8(), reader.u8())
  let nameText = String(decoding: reader.sizedBytes(40), as: UTF8.self)
  frame.name = FrameName(truncating: nameText)
  if reader.bool() {
    let index = track(reader.value(0...999 as ClosedRange<UInt16>), 0...999, "air_quality")!
    frame.airQuality = AirQuality(index: index, scale: reader.bool() ? .usAQI : .europeanAQI)
  }
  frame.current.temperature = track(reader.optional(temperatures), temperatures, "temperature")
  frame.current.feelsLike = track(reader.optional(temperatures), temperatures, "feels_like")
  frame.current.pressure = track(reader.optional(0...20000), 0...20000, "pressure")
  frame.current.windSpeed = track(reader.optional(0...5000), 0...5000, "wind_speed")
  frame.current.windGust = track(reader.optional(0...5000), 0...5000, "wind_gust")
  frame.current.windDirection = track(reader.optional(0...359), 0...359, "wind_direction")
  frame.current.visibility = track(reader.optional(0...65534), 0...65534, "visibility")
  frame.current.precipitation = track(reader.optional(0...65534), 0...65534, "precipitation")
  frame.current.humidity = track(reader.optional(0...100), 0...100, "humidity")
  frame.current.weatherCode = track(reader.optional(0...99), 0...99, "weather_code")
  frame.current.cloudCover = track(reader.optional(0...100), 0...100, "cloud_cover")
  frame.current.uvIndex = track(reader.optional(0...250), 0...250, "uv_index")
  if reader.bool() {
    let severity = AlertSummary.Severity(rawValue: 1 + reader.u8() % 6)!
    frame.alerts = AlertSummary(count: reader.u8(), highest: severity)
  }
  switch reader.u8() % 3 {
  case 0: frame.moon = nil
  case 1: frame.moon = MoonPhase(wire: reader.u8())
  default:
    let fraction = Double(bitPattern: reader.u64())
    let moon = MoonPhase(fraction: fraction)
    check(moon.wire >= 1, "MoonPhase(fraction: \(fraction)) has a wire value 1...255")
    check(moon.fraction >= 0 && moon.fraction < 1, "MoonPhase(fraction: \(fraction)).fraction")
    frame.moon = moon
  }
  if reader.bool() {
    let minutes = track(reader.optional(0...60 as ClosedRange<UInt8>), 0...60, "precip_next_hour")
    frame.precipitationNextHour = NextHourPrecipitation(
      precipitatingNow: reader.bool(), minutesUntilChange: minutes)
  }
  frame.sunrise = track(reader.optional(1...UInt32.max), 1...UInt32.max, "sunrise")
  frame.sunset = track(reader.optional(1...UInt32.max), 1...UInt32.max, "sunset")
  for index in 0..<12 {
    frame.hourly[index] = WeatherFrame.HourlySlot(
      temperature: track(reader.optional(temperatures), temperatures, "hourly_temperature"),
      weatherCode: track(reader.optional(0...99), 0...99, "hourly_weather_code"),
      precipitationProbability: track(
        reader.optional(0...100), 0...100, "hourly_precip_probability"))
  }
  for index in 0..<7 {
    frame.daily[index] = WeatherFrame.DailySlot(
      minimum: track(reader.optional(temperatures), temperatures, "daily_min"),
      maximum: track(reader.optional(temperatures), temperatures, "daily_max"),
      weatherCode: track(reader.optional(0...99), 0...99, "daily_weather_code"),
      precipitationProbability: track(
        reader.optional(0...100), 0...100, "daily_precip_probability"))
  }
  frame.nextUpdateSeconds = track(reader.optional(1...UInt16.max), 1...UInt16.max, "next_update")

  let encoded: [UInt8]
  do {
    encoded = try frame.encoded()
  } catch {
    guard case .outOfRange(let field, _) = error else { fail("encode throws \(error)") }
    note("built frame: encode throws outOfRange")
    check(
      outOfRange.contains(field),
      "encode throws \(error) but the values out of range are \(outOfRange)")
    return
  }
  check(outOfRange.isEmpty, "encode succeeds although \(outOfRange) are outside their ranges")
  encoded.withUnsafeBytes { checkEqual(expectedFrameError($0), nil, "the encoded frame's checks") }
  let decoded: WeatherFrame
  do { decoded = try WeatherFrame(decoding: encoded) } catch {
    fail("an encoded frame does not decode: \(error)")
  }
  note("built frame: encodes")
  var expected = frame
  if let alerts = frame.alerts {
    if alerts.count > 31 { note("built frame: alert count above 31") }
    expected.alerts = AlertSummary(count: min(alerts.count, 31), highest: alerts.highest)
  }
  // The wire's name ends at its first 0 byte, and so does FrameName(truncating:).
  check(!nameBytes(frame.name).contains(0), "FrameName(truncating:) keeps a U+0000")
  if decoded != expected {
    fail("built frame → encode → decode differs: built \(frame), decoded \(decoded)")
  }
  checkBuffers(frame, encoded, "built frame")
}

// MARK: 4: FixedText, CountryCode, MoonPhase

func checkTruncation(_ reader: inout ByteReader) {
  let bytes = reader.sizedBytes(80)
  let given = String(decoding: bytes, as: UTF8.self)
  // A U+0000 ends the text (frame-v1.md §6.1: the wire's name ends at its first 0 byte).
  let text = String(decoding: Array(given.utf8).prefix { $0 != 0 }, as: UTF8.self)
  let utf8 = Array(text.utf8)
  /// The longest prefix of whole characters within `capacity` bytes, in bytes.
  func fitting(_ capacity: Int) -> Int {
    if utf8.count <= capacity { return utf8.count }
    var length = 0
    for character in text {
      let next = length + character.utf8.count
      if next > capacity { break }
      length = next
    }
    return length
  }
  let frameName = FrameName(truncating: text)
  let kept = nameBytes(frameName)
  if utf8.count > 24 { note("FrameName(truncating:) cuts") }
  checkEqual(kept.count, fitting(24), "FrameName(truncating:) length of \(hexString(utf8))")
  checkEqual(kept, Array(utf8.prefix(kept.count)), "FrameName(truncating:) keeps a prefix")
  check(frameName.isEmpty == kept.isEmpty, "FrameName.isEmpty")
  if utf8.count <= 24 { checkEqual(frameName.string, text, "FrameName.string") }
  checkEqual(
    nameBytes(FrameName(truncating: given)), kept, "FrameName(truncating:) stops at U+0000")

  let placeName = PlaceName(truncating: given)
  checkEqual(placeName.count, fitting(40), "PlaceName(truncating:) length of \(hexString(utf8))")
  if !placeName.isEmpty {
    checkEqual(placeNameBytes(placeName), Array(utf8.prefix(placeName.count)), "PlaceName bytes")
  }

  let country = CountryCode(given)
  let whole = Array(given.utf8)
  let letters = whole.count == 2 && isASCIILetter(whole[0]) && isASCIILetter(whole[1])
  check((country != nil) == letters, "CountryCode(\"\(given)\") is \(String(describing: country))")
  if let country {
    checkEqual([country.first, country.second], whole.map { $0 & 0xDF }, "CountryCode letters")
    checkEqual(country.string, String(decoding: whole.map { $0 & 0xDF }, as: UTF8.self), "string")
  }
}

// MARK: 5: rewrite

func checkRewrite(_ sealed: [UInt8], _ reader: inout ByteReader) {
  let original: WeatherFrame
  do { original = try WeatherFrame(decoding: sealed) } catch {
    fail("a sealed frame does not decode: \(error)")
  }
  let status = FrameStatus(rawValue: reader.u8())
  let requestID = reader.u16()
  let slotCount = max(reader.u8(), 1)
  let slotIndex = reader.u8() % slotCount
  let latitude: Int32? = reader.bool() ? nil : Int32(bitPattern: reader.u32())
  let longitude: Int32? = reader.bool() ? nil : Int32(bitPattern: reader.u32())
  let name = FrameName(truncating: String(decoding: reader.sizedBytes(30), as: UTF8.self))
  let country = CountryCode(reader.u8(), reader.u8())
  let nextUpdate = reader.u16()

  var bytes = sealed
  bytes.withUnsafeMutableBytes { buffer in
    WeatherFrame.rewrite(
      buffer, status: status, requestID: requestID, slotIndex: slotIndex, slotCount: slotCount,
      latitude: latitude, longitude: longitude, name: name, country: country,
      nextUpdateSeconds: nextUpdate)
  }
  let rewritten: WeatherFrame
  do { rewritten = try WeatherFrame(decoding: bytes) } catch {
    fail("a rewritten frame does not decode: \(error)")
  }
  var expected = original
  expected.status = status
  expected.requestID = requestID
  expected.slotIndex = slotIndex
  expected.slotCount = slotCount
  expected.latitude = latitude.map { min(max($0, -9_000_000), 9_000_000) }
  expected.longitude = longitude.map { min(max($0, -18_000_000), 18_000_000) }
  expected.country = country
  let written = nameBytes(name)
  check(!written.contains(0), "FrameName(truncating:) keeps a U+0000")
  expected.name = name
  expected.nextUpdateSeconds = nextUpdate == 0 ? nil : nextUpdate
  if rewritten != expected {
    fail("rewrite: got \(rewritten), expected \(expected)")
  }
  // Bytes rewrite does not own stay as they were.
  let owned: Set<Int> = Set(
    [3, 4, 5, 6, 7] + Array(12..<20) + [36, 37] + Array(40..<64) + [186, 187])
  for index in 0..<crcOffset where !owned.contains(index) {
    checkEqual(bytes[index], sealed[index], "rewrite keeps byte \(index)")
  }
}
