import Foundation
import SkyframeCodec
import SkyframeWeather

/// A standard frame's values in human units (°C, hPa, m/s, degrees), nil for missing ones, for
/// the text report and the Home Assistant state. Its JSON is not this: every message is shown as
/// JSON off its layout table (`ProfileDocument`, `frame-profiles.md` §8), the v1.1 fields and the
/// sun by `FieldMeaning`, from the same codec types and names as here.
public struct FrameDocument: Equatable, Sendable {
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

  /// The air quality index and its scale.
  public struct AirQualityIndex: Equatable, Sendable {
    public var index: Int
    /// `european_aqi` or `us_aqi`.
    public var scale: String
  }

  /// Alerts in force and the worst of them.
  public struct Alerts: Equatable, Sendable {
    public var count: Int
    /// `none`, `unknown`, `minor`, `moderate`, `severe` or `extreme`.
    public var severity: String
  }

  /// The moon on the local date.
  public struct Moon: Equatable, Sendable {
    /// Fraction of the synodic month since new moon, as the frame carries it: (wire − 1) / 255.
    public var phase: Double
    /// One of the eight icons (frame-v1.md §5.7).
    public var name: String?
    /// The lit part of the disc, (1 − cos 2π·phase) / 2, in whole percent
    /// (`MoonPhase.illuminationPercent`).
    public var illuminationPercent: Int?
  }

  /// Precipitation now, and the minutes until it starts or stops (nil: no change within the
  /// hour).
  public struct NextHour: Equatable, Sendable {
    /// `dry` or `precipitation`.
    public var now: String
    public var changeInMinutes: Int?
  }

  public struct Current: Equatable, Sendable {
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
  }

  public struct Hour: Equatable, Sendable {
    public var temperature: Double?
    public var weatherCode: Int?
    public var precipitationProbability: Int?
  }

  public struct Day: Equatable, Sendable {
    public var minimum: Double?
    public var maximum: Double?
    public var weatherCode: Int?
    public var precipitationProbability: Int?
  }

  /// A status or service: its spec name, or its number when this version does not know it.
  public enum Label: Equatable, Sendable {
    case name(String)
    case number(Int)
  }
}

extension FrameDocument {
  public init(_ frame: WeatherFrame) {
    typealias S = StandardLayout
    status = Self.label(frame.status.rawValue, frame.status.name)
    requestID = Int(frame.requestID)
    slotIndex = Int(frame.slotIndex)
    slotCount = Int(frame.slotCount)
    service = Self.label(frame.service.rawValue, frame.service.name)
    latitude = human(frame.latitude, S.latitude)
    longitude = human(frame.longitude, S.longitude)
    name = frame.name.string
    country = frame.country?.string
    observedAt = frame.observedAt.map(Int.init)
    fetchedAt = frame.fetchedAt.map(Int.init)
    utcOffsetMinutes = frame.utcOffsetMinutes.map(Int.init)
    isDay = frame.isDay
    sun = frame.sun.map { "\($0.name)" }
    sunrise = frame.sunrise.map(Int.init)
    sunset = frame.sunset.map(Int.init)
    let now = frame.current
    current = Current(
      temperature: human(now.temperature, S.temperature),
      feelsLike: human(now.feelsLike, S.feelsLike),
      humidity: now.humidity.map(Int.init),
      pressure: human(now.pressure, S.pressure),
      windSpeed: human(now.windSpeed, S.windSpeed),
      windGust: human(now.windGust, S.windGust),
      windDirection: now.windDirection.map(Int.init),
      weatherCode: now.weatherCode.map(Int.init),
      cloudCover: now.cloudCover.map(Int.init),
      precipitation: human(now.precipitation, S.precipitation),
      uvIndex: human(now.uvIndex, S.uvIndex),
      visibility: now.visibility.map { Int(S.visibility.measure($0)) })
    hourlyStart = frame.hourlyStart.map(Int.init)
    hourlyStepHours = Int(frame.hourlyStepHours)
    hourly = (0..<WeatherFrame.hourlyCount).map { index in
      let slot = frame.hourly[index]
      return Hour(
        temperature: human(slot.temperature, S.hourlyTemperature),
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
        illuminationPercent: moon.illuminationPercent)
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
        minimum: human(slot.minimum, S.dailyMinimum),
        maximum: human(slot.maximum, S.dailyMaximum),
        weatherCode: slot.weatherCode.map(Int.init),
        precipitationProbability: slot.precipitationProbability.map(Int.init))
    }
  }

  static func label(_ raw: UInt8, _ name: StaticString?) -> Label {
    name.map { .name($0.description) } ?? .number(Int(raw))
  }
}

/// Wire integer → human value, in the row's unit (`LayoutField.measure`).
func human<T: FixedWidthInteger>(_ raw: T?, _ field: LayoutField) -> Double? {
  raw.map(field.measure)
}
