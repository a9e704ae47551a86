/// A frame whose length, magic, version and CRC-32 were checked, kept as its 192 wire bytes and
/// read field by field on demand: the zero-copy way to decode, for code that looks at a few
/// fields (a display drawing the current temperature, the gateway checking a status). `frame`
/// materializes every field into a `WeatherFrame`.
public struct ValidatedFrame: Sendable {
  private var storage: InlineArray<192, UInt8>

  /// Checks `bytes` as `WeatherFrame(decoding:)` does, in the same order with the same errors,
  /// and keeps a copy of them. Allocates nothing.
  public init(decoding bytes: UnsafeRawBufferPointer) throws(FrameError) {
    try WeatherFrame.check(bytes)
    storage = InlineArray(repeating: 0)
    withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
  }

  /// Calls `body` with the frame's 192 bytes.
  public func withBytes<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
    withUnsafeBytes(of: storage) { body($0) }
  }

  /// The wire value of `field` (element `index` of an array field), nil when it is the field's
  /// "missing" sentinel (`FrameField.sentinel`; fields without one, such as `request_id` and the
  /// CRC, are never nil). Text fields (`name`, `country`) and `magic` read one byte per element.
  public func value(_ field: FrameField, at index: Int = 0) -> Int? {
    precondition(index >= 0 && index < field.count, "index within the field")
    return withBytes { bytes in
      let input = FrameReader(base: bytes)
      let wire: Int
      switch (field.elementSize, field.isSigned) {
      case (4, true): wire = Int(input.i32(field))
      case (4, false): wire = Int(input.u32(field))
      case (2, true): wire = Int(input.i16(field, index))
      case (2, false): wire = Int(input.u16(field, index))
      default: wire = Int(input.u8(field, index))
      }
      return wire == field.sentinel ? nil : wire
    }
  }

  public var status: FrameStatus { FrameStatus(rawValue: UInt8(value(.status)!)) }
  public var requestID: UInt16 { UInt16(value(.requestID)!) }

  /// Every field, as `WeatherFrame(decoding:)` gives it.
  public var frame: WeatherFrame {
    withBytes { WeatherFrame(validated: $0) }
  }
}

extension FrameField {
  /// Whether the wire integer is signed (two's complement).
  public var isSigned: Bool {
    switch self {
    case .latitude, .longitude, .utcOffset, .temperature, .feelsLike, .hourlyTemperature,
      .dailyMinimum, .dailyMaximum:
      true
    default: false
    }
  }

  /// Unix times, whose "missing" is 0.
  var isTime: Bool {
    switch self {
    case .observedAt, .fetchedAt, .hourlyStart, .sunrise, .sunset: true
    default: false
    }
  }

  /// The wire value that means "missing" (frame-v1.md §4, the `sentinel` column of
  /// `frame-v1.json`); nil for fields that always carry a value (`request_id`, `crc32`, …).
  /// Text fields (`name`, `country`) end at a 0 byte.
  public var sentinel: Int? {
    switch self {
    case .magic, .version, .status, .requestID, .slotIndex, .slotCount, .service, .hourlyStep,
      .reserved87, .crc:
      nil
    case .isDay, .sun, .humidity, .weatherCode, .cloudCover, .uvIndex, .hourlyWeatherCode,
      .hourlyPrecipitationProbability, .dailyWeatherCode, .dailyPrecipitationProbability:
      0xFF
    case .latitude, .longitude: Int(Int32.min)
    case .utcOffset, .temperature, .feelsLike, .hourlyTemperature, .dailyMinimum, .dailyMaximum:
      Int(Int16.min)
    case .dailyStart, .pressure, .windSpeed, .windGust, .windDirection, .visibility,
      .precipitation:
      Int(UInt16.max)
    case .observedAt, .fetchedAt, .hourlyStart, .sunrise, .sunset, .country, .name, .airQuality,
      .alerts, .moon, .precipitationNextHour, .nextUpdate:
      0
    }
  }
}
