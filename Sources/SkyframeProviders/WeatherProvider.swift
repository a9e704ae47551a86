import SkyframeCodec
import SkyframeWeather

/// A weather service seen through the normalized model: forecasts for points and places by name.
public protocol WeatherProvider: Sendable {
  var service: WeatherService { get }
  /// How many points one upstream call can carry (Open-Meteo: comma-separated coordinates).
  var maximumBatchSize: Int { get }
  /// Forecasts for `points`, in the same order, in as few upstream calls as the service allows
  /// (one for Open-Meteo up to `maximumBatchSize`). `Place.name` is "" (the gateway names places)
  /// and `countryCode` nil.
  func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast]
  /// The best match for a place name, or nil when the service knows none.
  func geocode(name: String, countryCode: String?) async throws(ProviderError) -> Forecast.Place?
  /// Whether `reverseGeocode` asks the service (requirements, so that a provider's own answer is
  /// used through `any WeatherProvider`, not the default below).
  var canReverseGeocode: Bool { get }
  /// The name of the place at `point`, or nil when the service knows none or has no such lookup.
  func reverseGeocode(_ point: GeoPoint) async throws(ProviderError) -> Forecast.Place?
  /// HTTP calls one `forecasts(for:)` of a single point costs, for call budgets (OpenWeatherMap's
  /// current weather plus 5-day forecast: 2).
  var upstreamCallsPerForecast: Int { get }
  /// Forecasts for `points` that the provider may give without an upstream call, because the
  /// service said not to ask again yet (MET Norway's `Expires`); nil when a call is needed.
  func rememberedForecasts(for points: [GeoPoint]) -> [Forecast]?
}

extension WeatherProvider {
  /// Open-Meteo has no reverse geocoding; OpenWeatherMap has `/geo/1.0/reverse`.
  public var canReverseGeocode: Bool { false }

  public func reverseGeocode(_ point: GeoPoint) async throws(ProviderError) -> Forecast.Place? {
    nil
  }

  public var upstreamCallsPerForecast: Int { 1 }

  public func rememberedForecasts(for points: [GeoPoint]) -> [Forecast]? { nil }
}

/// Forecasts for `points` in order, one `forecast` after the other once every point is checked,
/// for services that take one point per call; the first failure fails the whole request.
func forecastsOneByOne(
  _ points: [GeoPoint], _ forecast: (GeoPoint) async throws(ProviderError) -> Forecast
) async throws(ProviderError) -> [Forecast] {
  for point in points { try point.checkForRequest() }
  var forecasts: [Forecast] = []
  forecasts.reserveCapacity(points.count)
  for point in points {
    forecasts.append(try await forecast(point))
  }
  return forecasts
}
