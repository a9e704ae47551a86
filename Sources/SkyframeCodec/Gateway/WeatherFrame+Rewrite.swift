extension WeatherFrame {
  /// Rewrites, in an encoded frame, what differs between two answers made from the same weather:
  /// the status, the request's id and slot, the place as the device asked for it and the next
  /// update hint; then the CRC. The gateway caches one encoded frame per weather cell and answers
  /// a cache hit with a copy passed through this: no re-encoding, no allocation.
  ///
  /// - Precondition: `frame` holds a sealed frame (at least 192 bytes, its CRC right): on a host
  ///   the new CRC is worked out from the old one and the bytes that changed.
  public static func rewrite(
    _ frame: UnsafeMutableRawBufferPointer, status: FrameStatus, requestID: UInt16,
    slotIndex: UInt8,
    slotCount: UInt8, latitude: Int32?, longitude: Int32?, name: FrameName, country: CountryCode?,
    nextUpdateSeconds: UInt16 = 0
  ) {
    precondition(frame.count >= size, "a frame has 192 bytes")
    assert(slotIndex < slotCount)
    #if hasFeature(Embedded)
      writeAnswerFields(
        frame, status: status, requestID: requestID, slotIndex: slotIndex, slotCount: slotCount,
        latitude: latitude, longitude: longitude, name: name, country: country,
        nextUpdateSeconds: nextUpdateSeconds)
      seal(frame)
    #else
      // Only the header up to the end of the name and `next_update` change. CRC-32 is linear:
      // for two messages of one length, crc(new) = crc(old) ^ crc₀(old ^ new), where crc₀ starts
      // from 0 and has no final XOR. So the new CRC costs the 64 header bytes of the difference
      // and a jump over the unchanged bytes between, not all 188 bytes.
      withUnsafeTemporaryAllocation(byteCount: changedHeader, alignment: 8) { difference in
        difference.copyMemory(from: UnsafeRawBufferPointer(rebasing: frame[0..<changedHeader]))
        let nextUpdateBefore = frame.loadUnaligned(
          fromByteOffset: nextUpdateOffset, as: UInt16.self)
        writeAnswerFields(
          frame, status: status, requestID: requestID, slotIndex: slotIndex,
          slotCount: slotCount, latitude: latitude, longitude: longitude, name: name,
          country: country, nextUpdateSeconds: nextUpdateSeconds)
        for offset in stride(from: 0, to: changedHeader, by: 8) {
          let after = frame.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
          let before = difference.load(fromByteOffset: offset, as: UInt64.self)
          difference.storeBytes(of: before ^ after, toByteOffset: offset, as: UInt64.self)
        }
        var register = CRC32.slicingBy16(0, UnsafeRawBufferPointer(difference))
        register = unchangedMiddle.skip(register)
        let nextUpdateDifference =
          nextUpdateBefore ^ frame.loadUnaligned(fromByteOffset: nextUpdateOffset, as: UInt16.self)
        register = withUnsafeBytes(of: nextUpdateDifference) { CRC32.slicingBy16(register, $0) }
        let crc = StandardLayout.crc.offset
        let stored = UInt32(littleEndian: frame.loadUnaligned(fromByteOffset: crc, as: UInt32.self))
        assert(
          stored ^ register == CRC32.checksum(UnsafeRawBufferPointer(rebasing: frame[0..<crc])),
          "rewrite needs a sealed frame: its CRC is carried over")
        frame.storeBytes(of: (stored ^ register).littleEndian, toByteOffset: crc, as: UInt32.self)
      }
    #endif
  }

  #if !hasFeature(Embedded)
    /// The bytes `rewrite` may change: the header through the name field (bytes 0..<64, a
    /// multiple of 8), and `next_update` (186–187) just before the CRC; from the rows, which the
    /// optimizer folds into constants. The assertion in `rewrite` checks them in every debug
    /// build, as the rewrite test does.
    static var changedHeader: Int { StandardLayout.name.offset &+ StandardLayout.name.length }
    static var nextUpdateOffset: Int { StandardLayout.nextUpdate.offset }
    private static let unchangedMiddle = CRC32.ZeroRun(count: nextUpdateOffset - changedHeader)
  #endif

  /// The fields of one answer, each within its row's range (a position clamped to it), through
  /// `ProfileWriter` on the frame as it is.
  private static func writeAnswerFields(
    _ frame: UnsafeMutableRawBufferPointer, status: FrameStatus, requestID: UInt16,
    slotIndex: UInt8, slotCount: UInt8, latitude: Int32?, longitude: Int32?, name: FrameName,
    country: CountryCode?, nextUpdateSeconds: UInt16
  ) {
    typealias S = StandardLayout
    var out = ProfileWriter(unsealed: frame, kind: .standard)
    out.set(S.status, status.rawValue)
    out.set(S.requestID, requestID)
    out.set(S.slotIndex, slotIndex)
    out.set(S.slotCount, max(slotCount, 1))
    out.set(S.latitude, latitude.map { S.latitude.clamp($0) })
    out.set(S.longitude, longitude.map { S.longitude.clamp($0) })
    out.set(S.country, country: country)
    out.set(S.name, text: name)
    out.set(S.nextUpdate, nextUpdateSeconds == 0 ? nil : nextUpdateSeconds)
    assert(out.outOfRange == nil, "every answer field within its range")
  }

  /// Writes the CRC-32 of the first 188 bytes into the last four.
  public static func seal(_ frame: UnsafeMutableRawBufferPointer) {
    ProfileWriter.seal(frame, kind: .standard)
  }
}
