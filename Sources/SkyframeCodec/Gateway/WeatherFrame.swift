/// One answer to one place: the weather or the reason there is none, in the fixed 192-byte frame
/// v1 specified in `schemas/frame-v1.md`, the `standard` profile.
///
/// Values are held in the frame's own units (tenths of a degree, tenths of a metre per second, …)
/// so that encoding is a copy, not a conversion. `nil` stands for the field's "missing" sentinel.
/// Each value's row of `StandardLayout` is named once, in `visitRows`.
public struct WeatherFrame: Sendable, Equatable {
  /// Every frame, success or error, is exactly this long.
  public static let size = StandardLayout.size
  /// The frame version this decoder reads (v1.0 and v1.1 frames both carry 1): byte 2.
  public static let version = MessageKind.standard.rawValue
  /// Hours in the hourly block.
  public static let hourlyCount = StandardLayout.hourlyCount
  /// Days in the daily block.
  public static let dailyCount = StandardLayout.dailyCount

  public var status: FrameStatus = .ok
  /// The id the device sent with its request, echoed; 0 when it sent none.
  public var requestID: UInt16 = 0
  /// Which of the request's places this frame answers, from 0.
  public var slotIndex: UInt8 = 0
  /// How many places the request named; at least 1.
  public var slotCount: UInt8 = 1
  public var service: WeatherService = .none

  /// Latitude in 1/100 000 degree (about 1.1 m), north positive.
  public var latitude: Int32?
  /// Longitude in 1/100 000 degree, east positive.
  public var longitude: Int32?
  public var country: CountryCode?
  public var name = FrameName()

  /// When the service observed the current conditions, Unix seconds.
  public var observedAt: UInt32?
  /// When the gateway fetched the data from the service, Unix seconds: the data's age.
  public var fetchedAt: UInt32?
  /// The place's offset from UTC in minutes, east positive (Nepal +345, Chatham Islands +825).
  public var utcOffsetMinutes: Int16?

  public var current = Current()
  /// Whether it is day at the place at `observedAt`.
  public var isDay: Bool?
  public var sun: SunState?
  /// Today's sunrise and sunset, Unix seconds.
  public var sunrise: UInt32?
  public var sunset: UInt32?

  /// Start of the first hourly slot, Unix seconds.
  public var hourlyStart: UInt32?
  /// Hours from one hourly slot to the next (1; 3 for services with 3-hour steps); 0 with no hourly data.
  public var hourlyStepHours: UInt8 = 0
  public var hourly = InlineArray<12, HourlySlot>(repeating: HourlySlot())

  /// The place's local date of `daily[0]` (today), in days since 1970-01-01.
  public var dailyStart: UInt16?
  public var daily = InlineArray<7, DailySlot>(repeating: DailySlot())

  // v1.1 (nil: absent, as in every v1.0 frame)
  public var airQuality: AirQuality?
  public var alerts: AlertSummary?
  /// On the place's local date (`dailyStart`) at 12:00 local time.
  public var moon: MoonPhase?
  public var precipitationNextHour: NextHourPrecipitation?
  /// Seconds from sending until the gateway expects newer data for the place.
  public var nextUpdateSeconds: UInt16?

  public init() {}

  /// Conditions now.
  public struct Current: Sendable, Equatable {
    /// Air temperature, 0.1 °C.
    public var temperature: Int16?
    /// Apparent temperature, 0.1 °C.
    public var feelsLike: Int16?
    /// Sea-level pressure, 0.1 hPa.
    public var pressure: UInt16?
    /// Wind speed at 10 m, 0.1 m/s.
    public var windSpeed: UInt16?
    /// Wind gusts, 0.1 m/s.
    public var windGust: UInt16?
    /// Where the wind comes from, whole degrees, 0 = north, 90 = east.
    public var windDirection: UInt16?
    /// Visibility, 10 m.
    public var visibility: UInt16?
    /// Precipitation in the last hour, 0.1 mm.
    public var precipitation: UInt16?
    /// Relative humidity, %.
    public var humidity: UInt8?
    /// WMO weather interpretation code (`schemas/wmo-codes.md`).
    public var weatherCode: UInt8?
    /// Cloud cover, %.
    public var cloudCover: UInt8?
    /// UV index, 0.1.
    public var uvIndex: UInt8?

    public init() {}
  }

  /// One hour (or step) of the hourly forecast.
  public struct HourlySlot: Sendable, Equatable {
    /// 0.1 °C.
    public var temperature: Int16?
    public var weatherCode: UInt8?
    /// Chance of precipitation, %.
    public var precipitationProbability: UInt8?

    public init(
      temperature: Int16? = nil, weatherCode: UInt8? = nil, precipitationProbability: UInt8? = nil
    ) {
      self.temperature = temperature
      self.weatherCode = weatherCode
      self.precipitationProbability = precipitationProbability
    }
  }

  /// One day of the daily forecast.
  public struct DailySlot: Sendable, Equatable {
    /// 0.1 °C.
    public var minimum: Int16?
    /// 0.1 °C.
    public var maximum: Int16?
    public var weatherCode: UInt8?
    /// Chance of precipitation, %.
    public var precipitationProbability: UInt8?

    public init(
      minimum: Int16? = nil, maximum: Int16? = nil, weatherCode: UInt8? = nil,
      precipitationProbability: UInt8? = nil
    ) {
      self.minimum = minimum
      self.maximum = maximum
      self.weatherCode = weatherCode
      self.precipitationProbability = precipitationProbability
    }
  }

  /// An error frame: the status, echoing the request, with every weather field missing.
  public init(
    status: FrameStatus, requestID: UInt16 = 0, slotIndex: UInt8 = 0, slotCount: UInt8 = 1,
    name: FrameName = FrameName()
  ) {
    self.status = status
    self.requestID = requestID
    self.slotIndex = slotIndex
    self.slotCount = slotCount
    self.name = name
  }

  public static func == (lhs: WeatherFrame, rhs: WeatherFrame) -> Bool {
    guard
      lhs.status == rhs.status, lhs.requestID == rhs.requestID, lhs.slotIndex == rhs.slotIndex,
      lhs.slotCount == rhs.slotCount, lhs.service == rhs.service, lhs.latitude == rhs.latitude,
      lhs.longitude == rhs.longitude, lhs.country == rhs.country, lhs.name == rhs.name,
      lhs.observedAt == rhs.observedAt, lhs.fetchedAt == rhs.fetchedAt,
      lhs.utcOffsetMinutes == rhs.utcOffsetMinutes, lhs.current == rhs.current,
      lhs.isDay == rhs.isDay, lhs.sun == rhs.sun, lhs.sunrise == rhs.sunrise,
      lhs.sunset == rhs.sunset, lhs.hourlyStart == rhs.hourlyStart,
      lhs.hourlyStepHours == rhs.hourlyStepHours, lhs.dailyStart == rhs.dailyStart,
      lhs.airQuality == rhs.airQuality, lhs.alerts == rhs.alerts, lhs.moon == rhs.moon,
      lhs.precipitationNextHour == rhs.precipitationNextHour,
      lhs.nextUpdateSeconds == rhs.nextUpdateSeconds
    else { return false }
    for index in 0..<hourlyCount where lhs.hourly[index] != rhs.hourly[index] { return false }
    for index in 0..<dailyCount where lhs.daily[index] != rhs.daily[index] { return false }
    return true
  }
}
