/// The `standard` profile, frame v1.1, 192 bytes (`schemas/frame-v1.md`, `schemas/frame-v1.json`):
/// the one table of where each field is, its type, unit, range and sentinel. The encoder
/// (`ProfileWriter`), the decoders (`ProfileView`), the compaction, the JSON document and the text
/// report all read it; add a field here, in the spec, the generator and the C header, and the
/// layout tests fail when they disagree.
public enum StandardLayout {
  public static let size = 192
  public static let hourlyCount = 12
  public static let dailyCount = 7

  static let time: ClosedRange<Int64> = 1...0xFFFF_FFFF
  static let celsius: ClosedRange<Int64> = -1_000...1_000
  static let percent: ClosedRange<Int64> = 0...100
  static let wmoCode: ClosedRange<Int64> = 0...99
  static let measured: ClosedRange<Int64> = 0...65_534
  static let unixTime = MessageHeader.unixTime

  // The header every profile shares; the standard frame calls byte 2 its version.
  public static let magic = MessageHeader.magic
  public static let version = LayoutField("version", 2, .u8)
  public static let status = MessageHeader.status
  public static let requestID = MessageHeader.requestID
  public static let slotIndex = MessageHeader.slotIndex
  public static let slotCount = MessageHeader.slotCount
  public static let service = LayoutField("service", 8, .u8)
  public static let isDay = LayoutField("is_day", 9, .u8, range: 0...1, sentinel: 0xFF)
  public static let sun = LayoutField("sun", 10, .u8, range: 0...2, sentinel: 0xFF)
  public static let hourlyStep = LayoutField("hourly_step_h", 11, .u8, unit: "h", range: 0...24)
  public static let latitude = LayoutField(
    "latitude", 12, .i32, scale: 0.000_01, unit: "deg", range: -9_000_000...9_000_000,
    sentinel: -2_147_483_648)  // Int32.min, as a literal: a constant in Embedded Swift
  public static let longitude = LayoutField(
    "longitude", 16, .i32, scale: 0.000_01, unit: "deg", range: -18_000_000...18_000_000,
    sentinel: -2_147_483_648)
  public static let observedAt = LayoutField(
    "observed_at", 20, .u32, unit: unixTime, range: time, sentinel: 0)
  public static let fetchedAt = LayoutField(
    "fetched_at", 24, .u32, unit: unixTime, range: time, sentinel: 0)
  public static let hourlyStart = LayoutField(
    "hourly_start", 28, .u32, unit: unixTime, range: time, sentinel: 0)
  public static let utcOffset = LayoutField(
    "utc_offset_min", 32, .i16, unit: "min", range: -720...840, sentinel: -32_768)
  public static let dailyStart = LayoutField(
    "daily_start", 34, .u16, unit: "days since 1970-01-01", range: measured, sentinel: 0xFFFF)
  public static let country = LayoutField("country", 36, .country, count: 2, sentinel: 0)
  public static let airQuality = LayoutField(
    "air_quality", 38, .u16, range: 1...0xFFFF, sentinel: 0)
  public static let name = LayoutField("name", 40, .text, length: 24, sentinel: 0)

  public static let temperature = LayoutField(
    "temperature", 64, .i16, scale: 0.1, unit: "degC", range: celsius, sentinel: -32_768)
  public static let feelsLike = LayoutField(
    "feels_like", 66, .i16, scale: 0.1, unit: "degC", range: celsius, sentinel: -32_768)
  public static let pressure = LayoutField(
    "pressure", 68, .u16, scale: 0.1, unit: "hPa", range: 0...20_000, sentinel: 0xFFFF)
  public static let windSpeed = LayoutField(
    "wind_speed", 70, .u16, scale: 0.1, unit: "m/s", range: 0...5_000, sentinel: 0xFFFF)
  public static let windGust = LayoutField(
    "wind_gust", 72, .u16, scale: 0.1, unit: "m/s", range: 0...5_000, sentinel: 0xFFFF)
  public static let windDirection = LayoutField(
    "wind_direction", 74, .u16, unit: "deg", range: 0...359, sentinel: 0xFFFF)
  public static let visibility = LayoutField(
    "visibility", 76, .u16, scale: 10, unit: "m", range: measured, sentinel: 0xFFFF)
  public static let precipitation = LayoutField(
    "precipitation", 78, .u16, scale: 0.1, unit: "mm", range: measured, sentinel: 0xFFFF)
  public static let humidity = LayoutField(
    "humidity", 80, .u8, unit: "%", range: percent, sentinel: 0xFF)
  public static let weatherCode = LayoutField(
    "weather_code", 81, .u8, range: wmoCode, sentinel: 0xFF)
  public static let cloudCover = LayoutField(
    "cloud_cover", 82, .u8, unit: "%", range: percent, sentinel: 0xFF)
  public static let uvIndex = LayoutField(
    "uv_index", 83, .u8, scale: 0.1, range: 0...250, sentinel: 0xFF)
  public static let alerts = LayoutField("alerts", 84, .u8, range: 1...255, sentinel: 0)
  public static let moon = LayoutField("moon", 85, .u8, range: 1...255, sentinel: 0)
  public static let precipitationNextHour = LayoutField(
    "precip_next_hour", 86, .u8, range: 1...255, sentinel: 0)
  public static let reserved87 = LayoutField("reserved_87", 87, .reserved)
  public static let sunrise = LayoutField(
    "sunrise", 88, .u32, unit: unixTime, range: time, sentinel: 0)
  public static let sunset = LayoutField(
    "sunset", 92, .u32, unit: unixTime, range: time, sentinel: 0)

  public static let hourlyTemperature = LayoutField(
    "hourly_temperature", 96, .i16, count: hourlyCount, scale: 0.1, unit: "degC", range: celsius,
    sentinel: -32_768)
  public static let hourlyWeatherCode = LayoutField(
    "hourly_weather_code", 120, .u8, count: hourlyCount, range: wmoCode, sentinel: 0xFF)
  public static let hourlyPrecipitationProbability = LayoutField(
    "hourly_precip_probability", 132, .u8, count: hourlyCount, unit: "%", range: percent,
    sentinel: 0xFF)
  public static let dailyMinimum = LayoutField(
    "daily_min", 144, .i16, count: dailyCount, scale: 0.1, unit: "degC", range: celsius,
    sentinel: -32_768)
  public static let dailyMaximum = LayoutField(
    "daily_max", 158, .i16, count: dailyCount, scale: 0.1, unit: "degC", range: celsius,
    sentinel: -32_768)
  public static let dailyWeatherCode = LayoutField(
    "daily_weather_code", 172, .u8, count: dailyCount, range: wmoCode, sentinel: 0xFF)
  public static let dailyPrecipitationProbability = LayoutField(
    "daily_precip_probability", 179, .u8, count: dailyCount, unit: "%", range: percent,
    sentinel: 0xFF)
  public static let nextUpdate = LayoutField(
    "next_update", 186, .u16, unit: "s", range: 1...65_535, sentinel: 0)
  public static let crc = LayoutField("crc32", 188, .u32)

  #if !hasFeature(Embedded)
    /// Every field in wire order.
    public static let fields: [LayoutField] = [
      magic, version, status, requestID, slotIndex, slotCount, service, isDay, sun, hourlyStep,
      latitude, longitude, observedAt, fetchedAt, hourlyStart, utcOffset, dailyStart, country,
      airQuality, name, temperature, feelsLike, pressure, windSpeed, windGust, windDirection,
      visibility, precipitation, humidity, weatherCode, cloudCover, uvIndex, alerts, moon,
      precipitationNextHour, reserved87, sunrise, sunset, hourlyTemperature, hourlyWeatherCode,
      hourlyPrecipitationProbability, dailyMinimum, dailyMaximum, dailyWeatherCode,
      dailyPrecipitationProbability, nextUpdate, crc,
    ]
  #endif
}
