/// Something that walks a `WeatherFrame`'s values with their rows of `StandardLayout`: the
/// encoder stores each value in its field, the decoder reads each field into its value.
protocol StandardRowVisitor {
  /// Element `index` of `field` and the model's value for it (nil: missing).
  mutating func integer<T: FixedWidthInteger>(_ field: LayoutField, _ index: Int, _ value: inout T?)
  mutating func text(_ field: LayoutField, _ value: inout FrameName)
  mutating func country(_ field: LayoutField, _ value: inout CountryCode?)
}

/// A value the frame carries as a wire integer of its own (frame-v1.md §5.5–5.8), absent as 0.
protocol WireCoded {
  associatedtype Wire: FixedWidthInteger
  var wire: Wire { get }
  init?(wire: Wire)
}

extension AirQuality: WireCoded {}
extension AlertSummary: WireCoded {}
extension MoonPhase: WireCoded {}
extension NextHourPrecipitation: WireCoded {}

extension StandardRowVisitor {
  @inline(__always)
  mutating func integer<T: FixedWidthInteger>(_ field: LayoutField, _ value: inout T?) {
    integer(field, 0, &value)
  }

  /// A field that always holds a value (`request_id`, `slot_count`, …).
  @inline(__always)
  mutating func integer<T: FixedWidthInteger>(_ field: LayoutField, _ value: inout T) {
    var wire: T? = value
    integer(field, 0, &wire)
    value = wire ?? 0
  }

  /// A byte with named values; every byte is one (`status`, `service`).
  @inline(__always)
  mutating func byte<Code: RawRepresentable>(_ field: LayoutField, _ value: inout Code)
  where Code.RawValue == UInt8 {
    var wire: UInt8? = value.rawValue
    integer(field, 0, &wire)
    value = Code(rawValue: wire ?? 0) ?? value
  }

  /// A byte with named values; a byte that names none reads as missing (`sun`).
  @inline(__always)
  mutating func code<Code: RawRepresentable>(_ field: LayoutField, _ value: inout Code?)
  where Code.RawValue == UInt8 {
    var wire = value?.rawValue
    integer(field, 0, &wire)
    value = wire.flatMap(Code.init(rawValue:))
  }

  /// 1 for true, 0 for false; any other byte reads as missing (`is_day`).
  @inline(__always)
  mutating func flag(_ field: LayoutField, _ value: inout Bool?) {
    var wire: UInt8? = value.map { $0 ? 1 : 0 }
    integer(field, 0, &wire)
    value = wire.flatMap { $0 <= 1 ? $0 == 1 : nil }
  }

  @inline(__always)
  mutating func coded<Value: WireCoded>(_ field: LayoutField, _ value: inout Value?) {
    var wire = value?.wire
    integer(field, 0, &wire)
    value = wire.flatMap(Value.init(wire:))
  }
}

extension WeatherFrame {
  /// Each value of the model with its row, in wire order: the one place where the model and
  /// the table meet. The encoder and the decoder both walk it; a field the model gains is one
  /// line here and its row in `StandardLayout`. (`magic`, `version`, `reserved_87` and `crc32`
  /// are the writer's and the check's.)
  @inline(__always)
  mutating func visitRows<Visitor: StandardRowVisitor>(_ visitor: inout Visitor) {
    typealias S = StandardLayout
    visitor.byte(S.status, &status)
    visitor.integer(S.requestID, &requestID)
    visitor.integer(S.slotIndex, &slotIndex)
    visitor.integer(S.slotCount, &slotCount)
    visitor.byte(S.service, &service)
    visitor.flag(S.isDay, &isDay)
    visitor.code(S.sun, &sun)
    visitor.integer(S.hourlyStep, &hourlyStepHours)
    visitor.integer(S.latitude, &latitude)
    visitor.integer(S.longitude, &longitude)
    visitor.integer(S.observedAt, &observedAt)
    visitor.integer(S.fetchedAt, &fetchedAt)
    visitor.integer(S.hourlyStart, &hourlyStart)
    visitor.integer(S.utcOffset, &utcOffsetMinutes)
    visitor.integer(S.dailyStart, &dailyStart)
    visitor.country(S.country, &country)
    visitor.coded(S.airQuality, &airQuality)
    visitor.text(S.name, &name)
    visitor.integer(S.temperature, &current.temperature)
    visitor.integer(S.feelsLike, &current.feelsLike)
    visitor.integer(S.pressure, &current.pressure)
    visitor.integer(S.windSpeed, &current.windSpeed)
    visitor.integer(S.windGust, &current.windGust)
    visitor.integer(S.windDirection, &current.windDirection)
    visitor.integer(S.visibility, &current.visibility)
    visitor.integer(S.precipitation, &current.precipitation)
    visitor.integer(S.humidity, &current.humidity)
    visitor.integer(S.weatherCode, &current.weatherCode)
    visitor.integer(S.cloudCover, &current.cloudCover)
    visitor.integer(S.uvIndex, &current.uvIndex)
    visitor.coded(S.alerts, &alerts)
    visitor.coded(S.moon, &moon)
    visitor.coded(S.precipitationNextHour, &precipitationNextHour)
    visitor.integer(S.sunrise, &sunrise)
    visitor.integer(S.sunset, &sunset)
    for index in 0..<Self.hourlyCount {
      visitor.integer(S.hourlyTemperature, index, &hourly[index].temperature)
      visitor.integer(S.hourlyWeatherCode, index, &hourly[index].weatherCode)
      visitor.integer(
        S.hourlyPrecipitationProbability, index, &hourly[index].precipitationProbability)
    }
    for index in 0..<Self.dailyCount {
      visitor.integer(S.dailyMinimum, index, &daily[index].minimum)
      visitor.integer(S.dailyMaximum, index, &daily[index].maximum)
      visitor.integer(S.dailyWeatherCode, index, &daily[index].weatherCode)
      visitor.integer(
        S.dailyPrecipitationProbability, index, &daily[index].precipitationProbability)
    }
    visitor.integer(S.nextUpdate, &nextUpdateSeconds)
  }
}

/// Stores each value through `ProfileWriter`: range checked, missing as the sentinel.
struct StandardRowWriter: StandardRowVisitor {
  var out: ProfileWriter

  @inline(__always)
  mutating func integer<T: FixedWidthInteger>(_ field: LayoutField, _ index: Int, _ value: inout T?)
  {
    out.set(field, index, value)
  }

  @inline(__always) mutating func text(_ field: LayoutField, _ value: inout FrameName) {
    out.set(field, text: value)
  }

  @inline(__always) mutating func country(_ field: LayoutField, _ value: inout CountryCode?) {
    out.set(field, country: value)
  }
}

/// Reads each value through `ProfileView`: a sentinel is nil.
struct StandardRowReader: StandardRowVisitor {
  let view: ProfileView

  @inline(__always)
  mutating func integer<T: FixedWidthInteger>(_ field: LayoutField, _ index: Int, _ value: inout T?)
  {
    value = view.read(field, index)
  }

  @inline(__always) mutating func text(_ field: LayoutField, _ value: inout FrameName) {
    value = FrameName(wireField: view.text(field))
  }

  @inline(__always) mutating func country(_ field: LayoutField, _ value: inout CountryCode?) {
    value = view.country(field)
  }
}
