// What every Swift fuzz target shares: failing with the input's hex, a reference CRC-32, the frame
// layout as schemas/frame-v1.json gives it, little-endian reads, and a byte reader that turns the
// fuzzer's bytes into values. Compiled into each target next to its own file (Tests/Fuzz/run.sh);
// the codec is imported as a module, so only its public API is used.

import SkyframeCodec

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// MARK: Failing

/// The input being run, for the failure report.
nonisolated(unsafe) var fuzzInput = UnsafeRawBufferPointer(start: nil, count: 0)

/// Every target's entry: remembers the input, then runs `body` on it.
@inline(__always) func fuzzEntry(
  _ data: UnsafePointer<UInt8>?, _ size: Int, _ body: (UnsafeRawBufferPointer) -> Void
) -> CInt {
  _ = statsRegistered
  let input = UnsafeRawBufferPointer(start: size > 0 ? data : nil, count: size)
  fuzzInput = input
  body(input)
  return 0
}

// MARK: Which paths ran

/// With FUZZ_STATS set, each target counts the paths it took (`note`) and prints the counts at
/// exit: to see that a run reached what it checks (e.g. run it over its corpus with -runs=0).
let statsEnabled = getenv("FUZZ_STATS") != nil
nonisolated(unsafe) var stats: [String: Int] = [:]

@inline(__always) func note(_ path: @autoclosure () -> String) {
  if statsEnabled { stats[path(), default: 0] += 1 }
}

let statsRegistered: Bool = {
  if statsEnabled {
    atexit {
      for (path, count) in stats.sorted(by: { $0.key < $1.key }) {
        writeError("stat: \(path): \(count)\n")
      }
    }
  }
  return true
}()

func writeError(_ text: String) {
  var text = text
  text.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

/// Prints `message` and the input, then aborts: libFuzzer keeps the input as a crash file.
func fail(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
  writeError("\nFUZZ CHECK FAILED at \(file):\(line)\n  \(message)\n")
  writeError("  input (\(fuzzInput.count) bytes): \(hexString(fuzzInput, limit: 1024))\n")
  abort()
}

@inline(__always) func check(
  _ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
  line: UInt = #line
) {
  if !condition { fail(message(), file: file, line: line) }
}

@inline(__always) func checkEqual<T: Equatable>(
  _ actual: T, _ expected: T, _ what: @autoclosure () -> String, file: StaticString = #fileID,
  line: UInt = #line
) {
  if actual != expected {
    fail("\(what()): got \(actual), expected \(expected)", file: file, line: line)
  }
}

func hexString<C: Collection>(_ bytes: C, limit: Int = .max) -> String where C.Element == UInt8 {
  let digits = Array("0123456789abcdef".utf8)
  var text = ""
  var written = 0
  for byte in bytes {
    if written == limit {
      text += "…"
      break
    }
    text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte >> 4)]))
    text.unicodeScalars.append(Unicode.Scalar(digits[Int(byte & 0xF)]))
    written += 1
  }
  return text
}

// MARK: Reference implementations

/// CRC-32/ISO-HDLC one bit at a time, straight from its definition (reflected 0xEDB88320, initial
/// value and final XOR all ones): the reference the codec's table-driven CRC is checked against.
func referenceCRC32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
  var crc: UInt32 = 0xFFFF_FFFF
  for byte in bytes {
    crc ^= UInt32(byte)
    for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
  }
  return ~crc
}

/// Little-endian reads from a byte array, by hand.
extension Array where Element == UInt8 {
  func u16(_ offset: Int) -> UInt16 { UInt16(self[offset]) | UInt16(self[offset + 1]) << 8 }
  func i16(_ offset: Int) -> Int16 { Int16(bitPattern: u16(offset)) }
  func u32(_ offset: Int) -> UInt32 {
    UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16
      | UInt32(self[offset + 3]) << 24
  }
  func i32(_ offset: Int) -> Int32 { Int32(bitPattern: u32(offset)) }

  mutating func put16(_ value: UInt16, at offset: Int) {
    self[offset] = UInt8(value & 0xFF)
    self[offset + 1] = UInt8(value >> 8)
  }
  mutating func put32(_ value: UInt32, at offset: Int) {
    for index in 0..<4 { self[offset + index] = UInt8((value >> (8 * UInt32(index))) & 0xFF) }
  }
}

// MARK: The frame layout, from schemas/frame-v1.json

enum WireType { case u8, u16, i16, u32, i32, char, utf8 }

/// One row of `schemas/frame-v1.json`: where a field is, its type, its range and its sentinel.
struct SpecField {
  let name: String
  let offset: Int
  let type: WireType
  let count: Int
  let minimum: Int?
  let maximum: Int?
  let sentinel: Int?

  var elementSize: Int {
    switch type {
    case .u8, .char, .utf8: 1
    case .u16, .i16: 2
    case .u32, .i32: 4
    }
  }
  var isSigned: Bool { type == .i16 || type == .i32 }

  /// Element `index` as the spec reads it: little-endian, two's complement for signed types.
  func wire(_ frame: [UInt8], _ index: Int = 0) -> Int {
    let at = offset + index * elementSize
    return switch type {
    case .u8, .char, .utf8: Int(frame[at])
    case .u16: Int(frame.u16(at))
    case .i16: Int(frame.i16(at))
    case .u32: Int(frame.u32(at))
    case .i32: Int(frame.i32(at))
    }
  }

  func inRange(_ value: Int) -> Bool {
    (minimum.map { value >= $0 } ?? true) && (maximum.map { value <= $0 } ?? true)
  }
}

let frameSize = 192
let crcOffset = 188

/// schemas/frame-v1.json, field by field (name, offset, type, count, min, max, sentinel).
let specFields: [SpecField] = [
  SpecField(
    name: "magic", offset: 0, type: .u8, count: 2, minimum: nil, maximum: nil, sentinel: nil),
  SpecField(
    name: "version", offset: 2, type: .u8, count: 1, minimum: nil, maximum: nil, sentinel: nil),
  SpecField(
    name: "status", offset: 3, type: .u8, count: 1, minimum: nil, maximum: nil, sentinel: nil),
  SpecField(
    name: "request_id", offset: 4, type: .u16, count: 1, minimum: nil, maximum: nil, sentinel: nil),
  SpecField(
    name: "slot_index", offset: 6, type: .u8, count: 1, minimum: 0, maximum: 254, sentinel: nil),
  SpecField(
    name: "slot_count", offset: 7, type: .u8, count: 1, minimum: 1, maximum: 255, sentinel: nil),
  SpecField(
    name: "service", offset: 8, type: .u8, count: 1, minimum: nil, maximum: nil, sentinel: nil),
  SpecField(name: "is_day", offset: 9, type: .u8, count: 1, minimum: 0, maximum: 1, sentinel: 255),
  SpecField(name: "sun", offset: 10, type: .u8, count: 1, minimum: 0, maximum: 2, sentinel: 255),
  SpecField(
    name: "hourly_step_h", offset: 11, type: .u8, count: 1, minimum: 0, maximum: 24, sentinel: nil),
  SpecField(
    name: "latitude", offset: 12, type: .i32, count: 1, minimum: -9_000_000, maximum: 9_000_000,
    sentinel: -2_147_483_648),
  SpecField(
    name: "longitude", offset: 16, type: .i32, count: 1, minimum: -18_000_000, maximum: 18_000_000,
    sentinel: -2_147_483_648),
  SpecField(
    name: "observed_at", offset: 20, type: .u32, count: 1, minimum: 1, maximum: 4_294_967_295,
    sentinel: 0),
  SpecField(
    name: "fetched_at", offset: 24, type: .u32, count: 1, minimum: 1, maximum: 4_294_967_295,
    sentinel: 0),
  SpecField(
    name: "hourly_start", offset: 28, type: .u32, count: 1, minimum: 1, maximum: 4_294_967_295,
    sentinel: 0),
  SpecField(
    name: "utc_offset_min", offset: 32, type: .i16, count: 1, minimum: -720, maximum: 840,
    sentinel: -32768),
  SpecField(
    name: "daily_start", offset: 34, type: .u16, count: 1, minimum: 0, maximum: 65534,
    sentinel: 65535),
  SpecField(
    name: "country", offset: 36, type: .char, count: 2, minimum: nil, maximum: nil, sentinel: 0),
  SpecField(
    name: "air_quality", offset: 38, type: .u16, count: 1, minimum: 1, maximum: 65535, sentinel: 0),
  SpecField(
    name: "name", offset: 40, type: .utf8, count: 24, minimum: nil, maximum: nil, sentinel: 0),
  SpecField(
    name: "temperature", offset: 64, type: .i16, count: 1, minimum: -1000, maximum: 1000,
    sentinel: -32768),
  SpecField(
    name: "feels_like", offset: 66, type: .i16, count: 1, minimum: -1000, maximum: 1000,
    sentinel: -32768),
  SpecField(
    name: "pressure", offset: 68, type: .u16, count: 1, minimum: 0, maximum: 20000, sentinel: 65535),
  SpecField(
    name: "wind_speed", offset: 70, type: .u16, count: 1, minimum: 0, maximum: 5000, sentinel: 65535
  ),
  SpecField(
    name: "wind_gust", offset: 72, type: .u16, count: 1, minimum: 0, maximum: 5000, sentinel: 65535),
  SpecField(
    name: "wind_direction", offset: 74, type: .u16, count: 1, minimum: 0, maximum: 359,
    sentinel: 65535),
  SpecField(
    name: "visibility", offset: 76, type: .u16, count: 1, minimum: 0, maximum: 65534,
    sentinel: 65535),
  SpecField(
    name: "precipitation", offset: 78, type: .u16, count: 1, minimum: 0, maximum: 65534,
    sentinel: 65535),
  SpecField(
    name: "humidity", offset: 80, type: .u8, count: 1, minimum: 0, maximum: 100, sentinel: 255),
  SpecField(
    name: "weather_code", offset: 81, type: .u8, count: 1, minimum: 0, maximum: 99, sentinel: 255),
  SpecField(
    name: "cloud_cover", offset: 82, type: .u8, count: 1, minimum: 0, maximum: 100, sentinel: 255),
  SpecField(
    name: "uv_index", offset: 83, type: .u8, count: 1, minimum: 0, maximum: 250, sentinel: 255),
  SpecField(name: "alerts", offset: 84, type: .u8, count: 1, minimum: 1, maximum: 255, sentinel: 0),
  SpecField(name: "moon", offset: 85, type: .u8, count: 1, minimum: 1, maximum: 255, sentinel: 0),
  SpecField(
    name: "precip_next_hour", offset: 86, type: .u8, count: 1, minimum: 1, maximum: 255, sentinel: 0
  ),
  SpecField(
    name: "reserved_87", offset: 87, type: .u8, count: 1, minimum: nil, maximum: nil, sentinel: nil),
  SpecField(
    name: "sunrise", offset: 88, type: .u32, count: 1, minimum: 1, maximum: 4_294_967_295,
    sentinel: 0),
  SpecField(
    name: "sunset", offset: 92, type: .u32, count: 1, minimum: 1, maximum: 4_294_967_295,
    sentinel: 0),
  SpecField(
    name: "hourly_temperature", offset: 96, type: .i16, count: 12, minimum: -1000, maximum: 1000,
    sentinel: -32768),
  SpecField(
    name: "hourly_weather_code", offset: 120, type: .u8, count: 12, minimum: 0, maximum: 99,
    sentinel: 255),
  SpecField(
    name: "hourly_precip_probability", offset: 132, type: .u8, count: 12, minimum: 0, maximum: 100,
    sentinel: 255),
  SpecField(
    name: "daily_min", offset: 144, type: .i16, count: 7, minimum: -1000, maximum: 1000,
    sentinel: -32768),
  SpecField(
    name: "daily_max", offset: 158, type: .i16, count: 7, minimum: -1000, maximum: 1000,
    sentinel: -32768),
  SpecField(
    name: "daily_weather_code", offset: 172, type: .u8, count: 7, minimum: 0, maximum: 99,
    sentinel: 255),
  SpecField(
    name: "daily_precip_probability", offset: 179, type: .u8, count: 7, minimum: 0, maximum: 100,
    sentinel: 255),
  SpecField(
    name: "next_update", offset: 186, type: .u16, count: 1, minimum: 1, maximum: 65535, sentinel: 0),
  SpecField(
    name: "crc32", offset: 188, type: .u32, count: 1, minimum: nil, maximum: nil, sentinel: nil),
]

let specByName: [String: SpecField] = Dictionary(
  uniqueKeysWithValues: specFields.map { ($0.name, $0) })

func spec(_ name: String) -> SpecField {
  guard let field = specByName[name] else { fail("no field \(name) in the spec table") }
  return field
}

/// The first 192 bytes of `input` (zero-padded) made into a frame every decoder accepts: magic,
/// version 1 and the CRC-32 written over whatever the fuzzer put in the other bytes.
func sealedFrame(_ input: UnsafeRawBufferPointer) -> [UInt8] {
  var frame = [UInt8](repeating: 0, count: frameSize)
  for index in 0..<min(input.count, frameSize) { frame[index] = input[index] }
  frame[0] = 0x53
  frame[1] = 0x46
  frame[2] = 1
  reseal(&frame)
  return frame
}

func reseal(_ frame: inout [UInt8]) {
  frame.put32(referenceCRC32(frame[0..<crcOffset]), at: crcOffset)
}

/// The error the spec says a decoder reports for `bytes` (checks in order: length, magic,
/// version, CRC), or nil when they are a frame.
func expectedFrameError(_ bytes: UnsafeRawBufferPointer) -> FrameError? {
  if bytes.count < frameSize { return .truncated(count: bytes.count) }
  if bytes.count > frameSize { return .tooLong(count: bytes.count) }
  if bytes[0] != 0x53 || bytes[1] != 0x46 { return .badMagic(bytes[0], bytes[1]) }
  if bytes[2] != 1 { return .unsupportedVersion(bytes[2]) }
  let frame = [UInt8](bytes)
  let stored = frame.u32(crcOffset)
  let computed = referenceCRC32(frame[0..<crcOffset])
  return stored == computed ? nil : .checksumMismatch(stored: stored, computed: computed)
}

// MARK: Text fields through the public API

/// The bytes of a frame name, as the encoder writes them (read back from a rewritten frame: the
/// public way to see a `FixedText`'s bytes).
func nameBytes(_ name: FrameName) -> [UInt8] {
  var frame = [UInt8](repeating: 0, count: frameSize)
  frame.withUnsafeMutableBytes { buffer in
    // rewrite carries a sealed frame's CRC over: the zeros get theirs first.
    WeatherFrame.seal(buffer)
    WeatherFrame.rewrite(
      buffer, status: .ok, requestID: 0, slotIndex: 0, slotCount: 1, latitude: nil,
      longitude: nil, name: name, country: nil)
  }
  let field = Array(frame[40..<64])
  check(field[name.count...].allSatisfy { $0 == 0 }, "name bytes past its count are zero")
  return Array(field[0..<name.count])
}

/// The bytes of a request's place name. A `PlaceName` is made from a `String` or from checked
/// UTF-8, so its text is its bytes (the binary form is no way to read them: it refuses names the
/// gateway would refuse).
func placeNameBytes(_ name: PlaceName) -> [UInt8] {
  let bytes = Array(name.string.utf8)
  checkEqual(bytes.count, name.count, "a PlaceName's text has its byte count")
  return bytes
}

// MARK: Turning fuzz bytes into values

/// Reads values from the fuzzer's bytes; past the end everything is 0.
struct ByteReader {
  let bytes: UnsafeRawBufferPointer
  var position = 0

  init(_ bytes: UnsafeRawBufferPointer, from position: Int = 0) {
    self.bytes = bytes
    self.position = position
  }

  var remaining: Int { max(bytes.count - position, 0) }

  mutating func u8() -> UInt8 {
    guard position < bytes.count else { return 0 }
    defer { position += 1 }
    return bytes[position]
  }
  mutating func u16() -> UInt16 { UInt16(u8()) | UInt16(u8()) << 8 }
  mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }
  mutating func u64() -> UInt64 { UInt64(u32()) | UInt64(u32()) << 32 }
  mutating func bool() -> Bool { u8() & 1 != 0 }
  mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in u8() } }
  /// Up to `limit` bytes, the length first.
  mutating func sizedBytes(_ limit: Int) -> [UInt8] { bytes(Int(u8()) % (limit + 1)) }

  /// Mostly a value in `range` (so that whole frames stay encodable); for one selector byte in 256
  /// a value outside it, half the time just outside either end.
  mutating func value<T: FixedWidthInteger>(_ range: ClosedRange<T>, as: T.Type = T.self) -> T {
    let selector = u8()
    let raw = u64()
    if selector == 0xFF {
      switch raw % 4 {
      case 0: return range.lowerBound &- 1
      case 1: return range.upperBound &+ 1
      default: return T(truncatingIfNeeded: raw >> 2)
      }
    }
    let width = UInt64(truncatingIfNeeded: Int64(range.upperBound) &- Int64(range.lowerBound)) &+ 1
    let step = width == 0 ? raw : raw % width
    return T(truncatingIfNeeded: Int64(range.lowerBound) &+ Int64(bitPattern: step))
  }

  /// nil for about one byte value in eight, else `value(range)`.
  mutating func optional<T: FixedWidthInteger>(_ range: ClosedRange<T>) -> T? {
    u8() & 7 == 0 ? nil : value(range)
  }
}
