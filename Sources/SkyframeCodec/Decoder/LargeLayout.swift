/// The `large` profile, 960 bytes (`schemas/frame-profiles.md` §2, `schemas/frame-large.json`):
/// the one table of where each field is. Add a field here, in the spec, the generator and the C
/// header; the layout test fails when they disagree.
public enum LargeLayout {
  public static let size = 960
  public static let hourlyCount = 48
  public static let dailyCount = 8
  public static let minutelyCount = 4
  public static let alertCount = 3

  static let time: ClosedRange<Int64> = 1...0xFFFF_FFFF
  static let celsius: ClosedRange<Int64> = -1_000...1_000
  static let halfMetres: ClosedRange<Int64> = 0...254

  public static let magic = MessageHeader.magic
  public static let kind = MessageHeader.kind
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
    sentinel: -2_147_483_648)  // Int32.min, as a literal: a constant in Embedded Swift
  public static let observedAt = LayoutField(
    "observed_at", 20, .u32, unit: MessageHeader.unixTime, range: time, sentinel: 0)
  public static let fetchedAt = LayoutField(
    "fetched_at", 24, .u32, unit: MessageHeader.unixTime, range: time, sentinel: 0)
  public static let hourlyStart = LayoutField(
    "hourly_start", 28, .u32, unit: MessageHeader.unixTime, range: time, sentinel: 0)
  public static let utcOffset = LayoutField(
    "utc_offset_min", 32, .i16, unit: "min", range: -720...840, sentinel: -32_768)
  public static let dailyStart = LayoutField(
    "daily_start", 34, .u16, unit: "days since 1970-01-01", range: 0...65_534, sentinel: 0xFFFF)
  public static let country = LayoutField("country", 36, .country, count: 2, sentinel: 0)
  public static let airQuality = LayoutField("air_quality", 38, .u16, sentinel: 0)
  public static let nextUpdate = LayoutField(
    "next_update", 40, .u16, unit: "s", range: 1...65_535, sentinel: 0)
  public static let alerts = LayoutField("alerts", 42, .u8, sentinel: 0)
  public static let moon = LayoutField("moon", 43, .u8, range: 1...255, sentinel: 0)
  public static let precipitationNextHour = LayoutField("precip_next_hour", 44, .u8, sentinel: 0)
  public static let reserved45 = LayoutField("reserved_45", 45, .reserved, count: 3)
  public static let name = LayoutField("name", 48, .text, length: 48, sentinel: 0)

  public static let temperature = LayoutField(
    "temperature", 96, .i16, scale: 0.1, unit: "degC", range: celsius, sentinel: -32_768)
  public static let feelsLike = LayoutField(
    "feels_like", 98, .i16, scale: 0.1, unit: "degC", range: celsius, sentinel: -32_768)
  public static let dewPoint = LayoutField(
    "dew_point", 100, .i16, scale: 0.1, unit: "degC", range: celsius, sentinel: -32_768)
  public static let pressure = LayoutField(
    "pressure", 102, .u16, scale: 0.1, unit: "hPa", range: 0...20_000, sentinel: 0xFFFF)
  public static let windSpeed = LayoutField(
    "wind_speed", 104, .u16, scale: 0.1, unit: "m/s", range: 0...5_000, sentinel: 0xFFFF)
  public static let windGust = LayoutField(
    "wind_gust", 106, .u16, scale: 0.1, unit: "m/s", range: 0...5_000, sentinel: 0xFFFF)
  public static let windDirection = LayoutField(
    "wind_direction", 108, .u16, unit: "deg", range: 0...359, sentinel: 0xFFFF)
  public static let visibility = LayoutField(
    "visibility", 110, .u16, scale: 10, unit: "m", range: 0...65_534, sentinel: 0xFFFF)
  public static let precipitation = LayoutField(
    "precipitation", 112, .u16, scale: 0.1, unit: "mm", range: 0...65_534, sentinel: 0xFFFF)
  public static let humidity = LayoutField(
    "humidity", 114, .u8, unit: "%", range: 0...100, sentinel: 0xFF)
  public static let weatherCode = LayoutField(
    "weather_code", 115, .u8, range: 0...99, sentinel: 0xFF)
  public static let cloudCover = LayoutField(
    "cloud_cover", 116, .u8, unit: "%", range: 0...100, sentinel: 0xFF)
  public static let uvIndex = LayoutField(
    "uv_index", 117, .u8, scale: 0.1, range: 0...250, sentinel: 0xFF)
  public static let reserved118 = LayoutField("reserved_118", 118, .reserved, count: 2)
  public static let sunrise = LayoutField(
    "sunrise", 120, .u32, unit: MessageHeader.unixTime, range: time, sentinel: 0)
  public static let sunset = LayoutField(
    "sunset", 124, .u32, unit: MessageHeader.unixTime, range: time, sentinel: 0)

  public static let hourlyTemperature = LayoutField(
    "hourly_temperature", 128, .i16, count: hourlyCount, scale: 0.1, unit: "degC", range: celsius,
    sentinel: -32_768)
  public static let hourlyPrecipitationAmount = LayoutField(
    "hourly_precip_amount", 224, .u16, count: hourlyCount, scale: 0.1, unit: "mm",
    range: 0...65_534, sentinel: 0xFFFF)
  public static let hourlyWeatherCode = LayoutField(
    "hourly_weather_code", 320, .u8, count: hourlyCount, range: 0...99, sentinel: 0xFF)
  public static let hourlyPrecipitationProbability = LayoutField(
    "hourly_precip_probability", 368, .u8, count: hourlyCount, unit: "%", range: 0...100,
    sentinel: 0xFF)
  public static let hourlyWindSpeed = LayoutField(
    "hourly_wind_speed", 416, .u8, count: hourlyCount, scale: 0.5, unit: "m/s", range: halfMetres,
    sentinel: 0xFF)
  public static let hourlyWindGust = LayoutField(
    "hourly_wind_gust", 464, .u8, count: hourlyCount, scale: 0.5, unit: "m/s", range: halfMetres,
    sentinel: 0xFF)

  public static let dailyMinimum = LayoutField(
    "daily_min", 512, .i16, count: dailyCount, scale: 0.1, unit: "degC", range: celsius,
    sentinel: -32_768)
  public static let dailyMaximum = LayoutField(
    "daily_max", 528, .i16, count: dailyCount, scale: 0.1, unit: "degC", range: celsius,
    sentinel: -32_768)
  public static let dailyPrecipitationSum = LayoutField(
    "daily_precip_sum", 544, .u16, count: dailyCount, scale: 0.1, unit: "mm", range: 0...65_534,
    sentinel: 0xFFFF)
  public static let dailySunrise = LayoutField(
    "daily_sunrise", 560, .u32, count: dailyCount, unit: MessageHeader.unixTime, range: time,
    sentinel: 0)
  public static let dailySunset = LayoutField(
    "daily_sunset", 592, .u32, count: dailyCount, unit: MessageHeader.unixTime, range: time,
    sentinel: 0)
  public static let dailyWeatherCode = LayoutField(
    "daily_weather_code", 624, .u8, count: dailyCount, range: 0...99, sentinel: 0xFF)
  public static let dailyPrecipitationProbability = LayoutField(
    "daily_precip_probability", 632, .u8, count: dailyCount, unit: "%", range: 0...100,
    sentinel: 0xFF)
  public static let dailyUVMaximum = LayoutField(
    "daily_uv_max", 640, .u8, count: dailyCount, scale: 0.1, range: 0...250, sentinel: 0xFF)
  public static let dailyWindMaximum = LayoutField(
    "daily_wind_max", 648, .u8, count: dailyCount, scale: 0.5, unit: "m/s", range: halfMetres,
    sentinel: 0xFF)
  public static let dailySun = LayoutField(
    "daily_sun", 656, .u8, count: dailyCount, range: 0...2, sentinel: 0xFF)

  public static let minutelyStart = LayoutField(
    "minutely_start", 664, .u32, unit: MessageHeader.unixTime, range: time, sentinel: 0)
  public static let minutelyPrecipitation = LayoutField(
    "minutely_precip", 668, .u8, count: minutelyCount, scale: 0.1, unit: "mm", range: 0...254,
    sentinel: 0xFF)

  public static let alertOnset = LayoutField(
    "alert_onset", 672, .u32, count: alertCount, unit: MessageHeader.unixTime, range: time,
    sentinel: 0)
  public static let alertEnd = LayoutField(
    "alert_end", 684, .u32, count: alertCount, unit: MessageHeader.unixTime, range: time,
    sentinel: 0)
  public static let alertSeverity = LayoutField(
    "alert_severity", 696, .u8, count: alertCount, range: 2...6, sentinel: 0)
  public static let reserved699 = LayoutField("reserved_699", 699, .reserved)
  public static let alertEvent = LayoutField(
    "alert_event", 700, .text, count: alertCount, length: 64, sentinel: 0)
  public static let reserved892 = LayoutField("reserved_892", 892, .reserved, count: 64)
  public static let crc = LayoutField("crc32", 956, .u32)

  #if !hasFeature(Embedded)
    /// Every field in wire order.
    public static let fields: [LayoutField] = [
      magic, kind, status, requestID, slotIndex, slotCount, service, isDay, sun, hourlyStep,
      latitude, longitude, observedAt, fetchedAt, hourlyStart, utcOffset, dailyStart, country,
      airQuality, nextUpdate, alerts, moon, precipitationNextHour, reserved45, name,
      temperature, feelsLike, dewPoint, pressure, windSpeed, windGust, windDirection, visibility,
      precipitation, humidity, weatherCode, cloudCover, uvIndex, reserved118, sunrise, sunset,
      hourlyTemperature, hourlyPrecipitationAmount, hourlyWeatherCode,
      hourlyPrecipitationProbability, hourlyWindSpeed, hourlyWindGust,
      dailyMinimum, dailyMaximum, dailyPrecipitationSum, dailySunrise, dailySunset,
      dailyWeatherCode, dailyPrecipitationProbability, dailyUVMaximum, dailyWindMaximum, dailySun,
      minutelyStart, minutelyPrecipitation,
      alertOnset, alertEnd, alertSeverity, reserved699, alertEvent, reserved892, crc,
    ]
  #endif
}
