extension WeatherFrame {
  /// Rewrites, in an encoded frame, what differs between two answers made from the same weather:
  /// the status, the request's id and slot, and the place as the device asked for it. Then seals
  /// the frame with a new CRC. The gateway caches one encoded frame per weather cell and answers a
  /// cache hit with a copy passed through this: no re-encoding, no allocation.
  ///
  /// - Precondition: `frame` holds an encoded frame (at least 192 bytes).
  public static func rewrite(
    _ frame: UnsafeMutableRawBufferPointer, status: FrameStatus, requestID: UInt16,
    slotIndex: UInt8,
    slotCount: UInt8, latitude: Int32?, longitude: Int32?, name: FrameName, country: CountryCode?,
    nextUpdateSeconds: UInt16 = 0
  ) {
    precondition(frame.count >= size, "a frame has 192 bytes")
    assert(slotIndex < slotCount)
    let out = FrameWriter(base: frame)
    out.u8(status.rawValue, .status)
    out.u16(requestID, .requestID)
    out.u8(slotIndex, .slotIndex)
    out.u8(max(slotCount, 1), .slotCount)
    out.i32(latitude.map { min(max($0, -9_000_000), 9_000_000) } ?? Int32.min, .latitude)
    out.i32(longitude.map { min(max($0, -18_000_000), 18_000_000) } ?? Int32.min, .longitude)
    out.u8(country?.first ?? 0, .country)
    out.u8(country?.second ?? 0, .country, 1)
    name.write(to: frame, at: FrameField.name.offset)
    out.u16(nextUpdateSeconds, .nextUpdate)
    seal(frame)
  }

  /// Writes the CRC-32 of the first 188 bytes into the last four.
  public static func seal(_ frame: UnsafeMutableRawBufferPointer) {
    let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: frame[0..<FrameField.crc.offset]))
    FrameWriter(base: frame).u32(crc, .crc)
  }
}
