extension WeatherFrame {
  /// Writes the frame into the first 192 bytes of `buffer`: every field checked against its range,
  /// missing values as their sentinels, reserved bytes zero, the CRC-32 last. Allocates nothing.
  public func encode(into buffer: UnsafeMutableRawBufferPointer) throws(FrameError) {
    guard buffer.count >= Self.size else { throw .bufferTooSmall(count: buffer.count) }
    let out = FrameWriter(base: buffer)

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
    out.u8(try checked(hourlyStepHours, 0...24, .hourlyStep), .hourlyStep)

    out.i32(try checked(latitude, -9_000_000...9_000_000, .latitude), .latitude)
    out.i32(try checked(longitude, -18_000_000...18_000_000, .longitude), .longitude)
    out.u32(try checked(observedAt, .observedAt), .observedAt)
    out.u32(try checked(fetchedAt, .fetchedAt), .fetchedAt)
    out.u32(try checked(hourlyStart, .hourlyStart), .hourlyStart)
    out.i16(try checked(utcOffsetMinutes, -720...840, .utcOffset), .utcOffset)
    out.u16(try checked(dailyStart, 0...0xFFFE, .dailyStart), .dailyStart)
    out.u8(country?.first ?? 0, .country)
    out.u8(country?.second ?? 0, .country, 1)
    if let airQuality, airQuality.index > AirQuality.maximumIndex {
      throw .outOfRange(.airQuality, value: Int(airQuality.index))
    }
    out.u16(airQuality?.wire ?? 0, .airQuality)
    name.write(to: buffer, at: FrameField.name.offset)

    out.i16(try checked(current.temperature, Self.temperatureRange, .temperature), .temperature)
    out.i16(try checked(current.feelsLike, Self.temperatureRange, .feelsLike), .feelsLike)
    out.u16(try checked(current.pressure, 0...20_000, .pressure), .pressure)
    out.u16(try checked(current.windSpeed, 0...5_000, .windSpeed), .windSpeed)
    out.u16(try checked(current.windGust, 0...5_000, .windGust), .windGust)
    out.u16(try checked(current.windDirection, 0...359, .windDirection), .windDirection)
    out.u16(try checked(current.visibility, 0...0xFFFE, .visibility), .visibility)
    out.u16(try checked(current.precipitation, 0...0xFFFE, .precipitation), .precipitation)
    out.u8(try checked(current.humidity, 0...100, .humidity), .humidity)
    out.u8(try checked(current.weatherCode, Self.weatherCodeRange, .weatherCode), .weatherCode)
    out.u8(try checked(current.cloudCover, 0...100, .cloudCover), .cloudCover)
    out.u8(try checked(current.uvIndex, 0...250, .uvIndex), .uvIndex)
    out.u8(alerts?.wire ?? 0, .alerts)
    out.u8(moon?.wire ?? 0, .moon)
    if let minutes = precipitationNextHour?.minutesUntilChange, minutes > 60 {
      throw .outOfRange(.precipitationNextHour, value: Int(minutes))
    }
    out.u8(precipitationNextHour?.wire ?? 0, .precipitationNextHour)
    out.u8(0, .reserved87)
    out.u32(try checked(sunrise, .sunrise), .sunrise)
    out.u32(try checked(sunset, .sunset), .sunset)

    for index in 0..<Self.hourlyCount {
      let slot = hourly[index]
      out.i16(
        try checked(slot.temperature, Self.temperatureRange, .hourlyTemperature),
        .hourlyTemperature, index)
      out.u8(
        try checked(slot.weatherCode, Self.weatherCodeRange, .hourlyWeatherCode),
        .hourlyWeatherCode, index)
      out.u8(
        try checked(slot.precipitationProbability, 0...100, .hourlyPrecipitationProbability),
        .hourlyPrecipitationProbability, index)
    }
    for index in 0..<Self.dailyCount {
      let slot = daily[index]
      out.i16(try checked(slot.minimum, Self.temperatureRange, .dailyMinimum), .dailyMinimum, index)
      out.i16(try checked(slot.maximum, Self.temperatureRange, .dailyMaximum), .dailyMaximum, index)
      out.u8(
        try checked(slot.weatherCode, Self.weatherCodeRange, .dailyWeatherCode),
        .dailyWeatherCode, index)
      out.u8(
        try checked(slot.precipitationProbability, 0...100, .dailyPrecipitationProbability),
        .dailyPrecipitationProbability, index)
    }
    if nextUpdateSeconds == 0 { throw .outOfRange(.nextUpdate, value: 0) }
    out.u16(nextUpdateSeconds ?? 0, .nextUpdate)

    let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<FrameField.crc.offset]))
    out.u32(crc, .crc)
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

  /// −100.0 °C to +100.0 °C: beyond every temperature measured on Earth, with room to spare.
  static let temperatureRange: ClosedRange<Int16> = -1_000...1_000
  /// WMO code table 4677 runs from 0 to 99.
  static let weatherCodeRange: ClosedRange<UInt8> = 0...99
}

/// Sentinels: the all-ones pattern for unsigned fields, the most negative value for signed ones,
/// zero for times.
private func checked<T: FixedWidthInteger>(
  _ value: T?, _ range: ClosedRange<T>, _ field: FrameField
) throws(FrameError) -> T {
  guard let value else { return T.isSigned ? T.min : T.max }
  guard range.contains(value) else { throw .outOfRange(field, value: Int(value)) }
  return value
}

/// Times are Unix seconds; 0 means missing, so a time must be after 1970-01-01T00:00:00Z.
private func checked(_ value: UInt32?, _ field: FrameField) throws(FrameError) -> UInt32 {
  guard let value else { return 0 }
  guard value != 0 else { throw .outOfRange(field, value: 0) }
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
