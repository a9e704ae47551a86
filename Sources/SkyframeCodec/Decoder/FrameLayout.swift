/// The fields of frame v1 with their place on the wire: the one table the encoder, the decoder and
/// the layout test (against `schemas/frame-v1.json`) all read.
public enum FrameField: UInt8, CaseIterable, Sendable {
  case magic, version, status, requestID, slotIndex, slotCount, service, isDay, sun, hourlyStep
  case latitude, longitude, observedAt, fetchedAt, hourlyStart, utcOffset, dailyStart, country
  case airQuality, name
  case temperature, feelsLike, pressure, windSpeed, windGust, windDirection, visibility
  case precipitation, humidity, weatherCode, cloudCover, uvIndex
  case alerts, moon, precipitationNextHour, reserved87
  case sunrise, sunset
  case hourlyTemperature, hourlyWeatherCode, hourlyPrecipitationProbability
  case dailyMinimum, dailyMaximum, dailyWeatherCode, dailyPrecipitationProbability
  case nextUpdate, crc

  /// Byte offset from the start of the frame.
  public var offset: Int {
    switch self {
    case .magic: 0
    case .version: 2
    case .status: 3
    case .requestID: 4
    case .slotIndex: 6
    case .slotCount: 7
    case .service: 8
    case .isDay: 9
    case .sun: 10
    case .hourlyStep: 11
    case .latitude: 12
    case .longitude: 16
    case .observedAt: 20
    case .fetchedAt: 24
    case .hourlyStart: 28
    case .utcOffset: 32
    case .dailyStart: 34
    case .country: 36
    case .airQuality: 38
    case .name: 40
    case .temperature: 64
    case .feelsLike: 66
    case .pressure: 68
    case .windSpeed: 70
    case .windGust: 72
    case .windDirection: 74
    case .visibility: 76
    case .precipitation: 78
    case .humidity: 80
    case .weatherCode: 81
    case .cloudCover: 82
    case .uvIndex: 83
    case .alerts: 84
    case .moon: 85
    case .precipitationNextHour: 86
    case .reserved87: 87
    case .sunrise: 88
    case .sunset: 92
    case .hourlyTemperature: 96
    case .hourlyWeatherCode: 120
    case .hourlyPrecipitationProbability: 132
    case .dailyMinimum: 144
    case .dailyMaximum: 158
    case .dailyWeatherCode: 172
    case .dailyPrecipitationProbability: 179
    case .nextUpdate: 186
    case .crc: 188
    }
  }

  /// Size of one element in bytes (the alignment the field needs).
  public var elementSize: Int {
    switch self {
    case .latitude, .longitude, .observedAt, .fetchedAt, .hourlyStart, .sunrise, .sunset, .crc: 4
    case .requestID, .utcOffset, .dailyStart, .temperature, .feelsLike, .pressure, .windSpeed,
      .windGust, .windDirection, .visibility, .precipitation, .hourlyTemperature, .dailyMinimum,
      .dailyMaximum, .airQuality, .nextUpdate:
      2
    default: 1
    }
  }

  /// Number of elements: the forecast blocks are arrays, text and reserved fields byte arrays.
  public var count: Int {
    switch self {
    case .magic, .country: 2
    case .name: 24
    case .hourlyTemperature, .hourlyWeatherCode, .hourlyPrecipitationProbability:
      FrameView.hourlyCount
    case .dailyMinimum, .dailyMaximum, .dailyWeatherCode, .dailyPrecipitationProbability:
      FrameView.dailyCount
    default: 1
    }
  }

  public var size: Int { elementSize * count }

  /// The field's name in the spec and in JSON.
  public var name: StaticString {
    switch self {
    case .magic: "magic"
    case .version: "version"
    case .status: "status"
    case .requestID: "request_id"
    case .slotIndex: "slot_index"
    case .slotCount: "slot_count"
    case .service: "service"
    case .isDay: "is_day"
    case .sun: "sun"
    case .hourlyStep: "hourly_step_h"
    case .latitude: "latitude"
    case .longitude: "longitude"
    case .observedAt: "observed_at"
    case .fetchedAt: "fetched_at"
    case .hourlyStart: "hourly_start"
    case .utcOffset: "utc_offset_min"
    case .dailyStart: "daily_start"
    case .country: "country"
    case .airQuality: "air_quality"
    case .name: "name"
    case .temperature: "temperature"
    case .feelsLike: "feels_like"
    case .pressure: "pressure"
    case .windSpeed: "wind_speed"
    case .windGust: "wind_gust"
    case .windDirection: "wind_direction"
    case .visibility: "visibility"
    case .precipitation: "precipitation"
    case .humidity: "humidity"
    case .weatherCode: "weather_code"
    case .cloudCover: "cloud_cover"
    case .uvIndex: "uv_index"
    case .alerts: "alerts"
    case .moon: "moon"
    case .precipitationNextHour: "precip_next_hour"
    case .reserved87: "reserved_87"
    case .sunrise: "sunrise"
    case .sunset: "sunset"
    case .hourlyTemperature: "hourly_temperature"
    case .hourlyWeatherCode: "hourly_weather_code"
    case .hourlyPrecipitationProbability: "hourly_precip_probability"
    case .dailyMinimum: "daily_min"
    case .dailyMaximum: "daily_max"
    case .dailyWeatherCode: "daily_weather_code"
    case .dailyPrecipitationProbability: "daily_precip_probability"
    case .nextUpdate: "next_update"
    case .crc: "crc32"
    }
  }
}

extension FrameField {
  /// What one step of the wire integer is worth in `unit`: a temperature of 215 is 21.5 °C.
  public var scale: Double {
    switch self {
    case .latitude, .longitude: 0.000_01
    case .temperature, .feelsLike, .pressure, .windSpeed, .windGust, .precipitation, .uvIndex,
      .hourlyTemperature, .dailyMinimum, .dailyMaximum:
      0.1
    case .visibility: 10
    default: 1
    }
  }

  /// The unit after scaling, empty for codes, counts and text.
  public var unit: StaticString {
    switch self {
    case .latitude, .longitude, .windDirection: "deg"
    case .temperature, .feelsLike, .hourlyTemperature, .dailyMinimum, .dailyMaximum: "degC"
    case .pressure: "hPa"
    case .windSpeed, .windGust: "m/s"
    case .visibility: "m"
    case .precipitation: "mm"
    case .humidity, .cloudCover, .hourlyPrecipitationProbability, .dailyPrecipitationProbability:
      "%"
    case .observedAt, .fetchedAt, .hourlyStart, .sunrise, .sunset: "s since 1970-01-01T00:00Z"
    case .utcOffset: "min"
    case .dailyStart: "days since 1970-01-01"
    case .hourlyStep: "h"
    case .nextUpdate: "s"
    default: ""
    }
  }
}

extension FrameField {
  /// Whether the wire integer is signed (two's complement).
  public var isSigned: Bool {
    switch self {
    case .latitude, .longitude, .utcOffset, .temperature, .feelsLike, .hourlyTemperature,
      .dailyMinimum, .dailyMaximum:
      true
    default: false
    }
  }

  /// Unix times, whose "missing" is 0.
  var isTime: Bool {
    switch self {
    case .observedAt, .fetchedAt, .hourlyStart, .sunrise, .sunset: true
    default: false
    }
  }

  /// The wire value that means "missing" (frame-v1.md §4, the `sentinel` column of
  /// `frame-v1.json`); nil for fields that always carry a value (`request_id`, `crc32`, …).
  /// Text fields (`name`, `country`) end at a 0 byte.
  public var sentinel: Int? {
    switch self {
    case .magic, .version, .status, .requestID, .slotIndex, .slotCount, .service, .hourlyStep,
      .reserved87, .crc:
      nil
    case .isDay, .sun, .humidity, .weatherCode, .cloudCover, .uvIndex, .hourlyWeatherCode,
      .hourlyPrecipitationProbability, .dailyWeatherCode, .dailyPrecipitationProbability:
      0xFF
    case .latitude, .longitude: Int(Int32.min)
    case .utcOffset, .temperature, .feelsLike, .hourlyTemperature, .dailyMinimum, .dailyMaximum:
      Int(Int16.min)
    case .dailyStart, .pressure, .windSpeed, .windGust, .windDirection, .visibility,
      .precipitation:
      Int(UInt16.max)
    case .observedAt, .fetchedAt, .hourlyStart, .sunrise, .sunset, .country, .name, .airQuality,
      .alerts, .moon, .precipitationNextHour, .nextUpdate:
      0
    }
  }
}
