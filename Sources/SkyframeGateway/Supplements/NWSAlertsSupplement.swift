import SkyframeProviders
import SkyframeWeather

/// The alerts in force from the US National Weather Service (`alerts.nws`), for points it covers:
/// they take the place of the weather service's own. Cached per cell for `alerts.nws.ttl-seconds`,
/// one call per cell, behind its own budget and breaker; off without a `user-agent`.
final class NWSAlertsSupplement: Supplement {
  static let kind = SupplementKind(
    name: NWSAlertsProvider.name,
    source: { configuration in
      guard configuration.alerts.enabled, configuration.alerts.nws.isUsable else { return nil }
      return GatewayInfo.Source(
        name: NWSAlertsProvider.name, role: "alerts",
        attribution: "Alerts from the US National Weather Service (weather.gov)",
        license: "US government work, no restrictions", url: "https://www.weather.gov/")
    },
    make: { NWSAlertsSupplement($0) })

  let guarded: UpstreamGuard
  /// The alerts in force by cell.
  let alerts: CellSupplement<[Forecast.Alert]>
  private let context: SupplementContext

  init(_ context: SupplementContext) {
    self.context = context
    guarded = UpstreamGuard(
      name: NWSAlertsProvider.name, budget: context.configuration.alerts.nws.budget, context)
    alerts = CellSupplement(
      settings: Self.settings(context.configuration), clock: context.clock,
      background: context.background, covers: NWSAlertsProvider.covers)
  }

  private static func settings(_ configuration: GatewayConfiguration)
    -> CellSupplement<[Forecast.Alert]>.Settings
  {
    .init(
      ttlSeconds: Int64(configuration.alerts.nws.ttlSeconds),
      maximumCells: configuration.cache.maximumCells,
      wait: .milliseconds(configuration.alerts.nws.waitMilliseconds))
  }

  var isEnabled: Bool { alerts.isEnabled }

  func configure(_ configuration: GatewayConfiguration) {
    let nws = configuration.alerts.nws
    guarded.update(nws.budget, configuration)
    let settings = Self.settings(configuration)
    guard configuration.alerts.enabled, nws.enabled, let userAgent = nws.userAgent else {
      alerts.update(settings, batcher: nil)
      return
    }
    let provider = NWSAlertsProvider(
      configuration: .init(
        baseURL: nws.url, userAgent: userAgent, timeout: .seconds(nws.timeoutSeconds)),
      httpClient: context.httpClient, logger: context.logger, clock: context.clock.providerClock)
    let guarded = guarded
    let batcher = PointBatcher<[Forecast.Alert]>(maximumBatchSize: 1, window: .zero) {
      points async throws(ProviderError) in
      var answers: [[Forecast.Alert]] = []
      for point in points {
        answers.append(
          try await guarded.call(1) { () async throws(ProviderError) in
            try await provider.alerts(at: point)
          })
      }
      return answers
    }
    alerts.update(settings, batcher: batcher)
  }

  func amendment(for cell: WeatherDesk.Cell, at center: GeoPoint) async -> Amendment? {
    guard let inForce = await alerts.reading(for: cell, at: center) else { return nil }
    return { $0.forecast.alerts = inForce }
  }
}
