import SkyframeCodec
import SkyframeProviders
import SkyframeWeather

/// A weather service behind its call budget: past the budget no call is sent and the answer is
/// `rateLimited`, which the gateway turns into a stale frame from the cache, the next service in
/// the fallback order, or a `rate_limited` frame.
struct BudgetedProvider: WeatherProvider {
  let inner: any WeatherProvider
  let budget: CallBudget
  let name: String

  var service: WeatherService { inner.service }
  var maximumBatchSize: Int { inner.maximumBatchSize }
  var canReverseGeocode: Bool { inner.canReverseGeocode }
  var upstreamCallsPerForecast: Int { inner.upstreamCallsPerForecast }

  private func spend(_ calls: Int) throws(ProviderError) {
    guard budget.take(calls) else {
      let limits = budget.limits
      throw .rateLimited(
        "\(name) call budget spent (\(limits.perMinute) a minute, \(limits.perDay) a day): no call sent"
      )
    }
  }

  func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    let batch = max(inner.maximumBatchSize, 1)
    let calls = ((points.count + batch - 1) / batch) * inner.upstreamCallsPerForecast
    try spend(calls)
    return try await inner.forecasts(for: points)
  }

  func geocode(name: String, countryCode: String?) async throws(ProviderError) -> Forecast.Place? {
    try spend(1)
    return try await inner.geocode(name: name, countryCode: countryCode)
  }

  func reverseGeocode(_ point: GeoPoint) async throws(ProviderError) -> Forecast.Place? {
    guard inner.canReverseGeocode else { return nil }
    try spend(1)
    return try await inner.reverseGeocode(point)
  }
}
