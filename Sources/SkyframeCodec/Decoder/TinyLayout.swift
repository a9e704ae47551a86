/// The `tiny` profile, 48 bytes (`schemas/frame-profiles.md` §3, `schemas/frame-tiny.json`): the
/// one table of where each field is.
public enum TinyLayout {
  public static let size = 48
  public static let dailyCount = 4

  public static let magic = MessageHeader.magic
  public static let kind = MessageHeader.kind
  public static let status = MessageHeader.status
  public static let requestID = MessageHeader.requestID
  public static let slotIndex = MessageHeader.slotIndex
  public static let slotCount = MessageHeader.slotCount
  public static let fetchedAt = LayoutField(
    "fetched_at", 8, .u32, unit: MessageHeader.unixTime, range: 1...0xFFFF_FFFF, sentinel: 0)
  public static let nextUpdate = LayoutField(
    "next_update", 12, .u16, unit: "s", range: 1...65_535, sentinel: 0)
  public static let temperature = LayoutField(
    "temperature", 14, .i16, scale: 0.1, unit: "degC", range: -1_000...1_000, sentinel: -32_768)
  public static let airQuality = LayoutField("air_quality", 16, .u16, sentinel: 0)
  public static let weatherCode = LayoutField(
    "weather_code", 18, .u8, range: 0...99, sentinel: 0xFF)
  public static let isDay = LayoutField("is_day", 19, .u8, range: 0...1, sentinel: 0xFF)
  public static let alerts = LayoutField("alerts", 20, .u8, sentinel: 0)
  public static let precipitationNextHour = LayoutField("precip_next_hour", 21, .u8, sentinel: 0)
  public static let windSpeed = LayoutField(
    "wind_speed", 22, .u8, scale: 0.5, unit: "m/s", range: 0...254, sentinel: 0xFF)
  public static let windGust = LayoutField(
    "wind_gust", 23, .u8, scale: 0.5, unit: "m/s", range: 0...254, sentinel: 0xFF)
  public static let windDirection = LayoutField(
    "wind_direction", 24, .u8, scale: 2, unit: "deg", range: 0...179, sentinel: 0xFF)
  public static let utcOffset = LayoutField(
    "utc_offset_min", 25, .i8, scale: 15, unit: "min", range: -48...56, sentinel: -128)
  public static let humidity = LayoutField(
    "humidity", 26, .u8, unit: "%", range: 0...100, sentinel: 0xFF)
  public static let uvIndex = LayoutField(
    "uv_index", 27, .u8, scale: 0.1, range: 0...250, sentinel: 0xFF)
  public static let dailyMinimum = LayoutField(
    "daily_min", 28, .i8, count: dailyCount, unit: "degC", range: -127...127, sentinel: -128)
  public static let dailyMaximum = LayoutField(
    "daily_max", 32, .i8, count: dailyCount, unit: "degC", range: -127...127, sentinel: -128)
  public static let dailyWeatherCode = LayoutField(
    "daily_weather_code", 36, .u8, count: dailyCount, range: 0...99, sentinel: 0xFF)
  public static let dailyPrecipitationProbability = LayoutField(
    "daily_precip_probability", 40, .u8, count: dailyCount, unit: "%", range: 0...100,
    sentinel: 0xFF)
  public static let crc = LayoutField("crc32", 44, .u32)

  #if !hasFeature(Embedded)
    /// Every field in wire order.
    public static let fields: [LayoutField] = [
      magic, kind, status, requestID, slotIndex, slotCount, fetchedAt, nextUpdate, temperature,
      airQuality, weatherCode, isDay, alerts, precipitationNextHour, windSpeed, windGust,
      windDirection, utcOffset, humidity, uvIndex, dailyMinimum, dailyMaximum, dailyWeatherCode,
      dailyPrecipitationProbability, crc,
    ]
  #endif
}

/// The `unchanged` message, 16 bytes (`schemas/frame-profiles.md` §4).
public enum UnchangedLayout {
  public static let size = 16
  public static let magic = MessageHeader.magic
  public static let kind = MessageHeader.kind
  public static let profile = LayoutField("profile", 3, .u8, range: 0...2)
  public static let requestID = MessageHeader.requestID
  public static let slotIndex = MessageHeader.slotIndex
  public static let slotCount = MessageHeader.slotCount
  public static let nextUpdate = LayoutField(
    "next_update", 8, .u16, unit: "s", range: 1...65_535, sentinel: 0)
  public static let reserved10 = LayoutField("reserved_10", 10, .reserved, count: 2)
  public static let crc = LayoutField("crc32", 12, .u32)

  #if !hasFeature(Embedded)
    public static let fields: [LayoutField] = [
      magic, kind, profile, requestID, slotIndex, slotCount, nextUpdate, reserved10, crc,
    ]
  #endif
}
