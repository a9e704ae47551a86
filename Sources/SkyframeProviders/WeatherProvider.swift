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
}

extension WeatherProvider {
  /// The name of the place at `point` (reverse geocoding), or nil when the service has no such
  /// lookup. Open-Meteo has none; OpenWeatherMap has `/geo/1.0/reverse`.
  public var canReverseGeocode: Bool { false }

  public func reverseGeocode(_ point: GeoPoint) async throws(ProviderError) -> Forecast.Place? { nil }
}
