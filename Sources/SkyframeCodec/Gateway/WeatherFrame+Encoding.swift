extension WeatherFrame {
  /// Writes the frame into the first 192 bytes of `buffer` through `ProfileWriter`: every field
  /// checked against its row of `StandardLayout`, missing values as their sentinels, reserved
  /// bytes zero, the CRC-32 last. Allocates nothing.
  public func encode(into buffer: UnsafeMutableRawBufferPointer) throws(FrameError) {
    guard buffer.count >= Self.size else { throw .bufferTooSmall(count: buffer.count) }
    // What one row's range cannot say: a slot within the count, and the v1.1 values' parts.
    if slotCount >= 1, slotIndex >= slotCount {
      throw .outOfRange(field: "\(StandardLayout.slotIndex.name)", value: Int(slotIndex))
    }
    if let airQuality, airQuality.index > AirQuality.maximumIndex {
      throw .outOfRange(
        field: "\(StandardLayout.airQuality.name)", value: Int(airQuality.index))
    }
    if let minutes = precipitationNextHour?.minutesUntilChange, minutes > 60 {
      throw .outOfRange(
        field: "\(StandardLayout.precipitationNextHour.name)", value: Int(minutes))
    }
    var writer = StandardRowWriter(out: ProfileWriter(buffer, kind: .standard))
    var values = self
    values.visitRows(&writer)
    try writer.out.seal()
  }

  /// The frame's 192 bytes in a new array.
  public func encoded() throws(FrameError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: Self.size)
    var failure: FrameError?
    bytes.withUnsafeMutableBytes { buffer in
      do throws(FrameError) { try encode(into: buffer) } catch { failure = error }
    }
    if let failure { throw failure }
    return bytes
  }
}
