// The `large`, `tiny` and `unchanged` messages as the spec reads them (schemas/frame-profiles.md,
// frame-large.json, frame-tiny.json), written independently of the codec: the oracle for
// MessageKind.check, ProfileView and ContentCheck (profile_decode.swift). The large and tiny tables
// were written row for row from the JSON files (name, offset, type, count, length, sentinel);
// the unchanged table from §4 and the zeroed ranges of the content check from §5 of the markdown.
// Only the codec's public API is used, and none of its tables.

/// A type of frame-large.json / frame-tiny.json.
enum ProfileWireType { case u8, i8, u16, i16, u32, i32, char, utf8 }

/// One row of a profile's JSON layout.
struct ProfileSpecField {
  let name: String
  let offset: Int
  let type: ProfileWireType
  /// Elements (texts for utf8).
  let count: Int
  /// Bytes of one text (utf8); 1 otherwise.
  let length: Int
  /// The wire value read as missing, per element (nil: none).
  let sentinel: Int64?

  init(
    _ name: String, _ offset: Int, _ type: ProfileWireType, count: Int, length: Int,
    sentinel: Int64?
  ) {
    self.name = name
    self.offset = offset
    self.type = type
    self.count = count
    self.length = length
    self.sentinel = sentinel
  }

  var elementSize: Int {
    switch type {
    case .u8, .i8, .char, .utf8: 1
    case .u16, .i16: 2
    case .u32, .i32: 4
    }
  }
  var isSigned: Bool { type == .i8 || type == .i16 || type == .i32 }
  /// Bytes from one element to the next (a whole text for utf8).
  var stride: Int { elementSize * length }
  var size: Int { stride * count }

  /// Element `index` as the spec reads it: little-endian, two's complement when signed; the
  /// first byte of text `index` for utf8.
  func wire(_ bytes: [UInt8], _ index: Int) -> Int64 {
    let at = offset + index * stride
    var value: UInt64 = 0
    for byte in 0..<elementSize { value |= UInt64(bytes[at + byte]) << (8 * UInt64(byte)) }
    guard isSigned, value >> (8 * UInt64(elementSize) - 1) & 1 == 1 else { return Int64(value) }
    return Int64(value) - (Int64(1) << (8 * Int64(elementSize)))
  }

  /// Text `index`: its bytes before the first zero (all `length` when there is none).
  func text(_ bytes: [UInt8], _ index: Int) -> [UInt8] {
    let start = offset + index * stride
    return Array(bytes[start..<start + length].prefix { $0 != 0 })
  }
}

/// A message of frame-profiles.md §1.1: its kind byte, size, fields and the §5 zeroed ranges.
struct ProfileSpec {
  let name: String
  let kind: UInt8
  let size: Int
  /// nil for standard (frame-v1.json, checked by the standard targets).
  let fields: [ProfileSpecField]?
  /// Half-open byte ranges the content check takes as zero; nil: no content check (unchanged).
  let zeroed: [(Int, Int)]?

  var crcOffset: Int { size - 4 }
}

/// schemas/frame-large.json, field by field.
let largeSpecFields: [ProfileSpecField] = [
  .init("magic", 0, .u8, count: 2, length: 1, sentinel: nil),
  .init("kind", 2, .u8, count: 1, length: 1, sentinel: nil),
  .init("status", 3, .u8, count: 1, length: 1, sentinel: nil),
  .init("request_id", 4, .u16, count: 1, length: 1, sentinel: nil),
  .init("slot_index", 6, .u8, count: 1, length: 1, sentinel: nil),
  .init("slot_count", 7, .u8, count: 1, length: 1, sentinel: nil),
  .init("service", 8, .u8, count: 1, length: 1, sentinel: nil),
  .init("is_day", 9, .u8, count: 1, length: 1, sentinel: 255),
  .init("sun", 10, .u8, count: 1, length: 1, sentinel: 255),
  .init("hourly_step_h", 11, .u8, count: 1, length: 1, sentinel: nil),
  .init("latitude", 12, .i32, count: 1, length: 1, sentinel: -2_147_483_648),
  .init("longitude", 16, .i32, count: 1, length: 1, sentinel: -2_147_483_648),
  .init("observed_at", 20, .u32, count: 1, length: 1, sentinel: 0),
  .init("fetched_at", 24, .u32, count: 1, length: 1, sentinel: 0),
  .init("hourly_start", 28, .u32, count: 1, length: 1, sentinel: 0),
  .init("utc_offset_min", 32, .i16, count: 1, length: 1, sentinel: -32768),
  .init("daily_start", 34, .u16, count: 1, length: 1, sentinel: 65535),
  .init("country", 36, .char, count: 2, length: 1, sentinel: 0),
  .init("air_quality", 38, .u16, count: 1, length: 1, sentinel: 0),
  .init("next_update", 40, .u16, count: 1, length: 1, sentinel: 0),
  .init("alerts", 42, .u8, count: 1, length: 1, sentinel: 0),
  .init("moon", 43, .u8, count: 1, length: 1, sentinel: 0),
  .init("precip_next_hour", 44, .u8, count: 1, length: 1, sentinel: 0),
  .init("reserved_45", 45, .u8, count: 3, length: 1, sentinel: nil),
  .init("name", 48, .utf8, count: 1, length: 48, sentinel: 0),
  .init("temperature", 96, .i16, count: 1, length: 1, sentinel: -32768),
  .init("feels_like", 98, .i16, count: 1, length: 1, sentinel: -32768),
  .init("dew_point", 100, .i16, count: 1, length: 1, sentinel: -32768),
  .init("pressure", 102, .u16, count: 1, length: 1, sentinel: 65535),
  .init("wind_speed", 104, .u16, count: 1, length: 1, sentinel: 65535),
  .init("wind_gust", 106, .u16, count: 1, length: 1, sentinel: 65535),
  .init("wind_direction", 108, .u16, count: 1, length: 1, sentinel: 65535),
  .init("visibility", 110, .u16, count: 1, length: 1, sentinel: 65535),
  .init("precipitation", 112, .u16, count: 1, length: 1, sentinel: 65535),
  .init("humidity", 114, .u8, count: 1, length: 1, sentinel: 255),
  .init("weather_code", 115, .u8, count: 1, length: 1, sentinel: 255),
  .init("cloud_cover", 116, .u8, count: 1, length: 1, sentinel: 255),
  .init("uv_index", 117, .u8, count: 1, length: 1, sentinel: 255),
  .init("reserved_118", 118, .u8, count: 2, length: 1, sentinel: nil),
  .init("sunrise", 120, .u32, count: 1, length: 1, sentinel: 0),
  .init("sunset", 124, .u32, count: 1, length: 1, sentinel: 0),
  .init("hourly_temperature", 128, .i16, count: 48, length: 1, sentinel: -32768),
  .init("hourly_precip_amount", 224, .u16, count: 48, length: 1, sentinel: 65535),
  .init("hourly_weather_code", 320, .u8, count: 48, length: 1, sentinel: 255),
  .init("hourly_precip_probability", 368, .u8, count: 48, length: 1, sentinel: 255),
  .init("hourly_wind_speed", 416, .u8, count: 48, length: 1, sentinel: 255),
  .init("hourly_wind_gust", 464, .u8, count: 48, length: 1, sentinel: 255),
  .init("daily_min", 512, .i16, count: 8, length: 1, sentinel: -32768),
  .init("daily_max", 528, .i16, count: 8, length: 1, sentinel: -32768),
  .init("daily_precip_sum", 544, .u16, count: 8, length: 1, sentinel: 65535),
  .init("daily_sunrise", 560, .u32, count: 8, length: 1, sentinel: 0),
  .init("daily_sunset", 592, .u32, count: 8, length: 1, sentinel: 0),
  .init("daily_weather_code", 624, .u8, count: 8, length: 1, sentinel: 255),
  .init("daily_precip_probability", 632, .u8, count: 8, length: 1, sentinel: 255),
  .init("daily_uv_max", 640, .u8, count: 8, length: 1, sentinel: 255),
  .init("daily_wind_max", 648, .u8, count: 8, length: 1, sentinel: 255),
  .init("daily_sun", 656, .u8, count: 8, length: 1, sentinel: 255),
  .init("minutely_start", 664, .u32, count: 1, length: 1, sentinel: 0),
  .init("minutely_precip", 668, .u8, count: 4, length: 1, sentinel: 255),
  .init("alert_onset", 672, .u32, count: 3, length: 1, sentinel: 0),
  .init("alert_end", 684, .u32, count: 3, length: 1, sentinel: 0),
  .init("alert_severity", 696, .u8, count: 3, length: 1, sentinel: 0),
  .init("reserved_699", 699, .u8, count: 1, length: 1, sentinel: nil),
  .init("alert_event", 700, .utf8, count: 3, length: 64, sentinel: 0),
  .init("reserved_892", 892, .u8, count: 64, length: 1, sentinel: nil),
  .init("crc32", 956, .u32, count: 1, length: 1, sentinel: nil),
]
/// schemas/frame-tiny.json, field by field.
let tinySpecFields: [ProfileSpecField] = [
  .init("magic", 0, .u8, count: 2, length: 1, sentinel: nil),
  .init("kind", 2, .u8, count: 1, length: 1, sentinel: nil),
  .init("status", 3, .u8, count: 1, length: 1, sentinel: nil),
  .init("request_id", 4, .u16, count: 1, length: 1, sentinel: nil),
  .init("slot_index", 6, .u8, count: 1, length: 1, sentinel: nil),
  .init("slot_count", 7, .u8, count: 1, length: 1, sentinel: nil),
  .init("fetched_at", 8, .u32, count: 1, length: 1, sentinel: 0),
  .init("next_update", 12, .u16, count: 1, length: 1, sentinel: 0),
  .init("temperature", 14, .i16, count: 1, length: 1, sentinel: -32768),
  .init("air_quality", 16, .u16, count: 1, length: 1, sentinel: 0),
  .init("weather_code", 18, .u8, count: 1, length: 1, sentinel: 255),
  .init("is_day", 19, .u8, count: 1, length: 1, sentinel: 255),
  .init("alerts", 20, .u8, count: 1, length: 1, sentinel: 0),
  .init("precip_next_hour", 21, .u8, count: 1, length: 1, sentinel: 0),
  .init("wind_speed", 22, .u8, count: 1, length: 1, sentinel: 255),
  .init("wind_gust", 23, .u8, count: 1, length: 1, sentinel: 255),
  .init("wind_direction", 24, .u8, count: 1, length: 1, sentinel: 255),
  .init("utc_offset_min", 25, .i8, count: 1, length: 1, sentinel: -128),
  .init("humidity", 26, .u8, count: 1, length: 1, sentinel: 255),
  .init("uv_index", 27, .u8, count: 1, length: 1, sentinel: 255),
  .init("daily_min", 28, .i8, count: 4, length: 1, sentinel: -128),
  .init("daily_max", 32, .i8, count: 4, length: 1, sentinel: -128),
  .init("daily_weather_code", 36, .u8, count: 4, length: 1, sentinel: 255),
  .init("daily_precip_probability", 40, .u8, count: 4, length: 1, sentinel: 255),
  .init("crc32", 44, .u32, count: 1, length: 1, sentinel: nil),
]

/// frame-profiles.md §4 (there is no JSON file for it).
let unchangedSpecFields: [ProfileSpecField] = [
  .init("magic", 0, .u8, count: 2, length: 1, sentinel: nil),
  .init("kind", 2, .u8, count: 1, length: 1, sentinel: nil),
  .init("profile", 3, .u8, count: 1, length: 1, sentinel: nil),
  .init("request_id", 4, .u16, count: 1, length: 1, sentinel: nil),
  .init("slot_index", 6, .u8, count: 1, length: 1, sentinel: nil),
  .init("slot_count", 7, .u8, count: 1, length: 1, sentinel: nil),
  .init("next_update", 8, .u16, count: 1, length: 1, sentinel: 0),
  .init("reserved_10", 10, .u8, count: 2, length: 1, sentinel: nil),
  .init("crc32", 12, .u32, count: 1, length: 1, sentinel: nil),
]

/// §1.1's kinds and sizes; §5's zeroed ranges (4-7, 20-27, 186-187 / 4-7, 20-27, 40-41 /
/// 4-7, 8-11, 12-13, as half-open ranges).
let standardProfileSpec = ProfileSpec(
  name: "standard", kind: 0x01, size: 192, fields: nil, zeroed: [(4, 8), (20, 28), (186, 188)])
let largeProfileSpec = ProfileSpec(
  name: "large", kind: 0x11, size: 960, fields: largeSpecFields,
  zeroed: [(4, 8), (20, 28), (40, 42), (664, 668)])
let tinyProfileSpec = ProfileSpec(
  name: "tiny", kind: 0x21, size: 48, fields: tinySpecFields, zeroed: [(4, 8), (8, 12), (12, 14)])
let unchangedProfileSpec = ProfileSpec(
  name: "unchanged", kind: 0x31, size: 16, fields: unchangedSpecFields, zeroed: nil)
let allProfileSpecs = [
  standardProfileSpec, largeProfileSpec, tinyProfileSpec, unchangedProfileSpec,
]

func profileSpec(kind: UInt8) -> ProfileSpec? { allProfileSpecs.first { $0.kind == kind } }
func profileSpec(size: Int) -> ProfileSpec? { allProfileSpecs.first { $0.size == size } }

// MARK: CRC-32 and the checks of §1.1

/// A byte-at-a-time table made from the bit-at-a-time definition (reflected 0xEDB88320), so that
/// 960-byte messages stay fast to check; equal to referenceCRC32 by construction (and checked).
let profileCRCTable: [UInt32] = (0..<256).map { byte in
  var crc = UInt32(byte)
  for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
  return crc
}

func profileCRC32<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
  var crc: UInt32 = 0xFFFF_FFFF
  for byte in bytes { crc = profileCRCTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
  return ~crc
}

/// The error codes, as FrameCheckError's raw values and the C header's SKYFRAME_ERR_*.
enum ProfileCheckCode {
  static let ok: Int8 = 0
  static let truncated: Int8 = -1
  static let tooLong: Int8 = -2
  static let badMagic: Int8 = -3
  static let unsupportedKind: Int8 = -4
  static let crc: Int8 = -5

  static func name(_ code: Int8) -> String {
    switch code {
    case ok: "ok"
    case truncated: "truncated"
    case tooLong: "tooLong"
    case badMagic: "badMagic"
    case unsupportedKind: "unsupportedKind"
    case crc: "checksumMismatch"
    default: "code \(code)"
    }
  }
}

/// A length error of a decoder that reads every message: §1.1 says only that the length must be
/// one it reads; truncated or too long is split as the header documents it (below or above the
/// size byte 2 names when the magic is right and the kind known, else below or above 960).
func profileLengthError(_ bytes: [UInt8]) -> Int8 {
  var size = 960
  if bytes.count >= 3, bytes[0] == 0x53, bytes[1] == 0x46, let spec = profileSpec(kind: bytes[2]) {
    size = spec.size
  }
  return bytes.count < size ? ProfileCheckCode.truncated : ProfileCheckCode.tooLong
}

/// frame-profiles.md §1.1 for a decoder that reads all four messages: length is one it reads,
/// magic, byte 2 the kind of that length, CRC, in that order.
func specMessageCheck(_ bytes: [UInt8]) -> Int8 {
  guard let spec = profileSpec(size: bytes.count) else { return profileLengthError(bytes) }
  return specChecks(bytes, spec)
}

/// §1.1 for a decoder that reads one message (the C header's skyframe_<profile>_decode).
func specDecoderCheck(_ bytes: [UInt8], _ spec: ProfileSpec) -> Int8 {
  if bytes.count < spec.size { return ProfileCheckCode.truncated }
  if bytes.count > spec.size { return ProfileCheckCode.tooLong }
  return specChecks(bytes, spec)
}

/// Magic, kind, CRC of bytes of the right length for `spec`.
private func specChecks(_ bytes: [UInt8], _ spec: ProfileSpec) -> Int8 {
  if bytes[0] != 0x53 || bytes[1] != 0x46 { return ProfileCheckCode.badMagic }
  if bytes[2] != spec.kind { return ProfileCheckCode.unsupportedKind }
  let stored = bytes.u32(spec.crcOffset)
  return stored == profileCRC32(bytes[0..<spec.crcOffset])
    ? ProfileCheckCode.ok : ProfileCheckCode.crc
}

/// The first `spec.size` bytes of `input` (zero-padded) made into a message every decoder
/// accepts: magic, kind and the CRC written over whatever the fuzzer put in the other bytes.
func sealedMessage<C: Collection>(_ input: C, _ spec: ProfileSpec) -> [UInt8]
where C.Element == UInt8 {
  var bytes = Array(input.prefix(spec.size))
  bytes += [UInt8](repeating: 0, count: spec.size - bytes.count)
  bytes[0] = 0x53
  bytes[1] = 0x46
  bytes[2] = spec.kind
  resealMessage(&bytes, spec)
  return bytes
}

func resealMessage(_ bytes: inout [UInt8], _ spec: ProfileSpec) {
  bytes.put32(profileCRC32(bytes[0..<spec.crcOffset]), at: spec.crcOffset)
}

/// §5: CRC-32 of the bytes before the CRC with the zeroed ranges taken as zero; nil for
/// unchanged. `bytes` holds at least spec.size bytes.
func specContentCheck(_ bytes: [UInt8], _ spec: ProfileSpec) -> UInt32? {
  guard let zeroed = spec.zeroed else { return nil }
  var copy = Array(bytes[0..<spec.crcOffset])
  for (from, to) in zeroed { for index in from..<to { copy[index] = 0 } }
  return profileCRC32(copy)
}
