/// The fields of frame v1 in wire order: names for the rows of `StandardLayout`, the standard
/// profile's one table, so an error or a read can say which field it means. Every property here
/// is read from the table.
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

  /// The field's row of `StandardLayout`.
  @inlinable public var layout: LayoutField {
    switch self {
    case .magic: StandardLayout.magic
    case .version: StandardLayout.version
    case .status: StandardLayout.status
    case .requestID: StandardLayout.requestID
    case .slotIndex: StandardLayout.slotIndex
    case .slotCount: StandardLayout.slotCount
    case .service: StandardLayout.service
    case .isDay: StandardLayout.isDay
    case .sun: StandardLayout.sun
    case .hourlyStep: StandardLayout.hourlyStep
    case .latitude: StandardLayout.latitude
    case .longitude: StandardLayout.longitude
    case .observedAt: StandardLayout.observedAt
    case .fetchedAt: StandardLayout.fetchedAt
    case .hourlyStart: StandardLayout.hourlyStart
    case .utcOffset: StandardLayout.utcOffset
    case .dailyStart: StandardLayout.dailyStart
    case .country: StandardLayout.country
    case .airQuality: StandardLayout.airQuality
    case .name: StandardLayout.name
    case .temperature: StandardLayout.temperature
    case .feelsLike: StandardLayout.feelsLike
    case .pressure: StandardLayout.pressure
    case .windSpeed: StandardLayout.windSpeed
    case .windGust: StandardLayout.windGust
    case .windDirection: StandardLayout.windDirection
    case .visibility: StandardLayout.visibility
    case .precipitation: StandardLayout.precipitation
    case .humidity: StandardLayout.humidity
    case .weatherCode: StandardLayout.weatherCodeNow
    case .cloudCover: StandardLayout.cloudCover
    case .uvIndex: StandardLayout.uvIndex
    case .alerts: StandardLayout.alerts
    case .moon: StandardLayout.moon
    case .precipitationNextHour: StandardLayout.precipitationNextHour
    case .reserved87: StandardLayout.reserved87
    case .sunrise: StandardLayout.sunrise
    case .sunset: StandardLayout.sunset
    case .hourlyTemperature: StandardLayout.hourlyTemperature
    case .hourlyWeatherCode: StandardLayout.hourlyWeatherCode
    case .hourlyPrecipitationProbability: StandardLayout.hourlyPrecipitationProbability
    case .dailyMinimum: StandardLayout.dailyMinimum
    case .dailyMaximum: StandardLayout.dailyMaximum
    case .dailyWeatherCode: StandardLayout.dailyWeatherCode
    case .dailyPrecipitationProbability: StandardLayout.dailyPrecipitationProbability
    case .nextUpdate: StandardLayout.nextUpdate
    case .crc: StandardLayout.crc
    }
  }

  /// Byte offset from the start of the frame.
  @inlinable public var offset: Int { layout.offset }

  /// Size of one element in bytes (the alignment the field needs); text is a byte array.
  @inlinable public var elementSize: Int { layout.storage.width }

  /// Number of elements: the forecast blocks are arrays, text and reserved fields byte arrays.
  @inlinable public var count: Int { layout.count &* layout.length }

  @inlinable public var size: Int { layout.size }

  /// The field's name in the spec and in JSON.
  public var name: StaticString { layout.name }

  /// What one step of the wire integer is worth in `unit`: a temperature of 215 is 21.5 °C.
  public var scale: Double { layout.scale }

  /// The unit after scaling, empty for codes, counts and text.
  public var unit: StaticString { layout.unit }

  /// Whether the wire integer is signed (two's complement).
  public var isSigned: Bool { layout.storage.isSigned }

  /// The wire value that means "missing" (frame-v1.md §4, the `sentinel` column of
  /// `frame-v1.json`); nil for fields that always carry a value (`request_id`, `crc32`, …).
  /// Text fields (`name`, `country`) end at a 0 byte.
  public var sentinel: Int? { layout.sentinel.map { Int($0) } }

  /// The wire range the encoder enforces (nil where any value of the type may stand).
  public var range: ClosedRange<Int64>? {
    guard let minimum = layout.minimum, let maximum = layout.maximum else { return nil }
    return minimum...maximum
  }
}
