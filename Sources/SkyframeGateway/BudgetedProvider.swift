import CoreMetrics
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// A weather service behind its call budget, with its calls counted: past the budget no call is
/// sent and the answer is `rateLimited`, which the gateway turns into a stale frame from the
/// cache, the next service in the fallback order, or a `rate_limited` frame.
struct BudgetedProvider: WeatherProvider {
  let inner: any WeatherProvider
  let budget: CallBudget
  let name: String
  let health: ServiceHealth
  let scheduled: ScheduledWork

  var service: WeatherService { inner.service }
  var maximumBatchSize: Int { inner.maximumBatchSize }
  var canReverseGeocode: Bool { inner.canReverseGeocode }
  var upstreamCallsPerForecast: Int { inner.upstreamCallsPerForecast }

  private func spend(_ calls: Int) throws(ProviderError) {
    guard budget.take(calls, for: UpstreamPriority.current, reserving: scheduled.exists) else {
      let limits = budget.limits
      health.refused()
      throw .rateLimited(
        "\(name) call budget spent (\(limits.perMinute) a minute, \(limits.perDay) a day): no call sent"
      )
    }
  }

  /// Runs one upstream call (or one batch), timed and counted by its result.
  private func call<Value>(_ body: () async throws(ProviderError) -> Value)
    async throws(ProviderError) -> Value
  {
    let start = ContinuousClock.now
    do {
      let value = try await body()
      health.succeeded(after: ContinuousClock.now - start)
      return value
    } catch {
      health.failed(error, after: ContinuousClock.now - start)
      throw error
    }
  }

  func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    let batch = max(inner.maximumBatchSize, 1)
    let calls = ((points.count + batch - 1) / batch) * inner.upstreamCallsPerForecast
    try spend(calls)
    return try await call { () async throws(ProviderError) in try await inner.forecasts(for: points)
    }
  }

  func geocode(name: String, countryCode: String?) async throws(ProviderError) -> Forecast.Place? {
    try spend(1)
    return try await call { () async throws(ProviderError) in
      try await inner.geocode(name: name, countryCode: countryCode)
    }
  }

  func reverseGeocode(_ point: GeoPoint) async throws(ProviderError) -> Forecast.Place? {
    guard inner.canReverseGeocode else { return nil }
    try spend(1)
    return try await call { () async throws(ProviderError) in try await inner.reverseGeocode(point)
    }
  }
}

/// One weather service as an operator sees it: the last success, the last error and its calls by
/// result (Prometheus), kept for the whole life of the gateway.
final class ServiceHealth: Sendable {
  struct Record: Sendable, Equatable {
    var lastSuccess: Int64?
    var lastError: String?
    var lastErrorAt: Int64?
  }

  let name: String
  private let record = Mutex(Record())
  private let metrics: GatewayMetrics
  private let upstream: GatewayMetrics.Upstream
  private let clock: GatewayClock

  init(name: String, metrics: GatewayMetrics, clock: GatewayClock) {
    self.name = name
    self.metrics = metrics
    upstream = metrics.upstream(service: name)
    self.clock = clock
  }

  var current: Record { record.withLock { $0 } }

  func succeeded(after duration: Duration) {
    metrics.upstreamCall(upstream, result: "ok", duration: duration)
    let time = clock.unixTime()
    record.withLock { $0.lastSuccess = time }
  }

  func failed(_ error: ProviderError, after duration: Duration) {
    let result: String =
      switch error {
      case .rateLimited: "rate_limited"
      case .rejected: "rejected"
      case .unauthorized: "unauthorized"
      case .unavailable: "unavailable"
      case .malformed: "malformed"
      }
    metrics.upstreamCall(upstream, result: result, duration: duration)
    let time = clock.unixTime()
    record.withLock {
      $0.lastError = "\(error)"
      $0.lastErrorAt = time
    }
  }

  /// The budget said no: nothing was sent.
  func refused() {
    metrics.upstreamCall(upstream, result: "over_budget", duration: nil)
  }

  /// Publishes what is left of `budget` to the gauges (before a scrape).
  func report(_ budget: CallBudget) {
    let remaining = budget.remaining
    upstream.remainingMinute.record(remaining.minute ?? -1)
    upstream.remainingDay.record(remaining.day ?? -1)
  }
}
