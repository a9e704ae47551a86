import AsyncHTTPClient
import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather

/// What a cell's frames get beside its forecast from another API (air quality, official alerts;
/// pollen or a second alert service would be more of the same): fetched alongside the forecast,
/// by weather cell, behind the API's own budget and breaker. It never fails the forecast: off,
/// outside its area, failed or late, the frame goes without it.
///
/// A supplement is one file here and one line in `SupplementRegistry.all`.
protocol Supplement: Sendable {
  /// Its budget, breaker and counters (the status page, `/health`, the metrics name it).
  var guarded: UpstreamGuard { get }
  /// Whether it is on in the running configuration.
  var isEnabled: Bool { get }
  /// Its settings, provider and budget for `configuration`, at start and at every reload.
  func configure(_ configuration: GatewayConfiguration)
  /// What it adds to the cell's forecast: from its own cache, else fetched (one call per cell
  /// however many ask), waiting at most its `wait-ms`; nil: nothing to add.
  func amendment(for cell: WeatherDesk.Cell, at center: GeoPoint) async -> Amendment?
}

/// A forecast as fetched and what the supplements add to it, before it is compacted.
struct SupplementedForecast: Sendable {
  var forecast: Forecast
  /// The index the frame carries (v1.1 `air_quality`); nil: none.
  var airQuality: AirQuality?
}

/// A supplement's change to a forecast, made once the forecast is there.
typealias Amendment = @Sendable (inout SupplementedForecast) -> Void

/// What a supplement is made from: the gateway's HTTP client, clock, metrics and the fleet's
/// budget share.
struct SupplementContext: Sendable {
  var configuration: GatewayConfiguration
  var httpClient: HTTPClient
  var metrics: GatewayMetrics
  var clock: GatewayClock
  var logger: Logger
  var fleet: FleetShare?
  var background: BackgroundWork?
  var scheduled: ScheduledWork
}

/// A supplement as the gateway knows it before it is made.
struct SupplementKind: Sendable {
  /// The name its budget, breaker and health go by.
  let name: String
  /// The credit `{base}/v1/gateway/info` lists for it, when `configuration` turns it on.
  let source: @Sendable (GatewayConfiguration) -> GatewayInfo.Source?
  let make: @Sendable (SupplementContext) -> any Supplement
}

/// Every supplement, in the order their services are listed.
enum SupplementRegistry {
  static let all: [SupplementKind] = [AirQualitySupplement.kind, NWSAlertsSupplement.kind]

  /// Every supplement made for `context`, each configured for its configuration.
  static func make(_ context: SupplementContext) -> [any Supplement] {
    all.map { kind in
      let supplement = kind.make(context)
      supplement.configure(context.configuration)
      return supplement
    }
  }

  /// The amendments of every supplement for the cell, fetched side by side.
  static func amendments(
    of supplements: [any Supplement], for cell: WeatherDesk.Cell, at center: GeoPoint
  ) async -> [Amendment] {
    guard !supplements.isEmpty else { return [] }
    return await withTaskGroup(of: Amendment?.self) { group in
      for supplement in supplements {
        group.addTask { await supplement.amendment(for: cell, at: center) }
      }
      var amendments: [Amendment] = []
      for await amendment in group {
        if let amendment { amendments.append(amendment) }
      }
      return amendments
    }
  }
}

extension UpstreamGuard {
  /// A guard of its own for the API `name`: budget from `budget`, the upstream breaker policy.
  init(name: String, budget: GatewayConfiguration.Budget, _ context: SupplementContext) {
    let configuration = context.configuration
    self.init(
      budget: CallBudget(
        budget, reservePercent: configuration.upstream.reservePercent, clock: context.clock,
        fleet: context.fleet),
      name: name,
      health: ServiceHealth(name: name, metrics: context.metrics, clock: context.clock),
      breaker: CircuitBreaker(
        service: name, policy: configuration.upstream.breakerPolicy, clock: context.clock),
      scheduled: context.scheduled, logger: context.logger)
  }

  /// The budget and breaker policy of `configuration`, for a reload.
  func update(_ budget: GatewayConfiguration.Budget, _ configuration: GatewayConfiguration) {
    self.budget.update(budget, reservePercent: configuration.upstream.reservePercent)
    breaker.update(configuration.upstream.breakerPolicy)
  }
}
