import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import SkyframeCodec
import SkyframeWeather
import Synchronization

/// MET Norway's Locationforecast 2.0 (`compact`), one point per call, under the service's terms:
///
/// - every call carries the operator's identifying `User-Agent` (the configuration refuses to
///   start without one);
/// - coordinates are rounded to 4 decimals;
/// - a point is not asked again before the `Expires` of its last answer: until then the answer
///   is rebuilt from memory without a call (`rememberedForecasts`), and the forecast carries
///   `validUntil` so that the gateway's cache keeps it fresh that long;
/// - after `Expires` the call carries `If-Modified-Since` with the previous `Last-Modified`
///   verbatim, and a 304 answer reuses the remembered body;
/// - a 203 answer (a product in beta or deprecated) is used and logged as a warning, at most once
///   an hour;
/// - bodies are accepted gzip-compressed (the HTTP client's decompression).
///
/// Place names come from Open-Meteo's geocoding API (MET Norway has none).
public struct METNorwayProvider: WeatherProvider {
  public struct Configuration: Sendable {
    /// Up to `/compact`'s parent: `https://api.met.no/weatherapi/locationforecast/2.0`.
    public var baseURL: String
    /// The operator's application and contact, e.g. `acme-displays/1.0 ops@example.com`.
    public var userAgent: String
    public var timeout: Duration
    /// Points whose last answer is remembered (for `Expires` and `If-Modified-Since`).
    public var rememberedPoints: Int
    /// Open-Meteo's geocoding endpoint, for names.
    public var geocodingURL: String

    public init(
      baseURL: String, userAgent: String, timeout: Duration, rememberedPoints: Int,
      geocodingURL: String
    ) {
      self.baseURL = baseURL
      self.userAgent = userAgent
      self.timeout = timeout
      self.rememberedPoints = rememberedPoints
      self.geocodingURL = geocodingURL
    }
  }

  public let configuration: Configuration
  private let httpClient: HTTPClient
  private let logger: Logger
  private let clock: ProviderClock
  private let now: @Sendable () -> Int64
  private let memory: Memory
  private let geocoder: OpenMeteoProvider

  public init(
    configuration: Configuration, httpClient: HTTPClient, logger: Logger,
    now: @escaping @Sendable () -> Int64, clock: ProviderClock = .system
  ) {
    self.clock = clock
    self.configuration = configuration
    self.httpClient = httpClient
    self.logger = logger
    self.now = now
    memory = Memory(capacity: max(configuration.rememberedPoints, 1))
    var geocoding = OpenMeteoConfiguration()
    geocoding.geocodingURL = configuration.geocodingURL
    geocoding.timeout = configuration.timeout
    geocoder = OpenMeteoProvider(
      configuration: geocoding, httpClient: httpClient, logger: logger, clock: clock)
  }

  public var service: WeatherService { .metNorway }
  public var maximumBatchSize: Int { 1 }

  /// `point` as the service wants it: 4 decimals at most.
  public static func key(_ point: GeoPoint) -> Memory.Key {
    Memory.Key(
      latitude: Int64((point.latitude * 10_000).rounded()),
      longitude: Int64((point.longitude * 10_000).rounded()))
  }

  public func rememberedForecasts(for points: [GeoPoint]) -> [Forecast]? {
    var forecasts: [Forecast] = []
    for point in points {
      guard let forecast = remembered(point, memory.entry(Self.key(point))) else { return nil }
      forecasts.append(forecast)
    }
    return forecasts
  }

  /// The forecast from `entry` while its `Expires` has not passed; nil when a call is due.
  private func remembered(_ point: GeoPoint, _ entry: Memory.Entry?) -> Forecast? {
    let time = now()
    guard let entry, let expires = entry.expires, time < expires,
      var forecast = try? entry.response.forecast(for: point, now: time)
    else { return nil }
    forecast.validUntil = expires
    return forecast
  }

  public func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    try await forecastsOneByOne(points, forecast(for:))
  }

  private func forecast(for point: GeoPoint) async throws(ProviderError) -> Forecast {
    let key = Self.key(point)
    let remembered = memory.entry(key)
    if let forecast = self.remembered(point, remembered) { return forecast }
    var query = QueryString()
    query.append("lat", fourDecimalText(key.latitude))
    query.append("lon", fourDecimalText(key.longitude))
    let base = joinedURL(configuration.baseURL, "/compact")
    var call = UpstreamCall(
      service: METNorwayService.name, endpoint: base, url: query.url(base: base),
      loggedURL: query.url(base: base), timeout: configuration.timeout)
    call.userAgent = configuration.userAgent
    call.clock = clock
    if let lastModified = remembered?.lastModified {
      call.headers.append((name: "If-Modified-Since", value: lastModified))
    }
    let response = try await call.run(client: httpClient, logger: logger)
    let expires = response.headers.first(name: "Expires").flatMap(UpstreamCall.httpDate)
    let lastModified = response.headers.first(name: "Last-Modified")
    let body: METNorwayForecastResponse
    switch response.status {
    case 304:
      guard let remembered else {
        throw .malformed("met-norway: 304 Not Modified to a call without If-Modified-Since")
      }
      body = remembered.response
    case 200..<300:
      if response.status == 203 { warnDeprecated() }
      body = try decodeJSON(METNorwayForecastResponse.self, from: response.body)
    default:
      throw response.error(
        reason: excerpt(of: response.body, orElse: response.reasonPhrase))
    }
    memory.set(
      Memory.Entry(
        response: body, lastModified: lastModified ?? remembered?.lastModified, expires: expires),
      for: key)
    var forecast = try body.forecast(for: point, now: now())
    forecast.validUntil = expires
    return forecast
  }

  public func geocode(name: String, countryCode: String?) async throws(ProviderError)
    -> Forecast.Place?
  {
    try await geocoder.geocode(name: name, countryCode: countryCode)
  }

  private func warnDeprecated() {
    guard memory.shouldWarn(at: now()) else { return }
    logger.warning(
      "met-norway answered 203 Non-Authoritative Information: Locationforecast 2.0 compact is in beta or deprecated; If-Modified-Since may not work, and a newer version should be used",
      metadata: ["url": "\(configuration.baseURL)"])
  }

  /// The last answer per point, at most `capacity` points (`met-norway.remembered-points`); the
  /// least recently used goes first.
  public final class Memory: Sendable {
    public struct Key: Hashable, Sendable {
      var latitude: Int64
      var longitude: Int64
    }

    struct Entry: Sendable {
      var response: METNorwayForecastResponse
      /// `Last-Modified` exactly as sent.
      var lastModified: String?
      /// `Expires` as Unix seconds.
      var expires: Int64?
    }

    private struct State {
      var entries: LRUTable<Key, Entry>
      var lastWarning: Int64?
    }

    private let state: Mutex<State>

    init(capacity: Int) { state = Mutex(State(entries: LRUTable(capacity: capacity))) }

    var count: Int { state.withLock { $0.entries.count } }

    func entry(_ key: Key) -> Entry? {
      state.withLock { $0.entries.value(forKey: key) }
    }

    func set(_ entry: Entry, for key: Key) {
      state.withLock { _ = $0.entries.set(entry, forKey: key) }
    }

    /// True at most once an hour.
    func shouldWarn(at time: Int64) -> Bool {
      state.withLock { state in
        if let last = state.lastWarning, time - last < 3_600 { return false }
        state.lastWarning = time
        return true
      }
    }
  }
}
