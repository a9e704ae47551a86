import SkyframeCodec

/// A series as bytes, for another cluster member (the shared cache carries it signed): integers
/// little-endian, counts before their rows, texts as a u16 length and UTF-8. Reading checks every
/// count and length against the bytes left and a bound of its own, so that no input, however
/// made, traps; a series that does not read is nil.
///
///     name (text), country (2 bytes, 0 0: none), latitude, longitude (f64 bits)
///     covered until (i64), hourly step hours (u8)
///     offsets: u8 count, each i64 from and i32 seconds
///     first step (i64), steps: u16 count, each 23 bytes (frame units, sentinels for missing)
///     hours: u16 count, each 16 bytes
///     days: u8 count, each 23 bytes
///     precipitation: u8 present, u16 count, each i64 start, i64 seconds, u8 has value, f64 mm
///     alerts: u8 present, u8 count, each u8 severity (0xFF none), i64 start, i64 end
///             (Int64.min: none), u8 has event, event (text)
extension ForecastSeries {
  public func encoded() -> [UInt8] {
    var out = ByteWriter()
    out.text(place.name)
    let country = Array((place.countryCode ?? "").utf8)
    out.bytes(country.count == 2 ? country : [0, 0])
    out.u64(place.latitude.bitPattern)
    out.u64(place.longitude.bitPattern)
    out.i64(coveredUntil)
    out.u8(UInt8(clamping: hourlyStepHours))
    out.u8(UInt8(clamping: offsets.count))
    for offset in offsets.prefix(255) {
      out.i64(offset.from)
      out.i32(Int32(clamping: offset.seconds))
    }
    out.i64(firstStep)
    out.u16(UInt16(clamping: steps.count))
    for step in steps.prefix(Int(UInt16.max)) {
      for value in [step.temperature, step.feelsLike, step.dewPoint] { out.i16(value) }
      for value in [
        step.pressure, step.windSpeed, step.windGust, step.windDirection, step.visibility,
        step.precipitation,
      ] { out.u16(value) }
      for value in [step.humidity, step.weatherCode, step.cloudCover, step.uvIndex, step.isDay] {
        out.u8(value)
      }
    }
    out.u16(UInt16(clamping: hours.count))
    for hour in hours.prefix(Int(UInt16.max)) {
      out.i64(hour.time)
      out.i16(hour.temperature)
      out.u16(hour.precipitation)
      for value in [
        hour.weatherCode, hour.precipitationProbability, hour.windSpeed, hour.windGust,
      ] { out.u8(value) }
    }
    out.u8(UInt8(clamping: days.count))
    for day in days.prefix(255) {
      out.i32(day.date)
      out.i16(Int16(packing: day.minimum))
      out.i16(Int16(packing: day.maximum))
      out.u16(UInt16(packing: day.precipitationSum))
      for value in [
        day.weatherCode, day.precipitationProbability, day.uvIndexMaximum, day.windSpeedMaximum,
      ] { out.u8(UInt8(packing: value)) }
      out.u8(day.sun?.rawValue ?? .missing)
      out.u32(day.sunrise ?? 0)
      out.u32(day.sunset ?? 0)
    }
    out.u8(precipitation == nil ? 0 : 1)
    let steps = precipitation ?? []
    out.u16(UInt16(clamping: steps.count))
    for step in steps.prefix(Int(UInt16.max)) {
      out.i64(step.start)
      out.i64(step.seconds)
      out.u8(step.millimetres == nil ? 0 : 1)
      out.u64((step.millimetres ?? 0).bitPattern)
    }
    out.u8(alerts == nil ? 0 : 1)
    let alerts = alerts ?? []
    out.u8(UInt8(clamping: alerts.count))
    for alert in alerts.prefix(255) {
      out.u8(alert.severity?.rawValue ?? .missing)
      out.i64(alert.start ?? .min)
      out.i64(alert.end ?? .min)
      out.u8(alert.event == nil ? 0 : 1)
      out.text(alert.event ?? "")
    }
    return out.bytes
  }

  /// The series `encoded()` wrote; nil for bytes that do not read as one (or have bytes left).
  public init?(decoding bytes: ArraySlice<UInt8>) {
    var input = ByteReader(bytes)
    guard let name = input.text(), let country = input.take(2),
      let latitude = input.u64().map(Double.init(bitPattern:)),
      let longitude = input.u64().map(Double.init(bitPattern:)),
      let coveredUntil = input.i64(), let hourlyStepHours = input.u8(),
      let offsetCount = input.u8(),
      let offsets = input.rows(
        Int(offsetCount), of: 12,
        { input in
          input.i64().flatMap { from in input.i32().map { (from: from, seconds: Int($0)) } }
        }),
      let firstStep = input.i64(),
      let stepCount = input.u16(), let steps = input.rows(Int(stepCount), of: 23, Step.init),
      let hourCount = input.u16(), let hours = input.rows(Int(hourCount), of: 16, Hour.init),
      let dayCount = input.u8(), let days = input.rows(Int(dayCount), of: 23, Day.init),
      let hasPrecipitation = input.u8(), let precipitationCount = input.u16(),
      let precipitation = input.rows(Int(precipitationCount), of: 25, Self.precipitationStep),
      let hasAlerts = input.u8(), let alertCount = input.u8(),
      let alerts = input.rows(Int(alertCount), of: 20, Self.alert)
    else { return nil }
    // Times a clock can show and offsets a place can have: no arithmetic on them can overflow.
    let times: ClosedRange<Int64> = 0...(1 << 40)
    func time(_ value: Int64?) -> Bool { value.map { times.contains($0) } ?? true }
    guard input.remaining == 0, !offsets.isEmpty, firstStep % 900 == 0, times.contains(firstStep),
      times.contains(coveredUntil), (0...24).contains(hourlyStepHours),
      offsets.allSatisfy({ times.contains($0.from) && abs($0.seconds) <= 18 * 3_600 }),
      hours.allSatisfy({ times.contains($0.time) }),
      precipitation.allSatisfy({ times.contains($0.start) && (1...86_400).contains($0.seconds) }),
      alerts.allSatisfy({ time($0.start) && time($0.end) })
    else { return nil }
    self.init(
      place: Forecast.Place(
        name: name,
        countryCode: country == [0, 0] ? nil : String(decoding: country, as: UTF8.self),
        latitude: latitude, longitude: longitude),
      coveredUntil: coveredUntil, hourlyStepHours: Int(hourlyStepHours), offsets: offsets,
      firstStep: firstStep, steps: steps, hours: hours, days: days,
      precipitation: hasPrecipitation == 1 ? precipitation : nil,
      alerts: hasAlerts == 1 ? alerts : nil)
  }

  private static func precipitationStep(_ input: inout ByteReader) -> Forecast.PrecipitationStep? {
    guard let start = input.i64(), let seconds = input.i64(), let hasValue = input.u8(),
      let millimetres = input.u64().map(Double.init(bitPattern:))
    else { return nil }
    return .init(start: start, seconds: seconds, millimetres: hasValue == 1 ? millimetres : nil)
  }

  private static func alert(_ input: inout ByteReader) -> Forecast.Alert? {
    guard let severity = input.u8(), let start = input.i64(), let end = input.i64(),
      let hasEvent = input.u8(), let event = input.text()
    else { return nil }
    return Forecast.Alert(
      severity: AlertSummary.Severity(rawValue: severity), start: start == .min ? nil : start,
      end: end == .min ? nil : end, event: hasEvent == 1 ? event : nil)
  }
}

extension ForecastSeries.Step {
  fileprivate init?(_ input: inout ByteReader) {
    guard let temperature = input.i16(), let feelsLike = input.i16(), let dewPoint = input.i16(),
      let pressure = input.u16(), let windSpeed = input.u16(), let windGust = input.u16(),
      let windDirection = input.u16(), let visibility = input.u16(),
      let precipitation = input.u16(), let humidity = input.u8(), let weatherCode = input.u8(),
      let cloudCover = input.u8(), let uvIndex = input.u8(), let isDay = input.u8()
    else { return nil }
    self.init(
      temperature: temperature, feelsLike: feelsLike, dewPoint: dewPoint, pressure: pressure,
      windSpeed: windSpeed, windGust: windGust, windDirection: windDirection,
      visibility: visibility, precipitation: precipitation, humidity: humidity,
      weatherCode: weatherCode, cloudCover: cloudCover, uvIndex: uvIndex, isDay: isDay)
  }
}

extension ForecastSeries.Hour {
  fileprivate init?(_ input: inout ByteReader) {
    guard let time = input.i64(), let temperature = input.i16(), let precipitation = input.u16(),
      let weatherCode = input.u8(), let probability = input.u8(), let windSpeed = input.u8(),
      let windGust = input.u8()
    else { return nil }
    self.init(
      time: time, temperature: temperature, precipitation: precipitation,
      weatherCode: weatherCode, precipitationProbability: probability, windSpeed: windSpeed,
      windGust: windGust)
  }
}

extension ForecastSeries.Day {
  fileprivate init?(_ input: inout ByteReader) {
    guard let date = input.i32(), let minimum = input.i16(), let maximum = input.i16(),
      let sum = input.u16(), let code = input.u8(), let probability = input.u8(),
      let uv = input.u8(), let wind = input.u8(), let sun = input.u8(),
      let sunrise = input.u32(), let sunset = input.u32()
    else { return nil }
    self.init(
      date: date, minimum: minimum.unpacked, maximum: maximum.unpacked,
      precipitationSum: sum.unpacked, weatherCode: code.unpacked,
      precipitationProbability: probability.unpacked, uvIndexMaximum: uv.unpacked,
      windSpeedMaximum: wind.unpacked, sun: SunState(rawValue: sun),
      sunrise: sunrise == 0 ? nil : sunrise, sunset: sunset == 0 ? nil : sunset)
  }
}

/// Little-endian integers and length-prefixed texts into a growing array.
private struct ByteWriter {
  var bytes: [UInt8] = []

  mutating func u8(_ value: UInt8) { bytes.append(value) }
  mutating func u16(_ value: UInt16) { append(value) }
  mutating func u32(_ value: UInt32) { append(value) }
  mutating func u64(_ value: UInt64) { append(value) }
  mutating func i16(_ value: Int16) { append(value) }
  mutating func i32(_ value: Int32) { append(value) }
  mutating func i64(_ value: Int64) { append(value) }
  mutating func bytes(_ values: [UInt8]) { bytes.append(contentsOf: values) }

  /// At most 1,024 bytes of UTF-8 (a name, an alert's event): longer is cut at a character.
  mutating func text(_ value: String) {
    var utf8 = Array(value.utf8)
    if utf8.count > 1_024 { utf8 = Array(String(decoding: utf8.prefix(1_024), as: UTF8.self).utf8) }
    while utf8.count > 1_024 { utf8.removeLast() }
    u16(UInt16(utf8.count))
    bytes.append(contentsOf: utf8)
  }

  private mutating func append<T: FixedWidthInteger>(_ value: T) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }
}

/// Reads what `ByteWriter` wrote; nil past the end.
private struct ByteReader {
  /// `count` rows of at least `size` bytes each, each read by `read`; nil when the bytes left
  /// cannot hold them (checked first: a count read from junk asks for no memory) or a row fails.
  mutating func rows<Row>(_ count: Int, of size: Int, _ read: (inout ByteReader) -> Row?)
    -> [Row]?
  {
    guard remaining >= count * size else { return nil }
    var rows: [Row] = []
    rows.reserveCapacity(count)
    for _ in 0..<count {
      guard let row = read(&self) else { return nil }
      rows.append(row)
    }
    return rows
  }

  private var bytes: ArraySlice<UInt8>

  init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

  var remaining: Int { bytes.count }

  mutating func take(_ count: Int) -> [UInt8]? {
    guard count >= 0, bytes.count >= count else { return nil }
    defer { bytes = bytes.dropFirst(count) }
    return Array(bytes.prefix(count))
  }

  mutating func u8() -> UInt8? { integer() }
  mutating func u16() -> UInt16? { integer() }
  mutating func u32() -> UInt32? { integer() }
  mutating func u64() -> UInt64? { integer() }
  mutating func i16() -> Int16? { integer() }
  mutating func i32() -> Int32? { integer() }
  mutating func i64() -> Int64? { integer() }

  mutating func text() -> String? {
    guard let length = u16(), length <= 1_024, let utf8 = take(Int(length)) else { return nil }
    return String(decoding: utf8, as: UTF8.self)
  }

  private mutating func integer<T: FixedWidthInteger>() -> T? {
    let size = MemoryLayout<T>.size
    guard bytes.count >= size else { return nil }
    var value: T = 0
    for (index, byte) in bytes.prefix(size).enumerated() {
      value |= T(truncatingIfNeeded: byte) << (8 * index)
    }
    bytes = bytes.dropFirst(size)
    return value
  }
}
