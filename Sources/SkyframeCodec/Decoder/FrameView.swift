/// Why bytes are not a frame, as the one byte a firmware keeps. The raw values are the C header's
/// `SKYFRAME_ERR_*` codes, so a mixed C and Swift firmware reports one set of numbers. The gateway's
/// `FrameError` says the same with the values involved (lengths, bytes, both CRCs).
public enum FrameCheckError: Int8, Error, Sendable {
  /// Fewer than 192 bytes (a receive buffer too small cuts a frame like this).
  case truncated = -1
  /// More than 192 bytes.
  case tooLong = -2
  /// The first two bytes are not "SF".
  case badMagic = -3
  /// A frame version this decoder does not read.
  case unsupportedVersion = -4
  /// The stored CRC-32 is not the one the other 188 bytes give.
  case checksumMismatch = -5
}

/// A checked frame read in place: the decode-only API for firmware.
///
/// `init(checking:)` checks the length, the magic "SF", the version and the CRC-32, in that order
/// (`schemas/frame-v1.md` §7), and keeps only the address of the bytes. Every property then reads
/// its field from them, little-endian and byte by byte, whatever the buffer's alignment. Nothing is
/// copied and nothing allocated; there are no strings or existentials here, so an Embedded Swift
/// firmware links only what it reads. Keep the bytes alive and unchanged while you use the view.
///
/// Values are in wire units (0.1 °C, 0.1 hPa, …, frame-v1.md §4). A field holding its "missing"
/// sentinel reads as nil. The gateway decodes through this same view (`WeatherFrame(decoding:)`).
public struct FrameView {
  /// Every frame, success or error, is exactly this long.
  public static let size = 192
  /// The frame version this decoder reads (v1.0 and v1.1 frames both carry 1).
  public static let version: UInt8 = 1
  /// Slots in the hourly block.
  public static let hourlyCount = 12
  /// Days in the daily block.
  public static let dailyCount = 7

  /// The first of the frame's 192 bytes.
  public let base: UnsafeRawPointer

  /// Checks `bytes` and views them; throws the first check that fails.
  public init(checking bytes: UnsafeRawBufferPointer) throws(FrameCheckError) {
    try Self.check(bytes)
    base = bytes.baseAddress!
  }

  /// Views 192 bytes without checking them: for bytes checked before, or written by an encoder.
  public init(unchecked base: UnsafeRawPointer) {
    self.base = base
  }

  /// Length, magic, version and CRC-32, in that order: what every decoder checks first.
  public static func check(_ bytes: UnsafeRawBufferPointer) throws(FrameCheckError) {
    guard bytes.count >= size else { throw .truncated }
    guard bytes.count == size else { throw .tooLong }
    let view = FrameView(unchecked: bytes.baseAddress!)
    guard view.u8(0) == 0x53, view.u8(1) == 0x46 else { throw .badMagic }
    guard view.u8(FrameField.version.offset) == version else { throw .unsupportedVersion }
    guard view.crc == view.computedCRC else { throw .checksumMismatch }
  }

  // MARK: Header

  /// Any byte; only `ok` and `stale` carry weather, and a status this version does not name is
  /// shown as its number.
  public var status: FrameStatus { FrameStatus(rawValue: u8(FrameField.status.offset)) }
  /// The request's id, echoed (0 when the device sent none). Every value is an id.
  public var requestID: UInt16 { u16(FrameField.requestID.offset) }
  /// Which of the request's places this frame answers, from 0.
  public var slotIndex: UInt8 { u8(FrameField.slotIndex.offset) }
  /// How many places the request named.
  public var slotCount: UInt8 { u8(FrameField.slotCount.offset) }
  public var service: WeatherService { WeatherService(rawValue: u8(FrameField.service.offset)) }
  /// Whether it is day at the place when observed.
  public var isDay: Bool? {
    switch u8(FrameField.isDay.offset) {
    case 0: false
    case 1: true
    default: nil
    }
  }
  public var sun: SunState? { SunState(rawValue: u8(FrameField.sun.offset)) }
  /// Hours between hourly slots; 0 with no hourly data.
  public var hourlyStepHours: UInt8 { u8(FrameField.hourlyStep.offset) }

  // MARK: Place and times

  /// 1e-5 degrees, north positive.
  public var latitude: Int32? { present(i32(FrameField.latitude.offset)) }
  /// 1e-5 degrees, east positive.
  public var longitude: Int32? { present(i32(FrameField.longitude.offset)) }
  /// Unix seconds.
  public var observedAt: UInt32? { time(u32(FrameField.observedAt.offset)) }
  /// When the gateway fetched the data, Unix seconds: the data's age.
  public var fetchedAt: UInt32? { time(u32(FrameField.fetchedAt.offset)) }
  /// Start of hourly slot 0, Unix seconds.
  public var hourlyStart: UInt32? { time(u32(FrameField.hourlyStart.offset)) }
  /// Minutes east of UTC.
  public var utcOffsetMinutes: Int16? { present(i16(FrameField.utcOffset.offset)) }
  /// The local date of `daily 0`, days since 1970-01-01.
  public var dailyStart: UInt16? { present(u16(FrameField.dailyStart.offset)) }
  /// Two ASCII letters, upper-cased; nil when the bytes are anything else (frame-v1.md §5.3).
  public var country: CountryCode? {
    CountryCode(u8(FrameField.country.offset), u8(FrameField.country.offset &+ 1))
  }
  /// The UTF-8 bytes of the place's name, up to its first 0 byte (at most 24), inside the frame's
  /// own buffer. They are shown as sent: check them before trusting them as UTF-8.
  public var name: UnsafeRawBufferPointer {
    let start = base + FrameField.name.offset
    var count = 0
    while count < FrameField.name.count, start.load(fromByteOffset: count, as: UInt8.self) != 0 {
      count &+= 1
    }
    return UnsafeRawBufferPointer(start: start, count: count)
  }
  /// Today's sunrise, Unix seconds.
  public var sunrise: UInt32? { time(u32(FrameField.sunrise.offset)) }
  /// Today's sunset, Unix seconds.
  public var sunset: UInt32? { time(u32(FrameField.sunset.offset)) }

  // MARK: Now

  /// 0.1 °C.
  public var temperature: Int16? { present(i16(FrameField.temperature.offset)) }
  /// Apparent temperature, 0.1 °C.
  public var feelsLike: Int16? { present(i16(FrameField.feelsLike.offset)) }
  /// Sea-level pressure, 0.1 hPa.
  public var pressure: UInt16? { present(u16(FrameField.pressure.offset)) }
  /// 0.1 m/s.
  public var windSpeed: UInt16? { present(u16(FrameField.windSpeed.offset)) }
  /// 0.1 m/s.
  public var windGust: UInt16? { present(u16(FrameField.windGust.offset)) }
  /// Degrees the wind comes from, 0 = north.
  public var windDirection: UInt16? { present(u16(FrameField.windDirection.offset)) }
  /// 10 m.
  public var visibility: UInt16? { present(u16(FrameField.visibility.offset)) }
  /// Last hour, 0.1 mm.
  public var precipitation: UInt16? { present(u16(FrameField.precipitation.offset)) }
  /// %.
  public var humidity: UInt8? { present(u8(FrameField.humidity.offset)) }
  /// WMO code (`schemas/wmo-codes.md`).
  public var weatherCode: UInt8? { present(u8(FrameField.weatherCode.offset)) }
  /// %.
  public var cloudCover: UInt8? { present(u8(FrameField.cloudCover.offset)) }
  /// UV index × 10.
  public var uvIndex: UInt8? { present(u8(FrameField.uvIndex.offset)) }

  // MARK: v1.1 (nil: absent, as in every v1.0 frame)

  public var airQuality: AirQuality? { AirQuality(wire: u16(FrameField.airQuality.offset)) }
  public var alerts: AlertSummary? { AlertSummary(wire: u8(FrameField.alerts.offset)) }
  public var moon: MoonPhase? { MoonPhase(wire: u8(FrameField.moon.offset)) }
  public var precipitationNextHour: NextHourPrecipitation? {
    NextHourPrecipitation(wire: u8(FrameField.precipitationNextHour.offset))
  }
  /// Seconds from sending until the gateway expects newer data.
  public var nextUpdateSeconds: UInt16? {
    let wire = u16(FrameField.nextUpdate.offset)
    return wire == 0 ? nil : wire
  }

  // MARK: Forecast blocks (index 0..<12 hourly, 0..<7 daily; another index traps)

  /// 0.1 °C.
  public func hourlyTemperature(_ index: Int) -> Int16? {
    present(i16(element(.hourlyTemperature, index)))
  }
  public func hourlyWeatherCode(_ index: Int) -> UInt8? {
    present(u8(element(.hourlyWeatherCode, index)))
  }
  /// %.
  public func hourlyPrecipitationProbability(_ index: Int) -> UInt8? {
    present(u8(element(.hourlyPrecipitationProbability, index)))
  }
  /// 0.1 °C.
  public func dailyMinimum(_ index: Int) -> Int16? { present(i16(element(.dailyMinimum, index))) }
  /// 0.1 °C.
  public func dailyMaximum(_ index: Int) -> Int16? { present(i16(element(.dailyMaximum, index))) }
  public func dailyWeatherCode(_ index: Int) -> UInt8? {
    present(u8(element(.dailyWeatherCode, index)))
  }
  /// %.
  public func dailyPrecipitationProbability(_ index: Int) -> UInt8? {
    present(u8(element(.dailyPrecipitationProbability, index)))
  }

  /// The CRC-32 stored in the last four bytes (equal CRCs: an identical frame, no redraw needed).
  public var crc: UInt32 { u32(FrameField.crc.offset) }

  /// The CRC-32 of the first 188 bytes.
  var computedCRC: UInt32 {
    CRC32.checksum(UnsafeRawBufferPointer(start: base, count: FrameField.crc.offset))
  }

  // MARK: Wire reads

  @inline(__always) func element(_ field: FrameField, _ index: Int) -> Int {
    precondition(index >= 0 && index < field.count, "index within the block")
    return field.offset &+ index &* field.elementSize
  }

  @inline(__always) func u8(_ offset: Int) -> UInt8 {
    base.load(fromByteOffset: offset, as: UInt8.self)
  }
  @inline(__always) func u16(_ offset: Int) -> UInt16 {
    UInt16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
  }
  @inline(__always) func i16(_ offset: Int) -> Int16 {
    Int16(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: Int16.self))
  }
  #if hasFeature(Embedded)
    // One call instead of a copy per field: a core without unaligned loads reads a 32-bit field
    // as four bytes, shifts and adds, 20 bytes of code each time on a Cortex-M0.
    @inline(never) func u32(_ offset: Int) -> UInt32 {
      UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
  #else
    @inline(__always) func u32(_ offset: Int) -> UInt32 {
      UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }
  #endif
  @inline(__always) func i32(_ offset: Int) -> Int32 { Int32(bitPattern: u32(offset)) }
}

/// nil for a numeric field's sentinel: the minimum of a signed type, the maximum of an unsigned one.
@inline(__always) func present<T: FixedWidthInteger>(_ value: T) -> T? {
  value == (T.isSigned ? T.min : T.max) ? nil : value
}

/// nil for a time field's sentinel, 0.
@inline(__always) func time(_ value: UInt32) -> UInt32? { value == 0 ? nil : value }
