import Foundation
import SkyframeCodec
import SkyframeWeather

/// A frame as JSON for people and tools, in human units (°C, hPa, m/s, degrees), `null` for
/// missing values. `skyframe decode --json` prints it, `skyframe encode` reads it, and the golden
/// vectors in `schemas/vectors/frames/` hold one per frame.
public struct FrameDocument: Codable, Equatable, Sendable {
  public var status: Label
  public var requestID: Int
  public var slotIndex: Int
  public var slotCount: Int
  public var service: Label
  public var latitude: Double?
  public var longitude: Double?
  public var name: String
  public var country: String?
  public var observedAt: Int?
  public var fetchedAt: Int?
  public var utcOffsetMinutes: Int?
  public var isDay: Bool?
  public var sun: String?
  public var sunrise: Int?
  public var sunset: Int?
  public var current: Current
  public var hourlyStart: Int?
  public var hourlyStepHours: Int
  public var hourly: [Hour]
  /// ISO date, e.g. "2024-01-15".
  public var dailyStart: String?
  public var daily: [Day]
  // v1.1; nil (absent) in every v1.0 frame.
  public var airQuality: AirQualityIndex?
  public var alerts: Alerts?
  public var moon: Moon?
  public var precipitationNextHour: NextHour?
  public var nextUpdateSeconds: Int?

  enum CodingKeys: String, CodingKey {
    case status, service, latitude, longitude, name, country, sun, sunrise, sunset, current
    case hourly, daily
    case requestID = "request_id"
    case slotIndex = "slot_index"
    case slotCount = "slot_count"
    case observedAt = "observed_at"
    case fetchedAt = "fetched_at"
    case utcOffsetMinutes = "utc_offset_min"
    case isDay = "is_day"
    case hourlyStart = "hourly_start"
    case hourlyStepHours = "hourly_step_h"
    case dailyStart = "daily_start"
    case airQuality = "air_quality"
    case alerts, moon
    case precipitationNextHour = "precip_next_hour"
    case nextUpdateSeconds = "next_update_s"
  }

  /// `{"index": 42, "scale": "us_aqi"}`.
  public struct AirQualityIndex: Codable, Equatable, Sendable {
    public var index: Int
    /// `european_aqi` or `us_aqi`.
    public var scale: String
  }

  /// `{"count": 2, "severity": "severe"}`: alerts in force and the worst of them.
  public struct Alerts: Codable, Equatable, Sendable {
    public var count: Int
    /// `none`, `unknown`, `minor`, `moderate`, `severe` or `extreme`.
    public var severity: String
  }

  /// `{"phase": 0.5, "name": "full_moon", "illumination_pct": 100}`; only `phase` is read back.
  public struct Moon: Codable, Equatable, Sendable {
    /// Fraction of the synodic month since new moon, as the frame carries it: (wire − 1) / 255.
    public var phase: Double
    /// One of the eight icons (frame-v1.md §5.7).
    public var name: String?
    /// The lit part of the disc, (1 − cos 2π·phase) / 2, in whole percent.
    public var illuminationPercent: Int?

    enum CodingKeys: String, CodingKey {
      case phase, name
      case illuminationPercent = "illumination_pct"
    }
  }

  /// `{"now": "dry", "change_in_min": 15}`: precipitation starts in 15 minutes; `null` minutes:
  /// no change within the hour.
  public struct NextHour: Codable, Equatable, Sendable {
    /// `dry` or `precipitation`.
    public var now: String
    public var changeInMinutes: Int?

    enum CodingKeys: String, CodingKey {
      case now
      case changeInMinutes = "change_in_min"
    }
  }

  public struct Current: Codable, Equatable, Sendable {
    public var temperature: Double?
    public var feelsLike: Double?
    public var humidity: Int?
    public var pressure: Double?
    public var windSpeed: Double?
    public var windGust: Double?
    public var windDirection: Int?
    public var weatherCode: Int?
    public var cloudCover: Int?
    public var precipitation: Double?
    public var uvIndex: Double?
    public var visibility: Int?

    enum CodingKeys: String, CodingKey {
      case temperature = "temperature_c"
      case feelsLike = "feels_like_c"
      case humidity = "humidity_pct"
      case pressure = "pressure_hpa"
      case windSpeed = "wind_speed_ms"
      case windGust = "wind_gust_ms"
      case windDirection = "wind_direction_deg"
      case weatherCode = "weather_code"
      case cloudCover = "cloud_cover_pct"
      case precipitation = "precipitation_mm"
      case uvIndex = "uv_index"
      case visibility = "visibility_m"
    }
  }

  public struct Hour: Codable, Equatable, Sendable {
    public var temperature: Double?
    public var weatherCode: Int?
    public var precipitationProbability: Int?

    enum CodingKeys: String, CodingKey {
      case temperature = "temperature_c"
      case weatherCode = "weather_code"
      case precipitationProbability = "precip_probability_pct"
    }
  }

  public struct Day: Codable, Equatable, Sendable {
    public var minimum: Double?
    public var maximum: Double?
    public var weatherCode: Int?
    public var precipitationProbability: Int?

    enum CodingKeys: String, CodingKey {
      case minimum = "min_c"
      case maximum = "max_c"
      case weatherCode = "weather_code"
      case precipitationProbability = "precip_probability_pct"
    }
  }

  /// A status or service: its spec name, or its number when this version does not know it.
  public enum Label: Codable, Equatable, Sendable {
    case name(String)
    case number(Int)

    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let number = try? container.decode(Int.self) {
        self = .number(number)
      } else {
        self = .name(try container.decode(String.self))
      }
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .name(let name): try container.encode(name)
      case .number(let number): try container.encode(number)
      }
    }
  }
}

extension FrameDocument {
  public init(_ frame: WeatherFrame) {
    status = Self.label(frame.status.rawValue, frame.status.name)
    requestID = Int(frame.requestID)
    slotIndex = Int(frame.slotIndex)
    slotCount = Int(frame.slotCount)
    service = Self.label(frame.service.rawValue, frame.service.name)
    latitude = human(frame.latitude, .latitude)
    longitude = human(frame.longitude, .longitude)
    name = frame.name.string
    country = frame.country?.string
    observedAt = frame.observedAt.map(Int.init)
    fetchedAt = frame.fetchedAt.map(Int.init)
    utcOffsetMinutes = frame.utcOffsetMinutes.map(Int.init)
    isDay = frame.isDay
    sun = frame.sun.map(Self.sunName)
    sunrise = frame.sunrise.map(Int.init)
    sunset = frame.sunset.map(Int.init)
    let now = frame.current
    current = Current(
      temperature: human(now.temperature, .temperature),
      feelsLike: human(now.feelsLike, .feelsLike),
      humidity: now.humidity.map(Int.init),
      pressure: human(now.pressure, .pressure),
      windSpeed: human(now.windSpeed, .windSpeed),
      windGust: human(now.windGust, .windGust),
      windDirection: now.windDirection.map(Int.init),
      weatherCode: now.weatherCode.map(Int.init),
      cloudCover: now.cloudCover.map(Int.init),
      precipitation: human(now.precipitation, .precipitation),
      uvIndex: human(now.uvIndex, .uvIndex),
      visibility: now.visibility.map { Int($0) * 10 })
    hourlyStart = frame.hourlyStart.map(Int.init)
    hourlyStepHours = Int(frame.hourlyStepHours)
    hourly = (0..<WeatherFrame.hourlyCount).map { index in
      let slot = frame.hourly[index]
      return Hour(
        temperature: human(slot.temperature, .hourlyTemperature),
        weatherCode: slot.weatherCode.map(Int.init),
        precipitationProbability: slot.precipitationProbability.map(Int.init))
    }
    dailyStart = frame.dailyStart.map { CivilDate(daysSinceEpoch: Int($0)).iso }
    airQuality = frame.airQuality.map {
      AirQualityIndex(index: Int($0.index), scale: $0.scale.name.description)
    }
    alerts = frame.alerts.map {
      Alerts(count: Int($0.count), severity: $0.highest.name.description)
    }
    moon = frame.moon.map { moon in
      Moon(
        phase: moon.fraction, name: moon.icon.name.description,
        illuminationPercent: Int((100 * (1 - cos(2 * Double.pi * moon.fraction)) / 2).rounded()))
    }
    precipitationNextHour = frame.precipitationNextHour.map {
      NextHour(
        now: $0.precipitatingNow ? "precipitation" : "dry",
        changeInMinutes: $0.minutesUntilChange.map(Int.init))
    }
    nextUpdateSeconds = frame.nextUpdateSeconds.map(Int.init)
    daily = (0..<WeatherFrame.dailyCount).map { index in
      let slot = frame.daily[index]
      return Day(
        minimum: human(slot.minimum, .dailyMinimum),
        maximum: human(slot.maximum, .dailyMaximum),
        weatherCode: slot.weatherCode.map(Int.init),
        precipitationProbability: slot.precipitationProbability.map(Int.init))
    }
  }

  /// The frame this document describes. Throws `DocumentError` naming the key whose value the
  /// frame cannot carry; the codec checks ranges when the frame is encoded.
  public func frame() throws(DocumentError) -> WeatherFrame {
    var frame = WeatherFrame()
    frame.status = FrameStatus(
      rawValue: try Self.number(
        status, "status", FrameStatus.allKnown.map { ($0.rawValue, $0.name) }))
    frame.requestID = try whole(requestID, "request_id")
    frame.slotIndex = try whole(slotIndex, "slot_index")
    frame.slotCount = try whole(slotCount, "slot_count")
    frame.service = WeatherService(
      rawValue: try Self.number(
        service, "service", WeatherService.allKnown.map { ($0.rawValue, $0.name) }))
    frame.latitude = try wire(latitude, .latitude, "latitude")
    frame.longitude = try wire(longitude, .longitude, "longitude")
    frame.name = FrameName(truncating: name)
    guard frame.name.string == name else {
      throw DocumentError(key: "name", value: name, allowed: "at most 24 bytes of UTF-8")
    }
    if let country {
      guard let code = CountryCode(country), code.string == country else {
        throw DocumentError(key: "country", value: country, allowed: "two capital letters or null")
      }
      frame.country = code
    }
    frame.observedAt = try optionalWhole(observedAt, "observed_at")
    frame.fetchedAt = try optionalWhole(fetchedAt, "fetched_at")
    frame.utcOffsetMinutes = try optionalWhole(utcOffsetMinutes, "utc_offset_min")
    frame.isDay = isDay
    if let sun {
      guard let state = SunState.allCases.first(where: { Self.sunName($0) == sun }) else {
        throw DocumentError(
          key: "sun", value: sun, allowed: "normal, polar_day, polar_night or null")
      }
      frame.sun = state
    }
    frame.sunrise = try optionalWhole(sunrise, "sunrise")
    frame.sunset = try optionalWhole(sunset, "sunset")

    frame.current = try current.conditions()
    try readForecast(into: &frame)
    try readV11Fields(into: &frame)
    return frame
  }

  /// The hourly and daily blocks, each of exactly the frame's count.
  private func readForecast(into frame: inout WeatherFrame) throws(DocumentError) {
    frame.hourlyStart = try optionalWhole(hourlyStart, "hourly_start")
    frame.hourlyStepHours = try whole(hourlyStepHours, "hourly_step_h")
    guard hourly.count == WeatherFrame.hourlyCount else {
      throw DocumentError(key: "hourly", value: "\(hourly.count) entries", allowed: "exactly 12")
    }
    for (index, hour) in hourly.enumerated() {
      let key = "hourly[\(index)]"
      frame.hourly[index] = WeatherFrame.HourlySlot(
        temperature: try wire(hour.temperature, .hourlyTemperature, key + ".temperature_c"),
        weatherCode: try optionalWhole(hour.weatherCode, key + ".weather_code"),
        precipitationProbability: try optionalWhole(
          hour.precipitationProbability, key + ".precip_probability_pct"))
    }
    if let dailyStart {
      guard let date = CivilDate(iso: dailyStart), (0...0xFFFE).contains(date.daysSinceEpoch) else {
        throw DocumentError(
          key: "daily_start", value: dailyStart, allowed: "a date YYYY-MM-DD from 1970")
      }
      frame.dailyStart = UInt16(date.daysSinceEpoch)
    }
    guard daily.count == WeatherFrame.dailyCount else {
      throw DocumentError(key: "daily", value: "\(daily.count) entries", allowed: "exactly 7")
    }
    for (index, day) in daily.enumerated() {
      let key = "daily[\(index)]"
      frame.daily[index] = WeatherFrame.DailySlot(
        minimum: try wire(day.minimum, .dailyMinimum, key + ".min_c"),
        maximum: try wire(day.maximum, .dailyMaximum, key + ".max_c"),
        weatherCode: try optionalWhole(day.weatherCode, key + ".weather_code"),
        precipitationProbability: try optionalWhole(
          day.precipitationProbability, key + ".precip_probability_pct"))
    }
  }

  private func readV11Fields(into frame: inout WeatherFrame) throws(DocumentError) {
    if let airQuality {
      guard
        let scale = AirQuality.Scale.allCases.first(where: {
          $0.name.description == airQuality.scale
        })
      else {
        throw DocumentError(
          key: "air_quality.scale", value: airQuality.scale, allowed: "european_aqi or us_aqi")
      }
      guard (0...Int(AirQuality.maximumIndex)).contains(airQuality.index) else {
        throw DocumentError(
          key: "air_quality.index", value: "\(airQuality.index)", allowed: "0...999")
      }
      frame.airQuality = AirQuality(index: UInt16(airQuality.index), scale: scale)
    }
    if let alerts {
      guard
        let severity = AlertSummary.Severity.allCases.first(where: {
          $0.name.description == alerts.severity
        })
      else {
        throw DocumentError(
          key: "alerts.severity", value: alerts.severity,
          allowed: "none, unknown, minor, moderate, severe or extreme")
      }
      guard alerts.count >= 0, (alerts.count == 0) == (severity == .none) else {
        throw DocumentError(
          key: "alerts.count", value: "\(alerts.count)",
          allowed: "0 with severity none, else at least 1")
      }
      frame.alerts = AlertSummary(count: UInt8(clamping: alerts.count), highest: severity)
    }
    if let moon {
      guard moon.phase.isFinite, (0..<1).contains(moon.phase) else {
        throw DocumentError(key: "moon.phase", value: "\(moon.phase)", allowed: "0 <= phase < 1")
      }
      frame.moon = MoonPhase(fraction: moon.phase)
    }
    if let next = precipitationNextHour {
      guard next.now == "dry" || next.now == "precipitation" else {
        throw DocumentError(
          key: "precip_next_hour.now", value: next.now, allowed: "dry or precipitation")
      }
      if let minutes = next.changeInMinutes, !(0...60).contains(minutes) {
        throw DocumentError(
          key: "precip_next_hour.change_in_min", value: "\(minutes)", allowed: "0...60 or null")
      }
      frame.precipitationNextHour = NextHourPrecipitation(
        precipitatingNow: next.now == "precipitation",
        minutesUntilChange: next.changeInMinutes.map { UInt8($0) })
    }
    if let seconds = nextUpdateSeconds {
      guard (1...65_535).contains(seconds) else {
        throw DocumentError(key: "next_update_s", value: "\(seconds)", allowed: "1...65535 or null")
      }
      frame.nextUpdateSeconds = UInt16(seconds)
    }
  }

  static func label(_ raw: UInt8, _ name: StaticString?) -> Label {
    name.map { .name($0.description) } ?? .number(Int(raw))
  }

  static func number(_ label: Label, _ key: String, _ known: [(UInt8, StaticString?)])
    throws(DocumentError) -> UInt8
  {
    switch label {
    case .number(let number):
      return try whole(number, key)
    case .name(let name):
      guard let match = known.first(where: { $0.1?.description == name }) else {
        let names = known.compactMap { $0.1?.description }.joined(separator: ", ")
        throw DocumentError(key: key, value: name, allowed: names + " or a number")
      }
      return match.0
    }
  }

  static func sunName(_ state: SunState) -> String {
    switch state {
    case .normal: "normal"
    case .polarDay: "polar_day"
    case .polarNight: "polar_night"
    }
  }
}

/// A JSON value a frame cannot carry, named by its key.
public struct DocumentError: Error, Equatable, CustomStringConvertible {
  public var key: String
  public var value: String
  public var allowed: String

  public var description: String { "\(key): \(value) is not allowed; expected \(allowed)" }
}

/// Wire integer → human value. Scales below 1 divide by their inverse, so 215 becomes exactly
/// 21.5 and 5252000 exactly 52.52 (multiplying by 0.1 would give 21.500000000000004).
func human<T: FixedWidthInteger>(_ raw: T?, _ field: FrameField) -> Double? {
  guard let raw else { return nil }
  return field.scale < 1 ? Double(raw) / (1 / field.scale).rounded() : Double(raw) * field.scale
}

/// Human value → wire integer, refusing values that are not a whole number of the field's steps.
func wire<T: FixedWidthInteger>(_ value: Double?, _ field: FrameField, _ key: String)
  throws(DocumentError) -> T?
{
  guard let value else { return nil }
  let steps = field.scale < 1 ? value * (1 / field.scale).rounded() : value / field.scale
  let rounded = steps.rounded()
  guard value.isFinite, abs(steps - rounded) < 1e-6, let integer = T(exactly: rounded) else {
    throw DocumentError(
      key: key, value: "\(value)",
      allowed: "a multiple of \(field.scale) \(field.unit) that fits the field")
  }
  return integer
}

func whole<T: FixedWidthInteger>(_ value: Int, _ key: String) throws(DocumentError) -> T {
  guard let integer = T(exactly: value) else {
    throw DocumentError(key: key, value: "\(value)", allowed: "\(T.min)...\(T.max)")
  }
  return integer
}

func optionalWhole<T: FixedWidthInteger>(_ value: Int?, _ key: String) throws(DocumentError) -> T? {
  guard let value else { return nil }
  return try whole(value, key) as T
}

extension FrameDocument.Current {
  /// The frame's current conditions; errors name the key under `current`.
  func conditions() throws(DocumentError) -> WeatherFrame.Current {
    var conditions = WeatherFrame.Current()
    conditions.temperature = try wire(temperature, .temperature, "current.temperature_c")
    conditions.feelsLike = try wire(feelsLike, .feelsLike, "current.feels_like_c")
    conditions.humidity = try optionalWhole(humidity, "current.humidity_pct")
    conditions.pressure = try wire(pressure, .pressure, "current.pressure_hpa")
    conditions.windSpeed = try wire(windSpeed, .windSpeed, "current.wind_speed_ms")
    conditions.windGust = try wire(windGust, .windGust, "current.wind_gust_ms")
    conditions.windDirection = try optionalWhole(
      windDirection, "current.wind_direction_deg")
    conditions.weatherCode = try optionalWhole(weatherCode, "current.weather_code")
    conditions.cloudCover = try optionalWhole(cloudCover, "current.cloud_cover_pct")
    conditions.precipitation = try wire(
      precipitation, .precipitation, "current.precipitation_mm")
    conditions.uvIndex = try wire(uvIndex, .uvIndex, "current.uv_index")
    conditions.visibility = try wire(
      visibility.map(Double.init), .visibility, "current.visibility_m")
    return conditions
  }
}
