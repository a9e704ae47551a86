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
  /// "missing" sentinel. Text fields (`name`, `country`) and `magic` read one byte per element.
  public func value(_ field: FrameField, at index: Int = 0) -> Int? {
    precondition(index >= 0 && index < field.count, "index within the field")
    return withBytes { bytes in
      let input = FrameReader(base: bytes)
      switch (field.elementSize, field.isSigned) {
      case (4, true): return present(Int(input.i32(field)), sentinel: Int(Int32.min))
      case (4, false):
        return present(Int(input.u32(field)), sentinel: field.isTime ? 0 : Int(UInt32.max))
      case (2, true): return present(Int(input.i16(field, index)), sentinel: Int(Int16.min))
      case (2, false): return present(Int(input.u16(field, index)), sentinel: Int(UInt16.max))
      default:
        return present(Int(input.u8(field, index)), sentinel: field.hasByteSentinel ? 0xFF : nil)
      }
    }
  }

  public var status: FrameStatus { FrameStatus(rawValue: UInt8(value(.status)!)) }
  public var requestID: UInt16 { UInt16(value(.requestID)!) }

  /// Every field, as `WeatherFrame(decoding:)` gives it.
  public var frame: WeatherFrame {
    withBytes { WeatherFrame(validated: $0) }
  }
}

@inline(__always) private func present(_ value: Int, sentinel: Int?) -> Int? {
  value == sentinel ? nil : value
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

  /// One-byte fields whose "missing" is 0xFF.
  var hasByteSentinel: Bool {
    switch self {
    case .isDay, .sun, .humidity, .weatherCode, .cloudCover, .uvIndex, .hourlyWeatherCode,
      .hourlyPrecipitationProbability, .dailyWeatherCode, .dailyPrecipitationProbability:
      true
    default: false
    }
  }
}
