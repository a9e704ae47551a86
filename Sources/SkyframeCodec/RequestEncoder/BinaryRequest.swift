/// The fixed 64-byte binary form of request v1, for devices that would rather not format text:
///
///     0  u8[2] magic "SQ"        8  i32 latitude, 1e-5°     20 u8[40] name, UTF-8, zero padded
///     2  u8    version 1        12  i32 longitude, 1e-5°    60 u32 CRC-32 of bytes 0..<60
///     3  u8    kind             16  u8[2] country or 0 0
///     4  u16   request id       18  u8[2] reserved, 0
///     6  u8[2] reserved, 0
///
/// Kind 1 is coordinates, 2 a place name (with an optional country), 3 refresh. Little-endian.
/// Always exactly 64 bytes (a NUL after them makes 65, `wrongBinaryLength`); a text request, by
/// contrast, may end with one NUL, a C string's terminator (request-v1.md §2.2).
///
/// The `write…` functions are the device side: they build a request straight into the caller's
/// 64 bytes with a few dozen bytes of stack, and need only `Decoder/` (the CRC and `CountryCode`).
/// The gateway's side (parsing, and `encode` from a `DeviceRequest`) is in `Gateway/`.
public enum BinaryRequest {
  public static let size = 64
  public static let version: UInt8 = 1

  public enum Kind: UInt8, Sendable {
    case coordinates = 1
    case name = 2
    case refresh = 3
  }

  /// Writes a request for the weather at a point, in 1e-5 degrees (north and east positive).
  public static func writeCoordinates(
    latitude: Int32, longitude: Int32, id: UInt16, into buffer: UnsafeMutableRawBufferPointer
  ) throws(RequestEncodeError) {
    guard buffer.count >= size else { throw .bufferTooSmall }
    guard latitude >= -9_000_000, latitude <= 9_000_000 else { throw .latitudeOutOfRange }
    guard longitude >= -18_000_000, longitude <= 18_000_000 else { throw .longitudeOutOfRange }
    start(.coordinates, id: id, buffer)
    buffer.storeBytes(of: latitude.littleEndian, toByteOffset: 8, as: Int32.self)
    buffer.storeBytes(of: longitude.littleEndian, toByteOffset: 12, as: Int32.self)
    seal(buffer)
  }

  /// Writes a request for a place by name: 1–40 bytes of UTF-8 without control characters and
  /// without a space at either end (what the gateway accepts), with an optional country.
  public static func writePlace(
    _ name: UnsafeRawBufferPointer, country: CountryCode?, id: UInt16,
    into buffer: UnsafeMutableRawBufferPointer
  ) throws(RequestEncodeError) {
    guard buffer.count >= size else { throw .bufferTooSmall }
    let count = name.count
    guard count > 0, count <= nameCapacity else { throw .badName }
    guard name[0] != 0x20, name[count &- 1] != 0x20 else { throw .badName }
    var previous: UInt8 = 0
    for byte in name {
      // C0 controls and DEL; C1 controls are C2 80…C2 9F in UTF-8.
      guard byte >= 0x20, byte != 0x7F, !(previous == 0xC2 && byte < 0xA0) else { throw .badName }
      previous = byte
    }
    start(.name, id: id, buffer)
    if let country {
      buffer[16] = country.first
      buffer[17] = country.second
    }
    (buffer.baseAddress! + 20).copyMemory(from: name.baseAddress!, byteCount: count)
    seal(buffer)
  }

  /// Writes a request for the device's last place(s) again.
  public static func writeRefresh(id: UInt16, into buffer: UnsafeMutableRawBufferPointer)
    throws(RequestEncodeError)
  {
    guard buffer.count >= size else { throw .bufferTooSmall }
    start(.refresh, id: id, buffer)
    seal(buffer)
  }

  /// Bytes of the name field.
  static let nameCapacity = 40

  /// Asks for `profile` and, with `check`, sends the content check of the frame the device shows
  /// (`schemas/frame-profiles.md` §5, request-v1.md §3 bytes 6, 7 and 56–59), in a request the
  /// writers above just wrote; it is sealed again. A check in a place-name request needs the
  /// name's last 4 bytes: the name must be at most 36 bytes.
  public static func setOptions(
    profile: FrameProfile, check: UInt32?, in buffer: UnsafeMutableRawBufferPointer
  ) throws(RequestEncodeError) {
    guard buffer.count >= size else { throw .bufferTooSmall }
    buffer[6] = profile.rawValue
    if let check {
      for index in 56..<60 where buffer[index] != 0 { throw .badName }
      buffer[7] = 1
      buffer.storeBytes(of: check.littleEndian, toByteOffset: 56, as: UInt32.self)
    } else {
      buffer[7] = 0
    }
    seal(buffer)
  }

  /// Zeroes the 64 bytes and writes the magic, the version, the kind and the id.
  static func start(_ kind: Kind, id: UInt16, _ buffer: UnsafeMutableRawBufferPointer) {
    buffer.baseAddress!.initializeMemory(as: UInt8.self, repeating: 0, count: size)
    buffer[0] = UInt8(ascii: "S")
    buffer[1] = UInt8(ascii: "Q")
    buffer[2] = version
    buffer[3] = kind.rawValue
    buffer.storeBytes(of: id.littleEndian, toByteOffset: 4, as: UInt16.self)
  }

  /// Writes the CRC-32 of bytes 0..<60 into bytes 60..<64.
  static func seal(_ buffer: UnsafeMutableRawBufferPointer) {
    let crc = CRC32.checksum(UnsafeRawBufferPointer(start: buffer.baseAddress!, count: 60))
    buffer.storeBytes(of: crc.littleEndian, toByteOffset: 60, as: UInt32.self)
  }
}

/// Why a binary request could not be written: one byte, no description, for firmware. The gateway's
/// `RequestError` says the same with the details.
public enum RequestEncodeError: UInt8, Error, Sendable {
  /// The output buffer is shorter than 64 bytes.
  case bufferTooSmall = 1
  /// Outside −90…90 degrees.
  case latitudeOutOfRange
  /// Outside −180…180 degrees.
  case longitudeOutOfRange
  /// Empty, longer than 40 bytes, a control character, or a space at either end.
  case badName
}
