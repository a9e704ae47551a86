/// What a LoRaWAN device asks for in an uplink request (`schemas/lorawan-uplink-v1.md`;
/// `RequestEncoder/UplinkRequest.swift` has the layout and the device's writers).
public struct DeviceUplink: Sendable, Equatable {
  /// Echoed as the answer's `request_id`; 0 when the device sent none.
  public var id: UInt8
  public var body: Body
  /// The content check of the `tiny` frame the device shows, when it sent one.
  public var check: UInt32?

  public enum Body: Sendable, Equatable {
    /// A point, at the uplink's 0.01° (in the frame's 1e-5° unit: 52.52 is 5 252 000).
    case coordinates(Coordinates)
    /// One of the places configured for the device, from 0.
    case place(index: UInt8)
    /// The device's last request again.
    case refresh
  }

  public init(id: UInt8 = 0, body: Body, check: UInt32? = nil) {
    self.id = id
    self.body = body
    self.check = check
  }

  /// Parses an uplink's payload in the order of the spec's §3.1. Allocates nothing.
  ///
  /// - Parameter configuredPlaces: how many places the device has configured; a place index at
  ///   or beyond it is `placeNotConfigured`.
  public init(parsing bytes: UnsafeRawBufferPointer, configuredPlaces: Int) throws(UplinkError) {
    guard !bytes.isEmpty else { throw .tooShort(count: 0) }
    guard bytes.count <= UplinkRequest.linkLimit else { throw .tooLong(count: bytes.count) }
    let header = bytes[0]
    guard header >> 5 == UplinkRequest.version else { throw .unsupportedVersion(header >> 5) }
    guard let kind = UplinkRequest.Kind(rawValue: header & 0x0F) else {
      throw .unknownKind(header & 0x0F)
    }
    let hasCheck = header & UplinkRequest.checkFlag != 0
    let size = UplinkRequest.size(of: kind, withCheck: hasCheck)
    guard bytes.count >= size else { throw .tooShort(count: bytes.count) }
    guard bytes.count == size else { throw .tooLong(count: bytes.count) }
    id = bytes[1]
    check = hasCheck ? Self.u32(bytes, at: size &- 4) : nil
    switch kind {
    case .coordinates:
      let latitude = Int32(Int16(bitPattern: Self.u16(bytes, at: 2)))
      let longitude = Int32(Int16(bitPattern: Self.u16(bytes, at: 4)))
      guard (-9_000...9_000).contains(latitude) else { throw .latitudeOutOfRange }
      guard (-18_000...18_000).contains(longitude) else { throw .longitudeOutOfRange }
      body = .coordinates(Coordinates(latitude: latitude * 1000, longitude: longitude * 1000))
    case .place:
      let index = bytes[2]
      guard Int(index) < configuredPlaces else {
        throw .placeNotConfigured(index: index, count: max(configuredPlaces, 0))
      }
      body = .place(index: index)
    case .refresh:
      body = .refresh
    }
  }

  public init(parsing bytes: [UInt8], configuredPlaces: Int) throws(UplinkError) {
    var result: Result<DeviceUplink, UplinkError> = .failure(.tooShort(count: 0))
    bytes.withUnsafeBytes { buffer in
      do throws(UplinkError) {
        result = .success(try DeviceUplink(parsing: buffer, configuredPlaces: configuredPlaces))
      } catch { result = .failure(error) }
    }
    self = try result.get()
  }

  /// The request id an error answer echoes: byte 1 of a version-1 payload, else 0 (§3).
  public static func requestID(in bytes: UnsafeRawBufferPointer) -> UInt8 {
    guard bytes.count >= 2, bytes[0] >> 5 == UplinkRequest.version else { return 0 }
    return bytes[1]
  }

  private static func u16(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
    UInt16(bytes[offset]) | UInt16(bytes[offset &+ 1]) << 8
  }

  private static func u32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
    UInt32(u16(bytes, at: offset)) | UInt32(u16(bytes, at: offset &+ 2)) << 16
  }
}

/// Why an uplink's payload is not a request (`schemas/lorawan-uplink-v1.md` §4).
public enum UplinkError: Error, Equatable, Sendable {
  /// Empty, or fewer bytes than the header's kind (and check) need.
  case tooShort(count: Int)
  /// More than 11 bytes, or more than the header's kind (and check) need.
  case tooLong(count: Int)
  /// Header bits 7–5 are not 1.
  case unsupportedVersion(UInt8)
  /// Header bits 3–0 are not 1 (coordinates), 2 (place) or 3 (refresh).
  case unknownKind(UInt8)
  /// Outside ±90° (±9 000 in 0.01°).
  case latitudeOutOfRange
  /// Outside ±180° (±18 000 in 0.01°).
  case longitudeOutOfRange
  /// The device has `count` places configured, none with this index.
  case placeNotConfigured(index: UInt8, count: Int)

  /// The status of the `tiny` error frame that answers this error: the place is what is missing
  /// when the index is not configured, the request is malformed otherwise.
  public var frameStatus: FrameStatus {
    if case .placeNotConfigured = self { return .notFound }
    return .badRequest
  }
}

extension UplinkError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .tooShort(let count): "uplink of \(count) bytes is too short for its header"
    case .tooLong(let count): "uplink of \(count) bytes is too long for its header"
    case .unsupportedVersion(let version): "unsupported uplink version \(version), expected 1"
    case .unknownKind(let kind): "unknown uplink kind \(kind), expected 1, 2 or 3"
    case .latitudeOutOfRange: "latitude outside -90...90"
    case .longitudeOutOfRange: "longitude outside -180...180"
    case .placeNotConfigured(let index, let count):
      "place \(index) is not configured (the device has \(count))"
    }
  }
}
