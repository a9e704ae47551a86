/// The LoRaWAN uplink request v1 (`schemas/lorawan-uplink-v1.md`): at most 10 bytes, so that it
/// fits the 11 a payload may have at US915 DR0.
///
///     0  u8  header: version 1 (bits 7–5), a check ends the payload (bit 4), kind (bits 3–0)
///     1  u8  request id, echoed by the answer
///     2  …   kind 1: i16 latitude, i16 longitude in 0.01°; kind 2: u8 place index; kind 3: none
///     …  u32 with bit 4: the content check of the `tiny` frame the device shows
///
/// Little-endian, written byte by byte (a payload buffer has any alignment). The `write…`
/// functions are the device side and need nothing but this file and `RequestEncodeError`; the
/// gateway's parser is `DeviceUplink` in `Gateway/`.
public enum UplinkRequest {
  /// The longest request: coordinates with a check.
  public static let maximumSize = 10
  /// The most bytes a payload may have before its header is read (US915 DR0's limit).
  public static let linkLimit = 11
  public static let version: UInt8 = 1
  /// Header bit 4: the last 4 bytes are a content check.
  public static let checkFlag: UInt8 = 0x10

  public enum Kind: UInt8, Sendable {
    case coordinates = 1
    case place = 2
    case refresh = 3

    /// Bytes after the header and the request id.
    public var bodySize: Int {
      switch self {
      case .coordinates: 4
      case .place: 1
      case .refresh: 0
      }
    }
  }

  /// The payload's length for `kind`, with or without a check.
  public static func size(of kind: Kind, withCheck: Bool) -> Int {
    2 &+ kind.bodySize &+ (withCheck ? 4 : 0)
  }

  /// Writes a request for the weather at a point given in 1e-5 degrees (north and east
  /// positive, as `BinaryRequest.writeCoordinates` takes it), sent rounded half away from zero
  /// to 0.01°, the gateway's cache cell. Returns the number of bytes to send.
  @discardableResult
  public static func writeCoordinates(
    latitude: Int32, longitude: Int32, id: UInt8, check: UInt32?,
    into buffer: UnsafeMutableRawBufferPointer
  ) throws(RequestEncodeError) -> Int {
    guard buffer.count >= size(of: .coordinates, withCheck: check != nil) else {
      throw .bufferTooSmall
    }
    guard latitude >= -9_000_000, latitude <= 9_000_000 else { throw .latitudeOutOfRange }
    guard longitude >= -18_000_000, longitude <= 18_000_000 else { throw .longitudeOutOfRange }
    start(.coordinates, id: id, check: check, buffer)
    put(UInt16(bitPattern: hundredths(latitude)), at: 2, buffer)
    put(UInt16(bitPattern: hundredths(longitude)), at: 4, buffer)
    return finish(.coordinates, check: check, buffer)
  }

  /// Writes a request for one of the places configured for the device at the gateway.
  @discardableResult
  public static func writePlace(
    index: UInt8, id: UInt8, check: UInt32?, into buffer: UnsafeMutableRawBufferPointer
  ) throws(RequestEncodeError) -> Int {
    guard buffer.count >= size(of: .place, withCheck: check != nil) else { throw .bufferTooSmall }
    start(.place, id: id, check: check, buffer)
    buffer[2] = index
    return finish(.place, check: check, buffer)
  }

  /// Writes a request for the device's last place again.
  @discardableResult
  public static func writeRefresh(
    id: UInt8, check: UInt32?, into buffer: UnsafeMutableRawBufferPointer
  ) throws(RequestEncodeError) -> Int {
    guard buffer.count >= size(of: .refresh, withCheck: check != nil) else {
      throw .bufferTooSmall
    }
    start(.refresh, id: id, check: check, buffer)
    return finish(.refresh, check: check, buffer)
  }

  /// 1e-5° to 0.01°, half away from zero; the input is already within ±18 000 000.
  static func hundredths(_ value: Int32) -> Int16 {
    Int16(truncatingIfNeeded: (value &+ (value < 0 ? -500 : 500)) / 1000)
  }

  static func start(
    _ kind: Kind, id: UInt8, check: UInt32?, _ buffer: UnsafeMutableRawBufferPointer
  ) {
    buffer[0] = version << 5 | (check == nil ? 0 : checkFlag) | kind.rawValue
    buffer[1] = id
  }

  static func finish(_ kind: Kind, check: UInt32?, _ buffer: UnsafeMutableRawBufferPointer)
    -> Int
  {
    let body = 2 &+ kind.bodySize
    guard let check else { return body }
    put(UInt16(truncatingIfNeeded: check), at: body, buffer)
    put(UInt16(truncatingIfNeeded: check >> 16), at: body &+ 2, buffer)
    return body &+ 4
  }

  static func put(_ value: UInt16, at offset: Int, _ buffer: UnsafeMutableRawBufferPointer) {
    buffer[offset] = UInt8(truncatingIfNeeded: value)
    buffer[offset &+ 1] = UInt8(truncatingIfNeeded: value >> 8)
  }
}
