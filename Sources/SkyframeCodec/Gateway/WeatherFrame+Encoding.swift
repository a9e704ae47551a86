extension WeatherFrame {
  /// Writes the frame into the first 192 bytes of `buffer`: every field checked against its range
  /// in `StandardLayout`, missing values as their sentinels, reserved bytes zero, the CRC-32 last.
  /// Allocates nothing.
  public func encode(into buffer: UnsafeMutableRawBufferPointer) throws(FrameError) {
    guard buffer.count >= Self.size else { throw .bufferTooSmall(count: buffer.count) }
    let out = FrameWriter(base: buffer)
    try encodeHeader(out)
    name.write(to: buffer, at: FrameField.name.offset)
    try encodeCurrent(out)
    try encodeForecast(out)
    if nextUpdateSeconds == 0 { throw .outOfRange(.nextUpdate, value: 0) }
    out.u16(nextUpdateSeconds ?? 0, .nextUpdate)
    let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<FrameField.crc.offset]))
    out.u32(crc, .crc)
  }

  /// Bytes 0–39: identification, position, times, country and air quality.
  @inline(__always) private func encodeHeader(_ out: FrameWriter) throws(FrameError) {
    out.u8(0x53, .magic)
    out.u8(0x46, .magic, 1)
    out.u8(Self.version, .version)
    out.u8(status.rawValue, .status)
    out.u16(requestID, .requestID)
    guard slotCount >= 1 else { throw .outOfRange(.slotCount, value: Int(slotCount)) }
    guard slotIndex < slotCount else { throw .outOfRange(.slotIndex, value: Int(slotIndex)) }
    out.u8(slotIndex, .slotIndex)
    out.u8(slotCount, .slotCount)
    out.u8(service.rawValue, .service)
    out.u8(isDay.map { $0 ? 1 : 0 } ?? 0xFF, .isDay)
    out.u8(sun?.rawValue ?? 0xFF, .sun)
    out.u8(try checked(hourlyStepHours, .hourlyStep), .hourlyStep)
    out.i32(try checked(latitude, .latitude), .latitude)
    out.i32(try checked(longitude, .longitude), .longitude)
    out.u32(try checked(observedAt, .observedAt), .observedAt)
    out.u32(try checked(fetchedAt, .fetchedAt), .fetchedAt)
    out.u32(try checked(hourlyStart, .hourlyStart), .hourlyStart)
    out.i16(try checked(utcOffsetMinutes, .utcOffset), .utcOffset)
    out.u16(try checked(dailyStart, .dailyStart), .dailyStart)
    out.u8(country?.first ?? 0, .country)
    out.u8(country?.second ?? 0, .country, 1)
    if let airQuality, airQuality.index > AirQuality.maximumIndex {
      throw .outOfRange(.airQuality, value: Int(airQuality.index))
    }
    out.u16(airQuality?.wire ?? 0, .airQuality)
  }

  /// Bytes 64–95: the current conditions, the summaries and the sun's times.
  @inline(__always) private func encodeCurrent(_ out: FrameWriter) throws(FrameError) {
    out.i16(try checked(current.temperature, .temperature), .temperature)
    out.i16(try checked(current.feelsLike, .feelsLike), .feelsLike)
    out.u16(try checked(current.pressure, .pressure), .pressure)
    out.u16(try checked(current.windSpeed, .windSpeed), .windSpeed)
    out.u16(try checked(current.windGust, .windGust), .windGust)
    out.u16(try checked(current.windDirection, .windDirection), .windDirection)
    out.u16(try checked(current.visibility, .visibility), .visibility)
    out.u16(try checked(current.precipitation, .precipitation), .precipitation)
    out.u8(try checked(current.humidity, .humidity), .humidity)
    out.u8(try checked(current.weatherCode, .weatherCode), .weatherCode)
    out.u8(try checked(current.cloudCover, .cloudCover), .cloudCover)
    out.u8(try checked(current.uvIndex, .uvIndex), .uvIndex)
    out.u8(alerts?.wire ?? 0, .alerts)
    out.u8(moon?.wire ?? 0, .moon)
    if let minutes = precipitationNextHour?.minutesUntilChange, minutes > 60 {
      throw .outOfRange(.precipitationNextHour, value: Int(minutes))
    }
    out.u8(precipitationNextHour?.wire ?? 0, .precipitationNextHour)
    out.u8(0, .reserved87)
    out.u32(try checked(sunrise, .sunrise), .sunrise)
    out.u32(try checked(sunset, .sunset), .sunset)
  }

  /// Bytes 96–185: the hourly and daily blocks.
  @inline(__always) private func encodeForecast(_ out: FrameWriter) throws(FrameError) {
    for index in 0..<Self.hourlyCount {
      let slot = hourly[index]
      out.i16(try checked(slot.temperature, .hourlyTemperature), .hourlyTemperature, index)
      out.u8(try checked(slot.weatherCode, .hourlyWeatherCode), .hourlyWeatherCode, index)
      out.u8(
        try checked(slot.precipitationProbability, .hourlyPrecipitationProbability),
        .hourlyPrecipitationProbability, index)
    }
    for index in 0..<Self.dailyCount {
      let slot = daily[index]
      out.i16(try checked(slot.minimum, .dailyMinimum), .dailyMinimum, index)
      out.i16(try checked(slot.maximum, .dailyMaximum), .dailyMaximum, index)
      out.u8(try checked(slot.weatherCode, .dailyWeatherCode), .dailyWeatherCode, index)
      out.u8(
        try checked(slot.precipitationProbability, .dailyPrecipitationProbability),
        .dailyPrecipitationProbability, index)
    }
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

/// The wire value of `value` for `field`: its sentinel when missing, else the value after checking
/// it against the field's range in `StandardLayout` (times start at 1: 0 means missing).
@inline(__always) private func checked<T: FixedWidthInteger>(
  _ value: T?, _ field: FrameField
) throws(FrameError) -> T {
  let layout = field.layout
  guard let value else { return T(truncatingIfNeeded: layout.sentinel ?? 0) }
  let wide = Int64(value)
  if let minimum = layout.minimum, wide < minimum {
    throw .outOfRange(field, value: Int(value))
  }
  if let maximum = layout.maximum, wide > maximum { throw .outOfRange(field, value: Int(value)) }
  return value
}

/// Little-endian stores at the offsets of `FrameField`; the caller checked the buffer's length.
struct FrameWriter {
  let base: UnsafeMutableRawBufferPointer

  @inline(__always) func u8(_ value: UInt8, _ field: FrameField, _ index: Int = 0) {
    base.storeBytes(of: value, toByteOffset: field.offset &+ index, as: UInt8.self)
  }
  @inline(__always) func u16(_ value: UInt16, _ field: FrameField, _ index: Int = 0) {
    base.storeBytes(
      of: value.littleEndian, toByteOffset: field.offset &+ index &* 2, as: UInt16.self)
  }
  @inline(__always) func i16(_ value: Int16, _ field: FrameField, _ index: Int = 0) {
    base.storeBytes(
      of: value.littleEndian, toByteOffset: field.offset &+ index &* 2, as: Int16.self)
  }
  @inline(__always) func u32(_ value: UInt32, _ field: FrameField) {
    base.storeBytes(of: value.littleEndian, toByteOffset: field.offset, as: UInt32.self)
  }
  @inline(__always) func i32(_ value: Int32, _ field: FrameField) {
    base.storeBytes(of: value.littleEndian, toByteOffset: field.offset, as: Int32.self)
  }
}
