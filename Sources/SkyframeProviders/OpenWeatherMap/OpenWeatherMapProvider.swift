import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import SkyframeCodec
import SkyframeWeather

/// OpenWeatherMap's weather and geocoding APIs, one point per call.
///
/// On the free plan a point takes two calls made side by side: `/data/2.5/weather` for now and
/// `/data/2.5/forecast` for 5 days in 3-hour steps, folded into days by the place's local date
/// (see `OpenWeatherMapForecastResponse.forecast(for:now:)`). With `useOneCall` it takes one
/// `/data/3.0/onecall` call with hourly steps and 8 days. Everything is asked for with
/// `units=metric`, which gives °C, hPa, m/s and metres. The key goes in `appid` and is left out
/// of every logged URL.
public struct OpenWeatherMapProvider: WeatherProvider {
  public let configuration: OpenWeatherMapConfiguration
  private let httpClient: HTTPClient
  private let logger: Logger
  private let clock: ProviderClock

  public init(
    configuration: OpenWeatherMapConfiguration, httpClient: HTTPClient, logger: Logger,
    clock: ProviderClock = .system
  ) {
    self.clock = clock
    self.configuration = configuration
    self.httpClient = httpClient
    self.logger = logger
  }

  public var service: WeatherService { .openWeatherMap }

  /// The service takes one point per call.
  public var maximumBatchSize: Int { 1 }

  /// Current weather plus forecast: two calls per point; One Call: one.
  public var upstreamCallsPerForecast: Int { configuration.useOneCall ? 1 : 2 }

  /// One point after the other; the first failure fails the whole request.
  public func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    try await forecastsOneByOne(points) { point async throws(ProviderError) in
      configuration.useOneCall ? try await oneCall(point) : try await currentAndForecast(point)
    }
  }

  /// The first result of `/geo/1.0/direct` for "name" or "name,CC". No result, or a 404, is nil.
  public func geocode(name: String, countryCode: String?) async throws(ProviderError)
    -> Forecast.Place?
  {
    let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
    // An empty query is answered with HTTP 400 "Nothing to geocode"; spare the call.
    guard !trimmed.isEmpty else { return nil }
    var query = QueryString()
    query.append("q", countryCode.map { "\(trimmed),\($0.uppercased())" } ?? trimmed)
    query.append("limit", "5")
    guard let body = try await getUnlessNotFound("/geo/1.0/direct", query) else { return nil }
    return try decodeJSON([OpenWeatherMapGeocodingResult].self, from: body)
      .bestMatch(countryCode: countryCode, language: configuration.language)
  }

  public var canReverseGeocode: Bool { true }

  /// The nearest named place from `/geo/1.0/reverse`, with the place's own coordinates; nil
  /// when the service knows none (open sea).
  public func reverseGeocode(_ point: GeoPoint) async throws(ProviderError) -> Forecast.Place? {
    try point.checkForRequest()
    var query = coordinates(point)
    query.append("limit", "1")
    guard let body = try await getUnlessNotFound("/geo/1.0/reverse", query) else { return nil }
    return try decodeJSON([OpenWeatherMapGeocodingResult].self, from: body)
      .bestMatch(countryCode: nil, language: configuration.language)
  }

  private func currentAndForecast(_ point: GeoPoint) async throws(ProviderError) -> Forecast {
    var metric = coordinates(point)
    metric.append("units", "metric")
    let query = metric
    async let weatherCall = outcome { () async throws(ProviderError) in
      try await get("/data/2.5/weather", query)
    }
    async let forecastCall = outcome { () async throws(ProviderError) in
      try await get("/data/2.5/forecast", query)
    }
    let (weatherBody, forecastBody) = await (weatherCall, forecastCall)
    // Both calls have ended either way; the current weather's failure is reported first.
    let now = try decodeJSON(OpenWeatherMapWeatherResponse.self, from: try weatherBody.get())
    let forecast = try decodeJSON(OpenWeatherMapForecastResponse.self, from: try forecastBody.get())
    return try forecast.forecast(for: point, now: now)
  }

  private func oneCall(_ point: GeoPoint) async throws(ProviderError) -> Forecast {
    var query = coordinates(point)
    query.append("units", "metric")
    if !configuration.alerts { query.append("exclude", "alerts") }
    let body = try await get("/data/3.0/onecall", query)
    return try decodeJSON(OpenWeatherMapOneCallResponse.self, from: body).forecast(
      for: point, alertsAsked: configuration.alerts)
  }

  private func coordinates(_ point: GeoPoint) -> QueryString {
    var query = QueryString()
    query.append("lat", coordinateText(point.latitude))
    query.append("lon", coordinateText(point.longitude))
    return query
  }

  /// The body of a successful GET of `path`, nil for a 404 (geocoding: no such place).
  private func getUnlessNotFound(_ path: String, _ query: QueryString) async throws(ProviderError)
    -> ByteBuffer?
  {
    do throws(ProviderError) {
      return try await get(path, query)
    } catch .rejected(status: 404, reason: _) {
      return nil
    }
  }

  /// The body of a successful GET of `path`; any other status becomes the matching error with the
  /// service's `message`. OpenWeatherMap sends `cod` as a number in some error bodies and as a
  /// string in others, so only `message` is read.
  private func get(_ path: String, _ query: QueryString) async throws(ProviderError) -> ByteBuffer {
    var query = query
    query.append("appid", configuration.apiKey)
    let base = joinedURL(configuration.baseURL, path)
    var call = UpstreamCall(
      service: "openweathermap", endpoint: base, url: query.url(base: base),
      loggedURL: query.url(base: base, hiding: ["appid"]), timeout: configuration.timeout)
    call.clock = clock
    return try await call.body(client: httpClient, logger: logger) {
      (try? JSONDecoder().decode(ErrorBody.self, from: $0))?.message
    }
  }

  private struct ErrorBody: Decodable {
    var message: String?
  }
}

/// Runs `body` and keeps its outcome, so two calls can run side by side with `async let` and
/// their typed errors survive.
private func outcome<T: Sendable>(_ body: () async throws(ProviderError) -> T) async -> Result<
  T, ProviderError
> {
  do {
    return .success(try await body())
  } catch {
    return .failure(error)
  }
}
