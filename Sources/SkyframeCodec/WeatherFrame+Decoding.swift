extension WeatherFrame {
  /// Reads a frame from exactly 192 bytes, after checking length, magic, version and CRC-32, in that
  /// order. Values equal to a field's sentinel become `nil`; reserved bytes are ignored so that
  /// frames from a v1.x gateway still decode. Allocates nothing.
  public init(decoding bytes: UnsafeRawBufferPointer) throws(FrameError) {
    try Self.check(bytes)
    self.init(validated: bytes)
  }

  /// Length, magic, version and CRC-32, in that order: what every decoder checks first.
  static func check(_ bytes: UnsafeRawBufferPointer) throws(FrameError) {
    guard bytes.count >= size else { throw .truncated(count: bytes.count) }
    guard bytes.count == size else { throw .tooLong(count: bytes.count) }
    guard bytes[0] == 0x53, bytes[1] == 0x46 else { throw .badMagic(bytes[0], bytes[1]) }
    guard bytes[2] == version else { throw .unsupportedVersion(bytes[2]) }
    let stored = FrameReader(base: bytes).u32(.crc)
    let computed = CRC32.checksum(
      UnsafeRawBufferPointer(rebasing: bytes[0..<FrameField.crc.offset]))
    guard stored == computed else { throw .checksumMismatch(stored: stored, computed: computed) }
  }

  /// Reads every field of bytes `ValidatedFrame` has checked.
  init(validated bytes: UnsafeRawBufferPointer) {
    let input = FrameReader(base: bytes)
    self.init()
    status = FrameStatus(rawValue: input.u8(.status))
    requestID = input.u16(.requestID)
    slotIndex = input.u8(.slotIndex)
    slotCount = input.u8(.slotCount)
    service = WeatherService(rawValue: input.u8(.service))
    isDay =
      switch input.u8(.isDay) {
      case 0: false
      case 1: true
      default: nil
      }
    sun = SunState(rawValue: input.u8(.sun))
    hourlyStepHours = input.u8(.hourlyStep)
    latitude = present(input.i32(.latitude))
    longitude = present(input.i32(.longitude))
    observedAt = time(input.u32(.observedAt))
    fetchedAt = time(input.u32(.fetchedAt))
    hourlyStart = time(input.u32(.hourlyStart))
    utcOffsetMinutes = present(input.i16(.utcOffset))
    dailyStart = present(input.u16(.dailyStart))
    country = CountryCode(input.u8(.country), input.u8(.country, 1))
    name = FrameName(
      wireField: UnsafeRawBufferPointer(
        rebasing: bytes[FrameField.name.offset..<FrameField.name.offset + FrameField.name.size]))

    current.temperature = present(input.i16(.temperature))
    current.feelsLike = present(input.i16(.feelsLike))
    current.pressure = present(input.u16(.pressure))
    current.windSpeed = present(input.u16(.windSpeed))
    current.windGust = present(input.u16(.windGust))
    current.windDirection = present(input.u16(.windDirection))
    current.visibility = present(input.u16(.visibility))
    current.precipitation = present(input.u16(.precipitation))
    current.humidity = present(input.u8(.humidity))
    current.weatherCode = present(input.u8(.weatherCode))
    current.cloudCover = present(input.u8(.cloudCover))
    current.uvIndex = present(input.u8(.uvIndex))
    sunrise = time(input.u32(.sunrise))
    sunset = time(input.u32(.sunset))
    airQuality = AirQuality(wire: input.u16(.airQuality))
    alerts = AlertSummary(wire: input.u8(.alerts))
    moon = MoonPhase(wire: input.u8(.moon))
    precipitationNextHour = NextHourPrecipitation(wire: input.u8(.precipitationNextHour))
    nextUpdateSeconds = time16(input.u16(.nextUpdate))

    for index in 0..<Self.hourlyCount {
      hourly[index] = HourlySlot(
        temperature: present(input.i16(.hourlyTemperature, index)),
        weatherCode: present(input.u8(.hourlyWeatherCode, index)),
        precipitationProbability: present(input.u8(.hourlyPrecipitationProbability, index)))
    }
    for index in 0..<Self.dailyCount {
      daily[index] = DailySlot(
        minimum: present(input.i16(.dailyMinimum, index)),
        maximum: present(input.i16(.dailyMaximum, index)),
        weatherCode: present(input.u8(.dailyWeatherCode, index)),
        precipitationProbability: present(input.u8(.dailyPrecipitationProbability, index)))
    }
  }

  /// Reads a frame from an array of bytes.
  public init(decoding bytes: [UInt8]) throws(FrameError) {
    var result: Result<WeatherFrame, FrameError> = .failure(.truncated(count: 0))
    bytes.withUnsafeBytes { buffer in
      do throws(FrameError) { result = .success(try WeatherFrame(decoding: buffer)) } catch {
        result = .failure(error)
      }
    }
    self = try result.get()
  }
}

@inline(__always) private func present<T: FixedWidthInteger>(_ value: T) -> T? {
  value == (T.isSigned ? T.min : T.max) ? nil : value
}

@inline(__always) private func time(_ value: UInt32) -> UInt32? { value == 0 ? nil : value }

@inline(__always) private func time16(_ value: UInt16) -> UInt16? { value == 0 ? nil : value }

/// Little-endian loads at the offsets of `FrameField`; the caller checked the buffer's length.
struct FrameReader {
  let base: UnsafeRawBufferPointer

  @inline(__always) func u8(_ field: FrameField, _ index: Int = 0) -> UInt8 {
    base.loadUnaligned(fromByteOffset: field.offset &+ index, as: UInt8.self)
  }
  @inline(__always) func u16(_ field: FrameField, _ index: Int = 0) -> UInt16 {
    UInt16(
      littleEndian: base.loadUnaligned(fromByteOffset: field.offset &+ index &* 2, as: UInt16.self))
  }
  @inline(__always) func i16(_ field: FrameField, _ index: Int = 0) -> Int16 {
    Int16(
      littleEndian: base.loadUnaligned(fromByteOffset: field.offset &+ index &* 2, as: Int16.self))
  }
  @inline(__always) func u32(_ field: FrameField) -> UInt32 {
    UInt32(littleEndian: base.loadUnaligned(fromByteOffset: field.offset, as: UInt32.self))
  }
  @inline(__always) func i32(_ field: FrameField) -> Int32 {
    Int32(littleEndian: base.loadUnaligned(fromByteOffset: field.offset, as: Int32.self))
  }
}
