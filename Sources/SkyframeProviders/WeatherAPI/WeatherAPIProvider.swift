import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import SkyframeCodec
import SkyframeWeather

/// WeatherAPI.com's forecast and search APIs, one point per call.
///
/// A point takes one `/v1/forecast.json` call with `q=LAT,LON`, which returns now, every hour and
/// every day of `days`. Speeds come in km/h and visibility in km and are converted to m/s and
/// metres. The service gives no UTC offset; it is derived from the location's local clock (see
/// `WeatherAPILocalTime`). Place names come from `/v1/search.json`, whose countries are names,
/// mapped to codes by `WeatherAPICountries`. The key goes in `key` and is left out of every
/// logged URL.
public struct WeatherAPIProvider: WeatherProvider {
  public let configuration: WeatherAPIConfiguration
  private let httpClient: HTTPClient
  private let logger: Logger
  private let clock: ProviderClock

  public init(
    configuration: WeatherAPIConfiguration, httpClient: HTTPClient, logger: Logger,
    clock: ProviderClock = .system
  ) {
    self.clock = clock
    self.configuration = configuration
    self.httpClient = httpClient
    self.logger = logger
  }

  public var service: WeatherService { .weatherAPI }

  /// The service takes one location per call (its bulk requests are a paid feature).
  public var maximumBatchSize: Int { 1 }

  /// One point after the other; the first failure fails the whole request.
  public func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    try await forecastsOneByOne(points, forecast(for:))
  }

  private func forecast(for point: GeoPoint) async throws(ProviderError) -> Forecast {
    var query = QueryString()
    query.append("q", coordinateText(point.latitude) + "," + coordinateText(point.longitude))
    query.append("days", String(min(max(configuration.days, 1), 14)))
    query.append("aqi", "no")
    query.append("alerts", configuration.alerts ? "yes" : "no")
    if configuration.language.lowercased() != "en" {
      query.append("lang", configuration.language)
    }
    let body = try await get("/v1/forecast.json", query).mapError(\.error).get()
    return try decodeJSON(WeatherAPIForecastResponse.self, from: body).forecast(for: point)
  }

  /// The best match of `/v1/search.json` (see `bestMatch(for:countryCode:)`); nil when the
  /// service finds nothing.
  public func geocode(name: String, countryCode: String?) async throws(ProviderError)
    -> Forecast.Place?
  {
    let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
    // An empty `q` is error 1003; spare the call.
    guard !trimmed.isEmpty else { return nil }
    var query = QueryString()
    query.append("q", trimmed)
    let body: ByteBuffer
    switch try await get("/v1/search.json", query) {
    case .success(let found): body = found
    case .failure(let failure) where failure.code == 1006: return nil
    case .failure(let failure): throw failure.error
    }
    return try decodeJSON([WeatherAPISearchResult].self, from: body)
      .bestMatch(for: trimmed, countryCode: countryCode)
  }

  /// The service's answer to a GET of `path`: the body, or its error code and what that means
  /// (see `failure`). Throws only when there is no answer at all.
  private func get(_ path: String, _ query: QueryString) async throws(ProviderError)
    -> Result<ByteBuffer, ServiceError>
  {
    var query = query
    query.append("key", configuration.apiKey)
    let base = joinedURL(configuration.baseURL, path)
    var call = UpstreamCall(
      service: "weatherapi", endpoint: base, url: query.url(base: base),
      loggedURL: query.url(base: base, hiding: ["key"]), timeout: configuration.timeout)
    call.clock = clock
    let response = try await call.run(client: httpClient, logger: logger)
    guard (200..<300).contains(response.status) else {
      let detail = try? JSONDecoder().decode(ErrorBody.self, from: response.body).error
      let reason = detail?.message ?? excerpt(of: response.body, orElse: response.reasonPhrase)
      return .failure(
        ServiceError(
          code: detail?.code,
          error: Self.failure(
            status: response.status, code: detail?.code, reason: reason,
            retryAfterSeconds: response.retryAfterSeconds)))
    }
    return .success(response.body)
  }

  /// A failed answer: the service's own error code (1006: no matching location) and the error
  /// it stands for.
  private struct ServiceError: Error {
    var code: Int?
    var error: ProviderError
  }

  /// The service's error code says more than the HTTP status: quota exhausted (2007) and a
  /// disabled key (2008, 2009) share 403, but only the first passes by waiting.
  private static func failure(status: Int, code: Int?, reason: String, retryAfterSeconds: Int?)
    -> ProviderError
  {
    switch code {
    case 1002, 2006, 2008, 2009:
      return .unauthorized(reason)
    case 2007:
      return .rateLimited(reason, retryAfterSeconds: retryAfterSeconds)
    case 1003, 1005, 1006:
      return .rejected(status: (400..<500).contains(status) ? status : 400, reason: reason)
    case 9999:
      // "Internal application error", sent with HTTP 400.
      return .unavailable("error 9999: \(reason)")
    default:
      return .forStatus(status, reason: reason, retryAfterSeconds: retryAfterSeconds)
    }
  }

  private struct ErrorBody: Decodable {
    var error: Detail?

    struct Detail: Decodable {
      var code: Int?
      var message: String?
    }
  }
}
