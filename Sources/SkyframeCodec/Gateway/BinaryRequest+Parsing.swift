// The gateway's side of the binary request: recognizing and parsing it into a `DeviceRequest`,
// and writing one from a `DeviceRequest` (`RequestEncoder/BinaryRequest.swift` has the layout and
// the device side).

extension BinaryRequest {
  static func looksBinary(_ bytes: UnsafeRawBufferPointer) -> Bool {
    bytes.count >= 3 && bytes[0] == UInt8(ascii: "S") && bytes[1] == UInt8(ascii: "Q")
      && bytes[2] < 0x20 && !TextRequestParser.isSpace(bytes[2])
  }

  static func decode(_ bytes: UnsafeRawBufferPointer) throws(RequestError) -> DeviceRequest {
    guard bytes.count == size else { throw .wrongBinaryLength(count: bytes.count) }
    guard bytes[2] == version else { throw .unsupportedVersion(bytes[2]) }
    let stored = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 60, as: UInt32.self))
    let computed = CRC32.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<60]))
    guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }
    let id = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 4, as: UInt16.self))
    guard let kind = Kind(rawValue: bytes[3]) else { throw .unknownKind(bytes[3]) }
    guard let profile = FrameProfile(rawValue: bytes[6]) else { throw .unknownProfile(bytes[6]) }
    let hasCheck = bytes[7] & 1 != 0
    var checks = ContentChecks()
    if hasCheck {
      checks.append(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 56, as: UInt32.self)))
    }
    var request = try body(kind, bytes, nameCapacity: hasCheck ? 36 : PlaceName.capacityBytes)
    request.id = id
    // 0 is what every v1.0 request carries: "not said", so a refresh keeps its profile.
    request.profile = profile == .standard ? nil : profile
    request.checks = checks
    return request
  }

  private static func body(_ kind: Kind, _ bytes: UnsafeRawBufferPointer, nameCapacity: Int)
    throws(RequestError) -> DeviceRequest
  {
    let id: UInt16 = 0
    switch kind {
    case .refresh:
      return DeviceRequest(id: id, body: .refresh)
    case .coordinates:
      let latitude = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: Int32.self))
      let longitude = Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: 12, as: Int32.self))
      guard (-9_000_000...9_000_000).contains(latitude) else { throw .latitudeOutOfRange(slot: 0) }
      guard (-18_000_000...18_000_000).contains(longitude) else {
        throw .longitudeOutOfRange(slot: 0)
      }
      var list = LocationList()
      list.append(.coordinates(Coordinates(latitude: latitude, longitude: longitude)))
      return DeviceRequest(id: id, body: .locations(list))
    case .name:
      var length = 0
      while length < nameCapacity, bytes[20 + length] != 0 { length += 1 }
      guard length > 0 else { throw .emptyLocation(slot: 0) }
      let name = UnsafeRawBufferPointer(rebasing: bytes[20..<20 + length])
      try checkName(name)
      var country: CountryCode?
      if bytes[16] != 0 || bytes[17] != 0 {
        guard let code = CountryCode(bytes[16], bytes[17]) else { throw .badCountryCode(slot: 0) }
        country = code
      }
      var list = LocationList()
      list.append(.place(PlaceName(checkedBytes: name), country: country))
      return DeviceRequest(id: id, body: .locations(list))
    }
  }

  /// What the gateway accepts as the name field's text (`name`, the bytes before its first 0):
  /// valid UTF-8, no control characters, no space at either end. Offsets count from the start of
  /// the request, not of the name field.
  static func checkName(_ name: UnsafeRawBufferPointer) throws(RequestError) {
    do {
      try TextRequestParser.validateText(name)
    } catch {
      switch error {
      case .invalidUTF8(let offset): throw .invalidUTF8(offset: 20 + offset)
      case .controlCharacter(let offset): throw .controlCharacter(offset: 20 + offset)
      default: throw error
      }
    }
    let text = TextRequestParser.trimmed(name, 0, name.count)
    guard text == (0, name.count) else {
      throw .controlCharacter(offset: 20 + (text.start > 0 ? 0 : text.end))
    }
  }

  /// Writes `request` in the binary form into the first 64 bytes of `buffer`. The binary form
  /// carries one place: a request with several is `tooManyLocations`. A name the gateway would
  /// refuse is refused here with the error parsing would give (the buffer's bytes are then
  /// unspecified).
  public static func encode(_ request: DeviceRequest, into buffer: UnsafeMutableRawBufferPointer)
    throws(RequestError)
  {
    guard buffer.count >= size else { throw .wrongBinaryLength(count: buffer.count) }
    switch request.body {
    case .refresh:
      start(.refresh, id: request.id, buffer)
    case .locations(let list):
      guard list.count == 1 else { throw .tooManyLocations(count: list.count, maximum: 1) }
      switch list[0] {
      case .coordinates(let point):
        do throws(RequestEncodeError) {
          try writeCoordinates(
            latitude: point.latitude, longitude: point.longitude, id: request.id, into: buffer)
        } catch {
          throw error == .latitudeOutOfRange
            ? .latitudeOutOfRange(slot: 0) : .longitudeOutOfRange(slot: 0)
        }
      case .place(let name, let country):
        guard !name.isEmpty else { throw .emptyLocation(slot: 0) }
        // Beside a content check (bytes 56-59) the name field holds 36 bytes.
        if request.checks[0] != nil, name.count > 36 {
          throw .nameTooLong(slot: 0, bytes: name.count)
        }
        start(.name, id: request.id, buffer)
        buffer[16] = country?.first ?? 0
        buffer[17] = country?.second ?? 0
        name.write(to: buffer, at: 20)
        // Only what the gateway would accept: the same check as parsing, same error.
        try checkName(UnsafeRawBufferPointer(rebasing: buffer[20..<20 + name.count]))
      }
    }
    buffer[6] = request.profile?.rawValue ?? 0
    if let check = request.checks[0] {
      buffer[7] = 1
      buffer.storeBytes(of: check.littleEndian, toByteOffset: 56, as: UInt32.self)
    }
    seal(buffer)
  }

  public static func encoded(_ request: DeviceRequest) throws(RequestError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: size)
    var failure: RequestError?
    bytes.withUnsafeMutableBytes { buffer in
      do throws(RequestError) { try encode(request, into: buffer) } catch { failure = error }
    }
    if let failure { throw failure }
    return bytes
  }
}
