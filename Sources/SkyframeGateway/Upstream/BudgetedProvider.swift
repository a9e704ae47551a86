import CoreMetrics
import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// A weather service behind its circuit breaker and its call budget (`UpstreamGuard`), with its
/// calls counted.
struct BudgetedProvider: WeatherProvider {
  let inner: any WeatherProvider
  let guarded: UpstreamGuard

  var service: WeatherService { inner.service }
  var maximumBatchSize: Int { inner.maximumBatchSize }
  var canReverseGeocode: Bool { inner.canReverseGeocode }
  var upstreamCallsPerForecast: Int { inner.upstreamCallsPerForecast }

  func rememberedForecasts(for points: [GeoPoint]) -> [Forecast]? {
    inner.rememberedForecasts(for: points)
  }

  /// No call, no budget spent, when the service said not to ask yet (`rememberedForecasts`).
  /// An answer too old to describe the present is the service failing, for every service alike
  /// (`Forecast.checkRecent(at:)`): counted as a failed call, and answered from the cache, by the
  /// next service or as `upstream_unavailable`.
  func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    if let remembered = inner.rememberedForecasts(for: points) { return try recent(remembered) }
    let batch = max(inner.maximumBatchSize, 1)
    let calls = ((points.count + batch - 1) / batch) * inner.upstreamCallsPerForecast
    return try await guarded.call(calls) { () async throws(ProviderError) in
      try recent(try await inner.forecasts(for: points))
    }
  }

  private func recent(_ forecasts: [Forecast]) throws(ProviderError) -> [Forecast] {
    let now = guarded.health.clock.unixTime()
    for forecast in forecasts { try forecast.checkRecent(at: now) }
    return forecasts
  }

  func geocode(name: String, countryCode: String?) async throws(ProviderError) -> Forecast.Place? {
    try await guarded.call(1) { () async throws(ProviderError) in
      try await inner.geocode(name: name, countryCode: countryCode)
    }
  }

  func reverseGeocode(_ point: GeoPoint) async throws(ProviderError) -> Forecast.Place? {
    guard inner.canReverseGeocode else { return nil }
    return try await guarded.call(1) { () async throws(ProviderError) in
      try await inner.reverseGeocode(point)
    }
  }
}

/// What stands between the gateway and one upstream service: its circuit breaker, its call
/// budget and its counters. While the breaker is open no call is sent and the answer is
/// `paused`; past the budget no call is sent and the answer is `rateLimited`. The gateway turns
/// either into a stale frame from the cache, the next service in the fallback order, or an error
/// frame, at once.
struct UpstreamGuard: Sendable {
  let budget: CallBudget
  let name: String
  let health: ServiceHealth
  let breaker: CircuitBreaker
  let scheduled: ScheduledWork
  let logger: Logger

  /// Runs one upstream call (or one batch) of `calls` calls if the breaker and the budget allow
  /// it, timed and counted by its result, and tells the breaker how it went.
  func call<Value>(_ calls: Int, _ body: () async throws(ProviderError) -> Value)
    async throws(ProviderError) -> Value
  {
    let permission = breaker.permission()
    if case .refused(let remaining) = permission {
      health.paused()
      let state = breaker.current
      throw .paused(
        "\(name) is held back after \(state.failures) failed call(s)"
          + (remaining > .zero ? ", next try in \(Self.seconds(remaining))" : ", a probe is out")
          + " (last: \(state.lastFailure ?? "?")); no call sent",
        cause: state.cause,
        retryInSeconds: remaining > .zero
          ? Int(remaining.components.seconds) + (remaining.components.attoseconds > 0 ? 1 : 0)
          : nil)
    }
    guard budget.take(calls, for: UpstreamPriority.current, reserving: scheduled.exists) else {
      // The probe did not go out: the next caller may make it.
      if permission == .probe { breaker.abandonProbe() }
      let limits = budget.limits
      health.refused()
      throw .rateLimited(
        "\(name) call budget spent (\(limits.perMinute) a minute, \(limits.perDay) a day): no call sent"
      )
    }
    let start = health.clock.now
    do {
      let value = try await body()
      health.succeeded(after: health.clock.now - start)
      log(breaker.succeeded())
      return value
    } catch {
      health.failed(error, after: health.clock.now - start)
      // One line per failed call (a batch of cells is one call); calls the breaker or the budget
      // held back never get here, so an open breaker adds no line per request.
      logger.warning(
        "\(name) call failed", metadata: ["error": "\(String(describing: error).prefix(300))"])
      // A refusal of this request (an unknown place, a bad parameter) is the service working.
      if case .rejected = error { log(breaker.succeeded()) } else { log(breaker.failed(error)) }
      throw error
    }
  }

  private func log(_ transition: CircuitBreaker.Transition?) {
    switch transition {
    case .opened(let pause, let reason)?:
      health.breakerOpened()
      logger.warning(
        "\(name) paused for \(Self.seconds(pause)): no calls until then, answers come from the cache or the next service",
        metadata: ["reason": "\(reason.prefix(200))"])
    case .closed?:
      logger.notice("\(name) answered again: calls resume")
    case nil:
      break
    }
  }

  private static func seconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let tenths = (seconds * 10 + attoseconds / 100_000_000_000_000_000)
    return "\(tenths / 10).\(tenths % 10) s"
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
  /// The gateway's clock: call times are measured on it.
  let clock: GatewayClock

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
      case .outdated: "outdated"
      case .paused: "paused"
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

  func breakerOpened() {
    upstream.breakerOpenings.increment()
  }

  /// The breaker said no: nothing was sent.
  func paused() {
    metrics.upstreamCall(upstream, result: "paused", duration: nil)
  }

  /// Publishes what is left of `budget` and where `breaker` stands to the gauges (before a
  /// scrape).
  func report(_ budget: CallBudget, _ breaker: CircuitBreaker) {
    let remaining = budget.remaining
    upstream.remainingMinute.record(remaining.minute ?? -1)
    upstream.remainingDay.record(remaining.day ?? -1)
    let state = breaker.current
    let position: Int =
      switch state.position {
      case .closed: 0
      case .open: 1
      case .probing: 2
      }
    upstream.breakerState.record(position)
    upstream.breakerFailures.record(state.failures)
  }
}
