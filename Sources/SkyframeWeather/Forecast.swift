import Foundation
import SkyframeCodec

/// The weather for one place as every service is mapped onto it: SI units, Unix seconds, WMO
/// codes, and `nil` wherever the service said nothing.
public struct Forecast: Sendable, Equatable, Codable {
  public var place: Place
  /// The place's offset from UTC in seconds at the time of the forecast.
  public var utcOffsetSeconds: Int
  public var current: Current
  /// Hourly points, in time order; the first may lie in the past.
  public var hourly: [Hour]
  /// Hours between consecutive hourly points (1, or 3 for OpenWeatherMap's forecast).
  public var hourlyStepHours: Int
  /// Daily points, in date order, starting at or before today.
  public var daily: [Day]
  /// Precipitation in short steps (Open-Meteo's 15 minutes, One Call's minute) from now on, in
  /// time order; nil when the service has none.
  public var precipitationSteps: [PrecipitationStep]?
  /// Weather alerts the service reported (those in force and those to come); empty: none; nil:
  /// the service (or the configuration) says nothing about alerts.
  public var alerts: [Alert]?
  /// Unix seconds before which the service has no newer data and must not be asked again (MET
  /// Norway's `Expires`); nil when the service says nothing. The gateway keeps the frame fresh
  /// at least until then.
  public var validUntil: Int64?
  /// The current conditions at each 15-minute step from the present one on (Open-Meteo's
  /// `minutely_15` of every current variable, each at the start of its step), for composing later
  /// frames from the same run (`ForecastSeries`); nil when the service gave none.
  public var currentSteps: [Current]?
  /// The place's IANA time zone (`Europe/Berlin`) when the service names it: it says when the
  /// offset from UTC changes.
  public var timeZone: String?

  public init(
    place: Place, utcOffsetSeconds: Int, current: Current, hourly: [Hour], hourlyStepHours: Int = 1,
    daily: [Day], precipitationSteps: [PrecipitationStep]? = nil, alerts: [Alert]? = nil
  ) {
    self.precipitationSteps = precipitationSteps
    self.alerts = alerts
    self.place = place
    self.utcOffsetSeconds = utcOffsetSeconds
    self.current = current
    self.hourly = hourly
    self.hourlyStepHours = hourlyStepHours
    self.daily = daily
  }

  /// One weather alert: how severe (CAP), and when it is in force.
  public struct Alert: Sendable, Equatable, Codable {
    /// nil when the service does not say (many non-US agencies, OpenWeatherMap).
    public var severity: AlertSummary.Severity?
    public var start: Int64?
    public var end: Int64?
    /// The service's event name ("Flood Warning"); nil when it gives none.
    public var event: String?

    public init(
      severity: AlertSummary.Severity?, start: Int64?, end: Int64?, event: String? = nil
    ) {
      self.severity = severity
      self.start = start
      self.end = end
      self.event = event
    }

    /// The CAP severity word (`Extreme`, `Severe`, `Moderate`, `Minor`, `Unknown`), any case;
    /// nil for anything else.
    public static func severity(cap text: String?) -> AlertSummary.Severity? {
      switch text?.trimmingCharacters(in: .whitespaces).lowercased() {
      case "extreme": .extreme
      case "severe": .severe
      case "moderate": .moderate
      case "minor": .minor
      case "unknown": .unknown
      default: nil
      }
    }

    /// `alerts` without repeats: an alert equal to one before it (the same event, severity and
    /// times, listed twice by the service) is left out, so that it counts once.
    public static func distinct(_ alerts: [Alert]) -> [Alert] {
      var kept: [Alert] = []
      for alert in alerts where !kept.contains(alert) { kept.append(alert) }
      return kept
    }

    public func isInForce(at time: Int64) -> Bool {
      (start.map { $0 <= time } ?? true) && (end.map { time < $0 } ?? true)
    }
  }

  /// Precipitation over `[start, start + seconds)`.
  public struct PrecipitationStep: Sendable, Equatable, Codable {
    public var start: Int64
    public var seconds: Int64
    /// Millimetres in the step; nil when the service gave no value.
    public var millimetres: Double?

    public init(start: Int64, seconds: Int64, millimetres: Double?) {
      self.start = start
      self.seconds = seconds
      self.millimetres = millimetres
    }

    /// At least 0.4 mm/h: 0.1 mm in 15 minutes (frame-v1.md §5.8).
    public var isWet: Bool? {
      guard let millimetres, millimetres.isFinite, seconds > 0 else { return nil }
      return millimetres * 3_600 / Double(seconds) >= 0.4 - 1e-9
    }
  }

  public struct Place: Sendable, Equatable, Codable {
    public var name: String
    /// ISO 3166-1 alpha-2, e.g. "DE".
    public var countryCode: String?
    public var latitude: Double
    public var longitude: Double

    public init(name: String, countryCode: String?, latitude: Double, longitude: Double) {
      self.name = name
      self.countryCode = countryCode
      self.latitude = latitude
      self.longitude = longitude
    }
  }

  public struct Current: Sendable, Equatable, Codable {
    /// Unix seconds.
    public var time: Int64?
    /// °C.
    public var temperature: Double?
    /// °C.
    public var apparentTemperature: Double?
    /// %.
    public var relativeHumidity: Double?
    /// Sea-level pressure, hPa.
    public var pressure: Double?
    /// m/s.
    public var windSpeed: Double?
    /// m/s.
    public var windGusts: Double?
    /// Degrees the wind comes from.
    public var windDirection: Double?
    /// WMO code.
    public var weatherCode: Int?
    public var isDay: Bool?
    /// %.
    public var cloudCover: Double?
    /// Last hour, mm.
    public var precipitation: Double?
    public var uvIndex: Double?
    /// Metres.
    public var visibility: Double?
    /// Dew point at 2 m, °C (the `large` profile).
    public var dewPoint: Double?

    public init(
      time: Int64? = nil, temperature: Double? = nil, apparentTemperature: Double? = nil,
      relativeHumidity: Double? = nil, pressure: Double? = nil, windSpeed: Double? = nil,
      windGusts: Double? = nil, windDirection: Double? = nil, weatherCode: Int? = nil,
      isDay: Bool? = nil, cloudCover: Double? = nil, precipitation: Double? = nil,
      uvIndex: Double? = nil, visibility: Double? = nil, dewPoint: Double? = nil
    ) {
      self.dewPoint = dewPoint
      self.time = time
      self.temperature = temperature
      self.apparentTemperature = apparentTemperature
      self.relativeHumidity = relativeHumidity
      self.pressure = pressure
      self.windSpeed = windSpeed
      self.windGusts = windGusts
      self.windDirection = windDirection
      self.weatherCode = weatherCode
      self.isDay = isDay
      self.cloudCover = cloudCover
      self.precipitation = precipitation
      self.uvIndex = uvIndex
      self.visibility = visibility
    }
  }

  public struct Hour: Sendable, Equatable, Codable {
    /// Start of the hour (or step), Unix seconds.
    public var time: Int64
    /// °C.
    public var temperature: Double?
    public var weatherCode: Int?
    /// %.
    public var precipitationProbability: Double?
    /// Precipitation in the step, mm (the `large` profile, as are the winds).
    public var precipitation: Double?
    /// m/s at 10 m.
    public var windSpeed: Double?
    /// m/s.
    public var windGusts: Double?

    public init(
      time: Int64, temperature: Double? = nil, weatherCode: Int? = nil,
      precipitationProbability: Double? = nil, precipitation: Double? = nil,
      windSpeed: Double? = nil, windGusts: Double? = nil
    ) {
      self.precipitation = precipitation
      self.windSpeed = windSpeed
      self.windGusts = windGusts
      self.time = time
      self.temperature = temperature
      self.weatherCode = weatherCode
      self.precipitationProbability = precipitationProbability
    }
  }

  public struct Day: Sendable, Equatable, Codable {
    /// The place's local calendar date, in days since 1970-01-01.
    public var date: Int
    /// °C.
    public var minimum: Double?
    /// °C.
    public var maximum: Double?
    public var weatherCode: Int?
    /// %.
    public var precipitationProbability: Double?
    /// Unix seconds; nil when the sun does not rise (or the service left it out).
    public var sunrise: Int64?
    /// Unix seconds; nil when the sun does not set (or the service left it out).
    public var sunset: Int64?
    /// Seconds of daylight, which tells polar day (86 400) from polar night (0).
    public var daylightSeconds: Double?
    /// The day's precipitation, mm (the `large` profile, as are UV and wind).
    public var precipitationSum: Double?
    public var uvIndexMaximum: Double?
    /// The day's highest 10 m wind speed, m/s.
    public var windSpeedMaximum: Double?

    public init(
      date: Int, minimum: Double? = nil, maximum: Double? = nil, weatherCode: Int? = nil,
      precipitationProbability: Double? = nil, sunrise: Int64? = nil, sunset: Int64? = nil,
      daylightSeconds: Double? = nil, precipitationSum: Double? = nil,
      uvIndexMaximum: Double? = nil, windSpeedMaximum: Double? = nil
    ) {
      self.precipitationSum = precipitationSum
      self.uvIndexMaximum = uvIndexMaximum
      self.windSpeedMaximum = windSpeedMaximum
      self.date = date
      self.minimum = minimum
      self.maximum = maximum
      self.weatherCode = weatherCode
      self.precipitationProbability = precipitationProbability
      self.sunrise = sunrise
      self.sunset = sunset
      self.daylightSeconds = daylightSeconds
    }
  }
}

// The codec has no Codable (it also builds as Embedded Swift); the model stores the raw value.
extension AlertSummary.Severity: Codable {}
