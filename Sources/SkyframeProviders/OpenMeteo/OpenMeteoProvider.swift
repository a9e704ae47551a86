import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import SkyframeCodec
import SkyframeWeather

/// Open-Meteo's forecast and geocoding APIs. Several points go into one forecast call as
/// comma-separated coordinates; the answer is then a JSON array in request order.
///
/// Forecasts are requested in SI units (`wind_speed_unit=ms`; °C, hPa, mm, metres are the
/// defaults) with `timeformat=unixtime`, `timezone=auto` and `forecast_days=8` (the `large` profile's eight days). The hourly arrays
/// are not cut with `forecast_hours`: they start at the place's local midnight today, so a cached
/// forecast still covers the whole day, and 168 hours of three variables stay small.
public struct OpenMeteoProvider: WeatherProvider {
  public let configuration: OpenMeteoConfiguration
  private let httpClient: HTTPClient
  private let logger: Logger
  private let clock: ProviderClock

  public init(
    configuration: OpenMeteoConfiguration, httpClient: HTTPClient, logger: Logger,
    clock: ProviderClock = .system
  ) {
    self.clock = clock
    self.configuration = configuration
    self.httpClient = httpClient
    self.logger = logger
  }

  public var service: WeatherService { .openMeteo }

  public var maximumBatchSize: Int { max(configuration.maximumBatchSize, 1) }

  /// One call per `maximumBatchSize` points, one after another so a large request does not burst
  /// against the per-minute limit. The first failing call fails the whole request.
  public func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    for point in points { try point.checkForRequest() }
    var forecasts: [Forecast] = []
    forecasts.reserveCapacity(points.count)
    var start = points.startIndex
    while start < points.endIndex {
      let end = min(start + maximumBatchSize, points.endIndex)
      forecasts += try await batch(Array(points[start..<end]))
      start = end
    }
    return forecasts
  }

  public func geocode(name: String, countryCode: String?) async throws(ProviderError)
    -> Forecast.Place?
  {
    // The service answers names shorter than two characters with nothing; spare the call.
    guard name.trimmingCharacters(in: .whitespacesAndNewlines).count >= 2 else { return nil }
    var query = QueryString()
    query.append("name", name)
    query.append("count", "10")
    query.append("language", configuration.language)
    query.append("format", "json")
    if let countryCode { query.append("countryCode", countryCode.uppercased()) }
    let body = try await get(configuration.geocodingURL, query)
    let response = try decodeJSON(OpenMeteoGeocodingResponse.self, from: body)
    return response.bestMatch(for: name, countryCode: countryCode)
  }

  private func batch(_ points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    var query = QueryString()
    query.append("latitude", points.map { coordinateText($0.latitude) }.joined(separator: ","))
    query.append("longitude", points.map { coordinateText($0.longitude) }.joined(separator: ","))
    // Kept to compose later frames: every current variable in 15-minute steps, and a ninth day
    // so that the eighth is still there after the local midnight. `current` is then the first
    // step (the service makes it from the same steps): asked for twice, its variables would
    // count twice toward the limits, which weigh a call by its variables.
    let series = configuration.seriesSteps > 0
    if !series {
      query.append("current", OpenMeteoForecastResponse.currentVariables.joined(separator: ","))
    }
    query.append("hourly", OpenMeteoForecastResponse.hourlyVariables.joined(separator: ","))
    query.append("daily", OpenMeteoForecastResponse.dailyVariables.joined(separator: ","))
    query.append(
      "minutely_15",
      (series
        ? OpenMeteoForecastResponse.currentVariables
        : OpenMeteoForecastResponse.minutely15Variables).joined(separator: ","))
    query.append(
      "forecast_minutely_15",
      "\(max(OpenMeteoForecastResponse.minutely15Steps, configuration.seriesSteps))")
    query.append("timezone", "auto")
    query.append("timeformat", "unixtime")
    query.append("wind_speed_unit", "ms")
    query.append("forecast_days", series ? "9" : "8")
    let body = try await get(configuration.forecastURL, query)
    let responses = try Self.locations(
      OpenMeteoForecastResponse.self, in: body, count: points.count)
    var forecasts: [Forecast] = []
    for (index, response) in responses.enumerated() {
      forecasts.append(
        try response.forecast(for: points[index], path: points.count == 1 ? "" : "[\(index)]"))
    }
    return forecasts
  }

  /// The air quality now at each point, from the air-quality API (CAMS data): one call for up to
  /// `maximumBatchSize` points, `current=european_aqi,us_aqi`.
  public func airQuality(for points: [GeoPoint]) async throws(ProviderError) -> [AirQualityReading]
  {
    for point in points { try point.checkForRequest() }
    var readings: [AirQualityReading] = []
    var start = points.startIndex
    while start < points.endIndex {
      let end = min(start + maximumBatchSize, points.endIndex)
      let chunk = points[start..<end]
      var query = QueryString()
      query.append("latitude", chunk.map { coordinateText($0.latitude) }.joined(separator: ","))
      query.append("longitude", chunk.map { coordinateText($0.longitude) }.joined(separator: ","))
      query.append("current", OpenMeteoAirQualityResponse.currentVariables.joined(separator: ","))
      query.append("timeformat", "unixtime")
      let body = try await get(configuration.airQualityURL, query)
      readings += try Self.locations(OpenMeteoAirQualityResponse.self, in: body, count: chunk.count)
        .map(\.reading)
      start = end
    }
    return readings
  }

  /// The `count` locations of an answer: one location comes as an object, several as an array
  /// in request order.
  static func locations<T: Decodable>(_ type: T.Type, in body: ByteBuffer, count: Int)
    throws(ProviderError) -> [T]
  {
    switch body.readableBytesView.first(where: { !isJSONWhitespace($0) }) {
    case UInt8(ascii: "{") where count == 1:
      return [try decodeJSON(T.self, from: body)]
    case UInt8(ascii: "["):
      let responses = try decodeJSON([T].self, from: body)
      guard responses.count == count else {
        throw .malformed("expected \(count) locations, got \(responses.count)")
      }
      return responses
    case UInt8(ascii: "{"):
      throw .malformed("expected an array of \(count) locations, got an object")
    default:
      throw .malformed("body is neither a JSON object nor an array")
    }
  }

  /// The body of a successful GET; any other status becomes the matching error with the reason
  /// Open-Meteo gives in `{"error":true,"reason":"…"}`.
  private func get(_ base: String, _ query: QueryString) async throws(ProviderError) -> ByteBuffer {
    var query = query
    if let apiKey = configuration.apiKey { query.append("apikey", apiKey) }
    var call = UpstreamCall(
      service: "open-meteo", endpoint: String(base.prefix { $0 != "?" }),
      url: query.url(base: base),
      loggedURL: query.url(base: base, hiding: ["apikey"]), timeout: configuration.timeout)
    call.clock = clock
    return try await call.body(client: httpClient, logger: logger) {
      (try? JSONDecoder().decode(ErrorBody.self, from: $0))?.reason
    }
  }

  private struct ErrorBody: Decodable {
    var reason: String?
  }
}

private func isJSONWhitespace(_ byte: UInt8) -> Bool {
  byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
}
