import AsyncHTTPClient
import Logging
import SkyframePlaces
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// Weather fetched, assembled from the configuration: each configured service behind its call
/// budget and batcher, in fallback order, and where names for positions come from. Budgets live
/// as long as the gateway: a reload changes limits, not what was already spent.
final class WeatherServices: Sendable {
  let httpClient: HTTPClient
  let logger: Logger
  let clock: GatewayClock
  /// By service name, for every registered service.
  let budgets: [String: CallBudget]
  let health: [String: ServiceHealth]
  let breakers: [String: CircuitBreaker]
  /// The air-quality API's own budget, breaker and counters.
  let airQualityGuard: UpstreamGuard
  /// Air quality by cell, for the frames the desk compacts.
  let airQuality: AirQualityDesk
  static let airQualityName = "open-meteo-air-quality"
  /// The NWS alerts API's own budget, breaker and counters.
  let alertsGuard: UpstreamGuard
  /// Official alerts by cell, for points the NWS covers.
  let officialAlerts: CellSupplement<[Forecast.Alert]>
  let scheduled = ScheduledWork()
  /// The latest run of each model in `runs.models` (a Service of the gateway's).
  let modelRuns: ModelRuns
  private let geonames = Mutex<(path: String, index: GeoNamesIndex)?>(nil)
  /// The services the running configuration uses, in fallback order.
  private let inUse = Mutex<[String]>([])

  init(
    configuration: GatewayConfiguration, httpClient: HTTPClient, metrics: GatewayMetrics,
    clock: GatewayClock, logger: Logger, fleet: FleetShare? = nil,
    background: BackgroundWork? = nil
  ) {
    self.httpClient = httpClient
    self.logger = logger
    self.clock = clock
    modelRuns = ModelRuns(
      settings: configuration.runs, httpClient: httpClient, clock: clock, logger: logger)
    let names = WeatherServiceRegistry.names
    budgets = Dictionary(
      uniqueKeysWithValues: names.map { name in
        (
          name,
          CallBudget(
            configuration.budget(of: name), reservePercent: configuration.upstream.reservePercent,
            clock: clock, fleet: fleet)
        )
      })
    health = Dictionary(
      uniqueKeysWithValues: names.map { name in
        (name, ServiceHealth(name: name, metrics: metrics, clock: clock))
      })
    breakers = Dictionary(
      uniqueKeysWithValues: names.map { name in
        (
          name,
          CircuitBreaker(service: name, policy: configuration.upstream.breakerPolicy, clock: clock)
        )
      })
    airQualityGuard = UpstreamGuard(
      budget: CallBudget(
        configuration.airQuality.budget, reservePercent: configuration.upstream.reservePercent,
        clock: clock, fleet: fleet),
      name: Self.airQualityName,
      health: ServiceHealth(name: Self.airQualityName, metrics: metrics, clock: clock),
      breaker: CircuitBreaker(
        service: Self.airQualityName, policy: configuration.upstream.breakerPolicy, clock: clock),
      scheduled: scheduled, logger: logger)
    airQuality = AirQualityDesk(
      settings: Self.airQualitySettings(configuration), clock: clock, background: background)
    let nws = NWSAlertsProvider.name
    alertsGuard = UpstreamGuard(
      budget: CallBudget(
        configuration.alerts.nws.budget, reservePercent: configuration.upstream.reservePercent,
        clock: clock, fleet: fleet),
      name: nws, health: ServiceHealth(name: nws, metrics: metrics, clock: clock),
      breaker: CircuitBreaker(
        service: nws, policy: configuration.upstream.breakerPolicy, clock: clock),
      scheduled: scheduled, logger: logger)
    officialAlerts = CellSupplement(
      settings: Self.alertSettings(configuration), clock: clock, background: background,
      covers: NWSAlertsProvider.covers)
  }

  private static func airQualitySettings(_ configuration: GatewayConfiguration)
    -> AirQualityDesk.Settings
  {
    AirQualityDesk.Settings(
      ttlSeconds: Int64(configuration.airQuality.ttlSeconds),
      maximumCells: configuration.cache.maximumCells)
  }

  private static func alertSettings(_ configuration: GatewayConfiguration)
    -> CellSupplement<[Forecast.Alert]>.Settings
  {
    .init(
      ttlSeconds: Int64(configuration.alerts.nws.ttlSeconds),
      maximumCells: configuration.cache.maximumCells)
  }

  /// The NWS alerts set up for `configuration`: settings, budget and batcher (none: off).
  private func configureOfficialAlerts(_ configuration: GatewayConfiguration) {
    let nws = configuration.alerts.nws
    alertsGuard.budget.update(nws.budget, reservePercent: configuration.upstream.reservePercent)
    alertsGuard.breaker.update(configuration.upstream.breakerPolicy)
    let settings = Self.alertSettings(configuration)
    guard configuration.alerts.enabled, nws.enabled, let userAgent = nws.userAgent else {
      officialAlerts.update(settings, batcher: nil)
      return
    }
    let provider = NWSAlertsProvider(
      configuration: .init(
        baseURL: nws.url, userAgent: userAgent, timeout: .seconds(nws.timeoutSeconds)),
      httpClient: httpClient, logger: logger, clock: clock.providerClock)
    let guarded = alertsGuard
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
    officialAlerts.update(settings, batcher: batcher)
  }

  /// The air-quality desk set up for `configuration`: its settings, budget and batcher.
  private func configureAirQuality(_ configuration: GatewayConfiguration) {
    airQualityGuard.budget.update(
      configuration.airQuality.budget, reservePercent: configuration.upstream.reservePercent)
    airQualityGuard.breaker.update(configuration.upstream.breakerPolicy)
    let settings = Self.airQualitySettings(configuration)
    guard configuration.airQuality.service == .openMeteo else {
      airQuality.update(settings, batcher: nil)
      return
    }
    let provider = OpenMeteoProvider(
      configuration: configuration.openMeteoConfiguration, httpClient: httpClient, logger: logger,
      clock: clock.providerClock)
    let guarded = airQualityGuard
    let batcher = PointBatcher<AirQualityReading>(
      maximumBatchSize: provider.maximumBatchSize,
      window: .milliseconds(configuration.weather.batchWindowMilliseconds), clock: clock
    ) { points async throws(ProviderError) in
      let batch = max(provider.maximumBatchSize, 1)
      return try await guarded.call((points.count + batch - 1) / batch) {
        () async throws(ProviderError) in try await provider.airQuality(for: points)
      }
    }
    airQuality.update(settings, batcher: batcher)
  }

  /// Whether every weather service in use is paused now (its breaker refuses calls): a miss would
  /// be answered `stale` from the cache at once, and nobody else's fetch is worth waiting for.
  var allPaused: Bool {
    let names = inUse.withLock { $0 }
    return !names.isEmpty && names.allSatisfy { breakers[$0]?.isRefusingCalls ?? false }
  }

  /// Each service in use: its health, budget and breaker, for `/health` and the stats message.
  var status: [(name: String, health: ServiceHealth, budget: CallBudget, breaker: CircuitBreaker)] {
    var services = inUse.withLock { $0 }.map {
      ($0, health[$0]!, budgets[$0]!, breakers[$0]!)
    }
    for (enabled, guarded) in [
      (airQuality.isEnabled, airQualityGuard), (officialAlerts.isEnabled, alertsGuard),
    ] where enabled {
      services.append((guarded.name, guarded.health, guarded.budget, guarded.breaker))
    }
    return services
  }

  /// The services in fallback order, each behind its budget and batcher, and the reverse geocoder.
  func settings(for configuration: GatewayConfiguration) -> WeatherDesk.Settings {
    let window = Duration.milliseconds(configuration.weather.batchWindowMilliseconds)
    var services: [ForecastBatcher] = []
    var reverse: WeatherDesk.ReverseGeocoder = .none
    configureAirQuality(configuration)
    configureOfficialAlerts(configuration)
    modelRuns.update(configuration.runs)
    for name in WeatherServiceRegistry.names {
      budgets[name]?.update(
        configuration.budget(of: name), reservePercent: configuration.upstream.reservePercent)
      breakers[name]?.update(configuration.upstream.breakerPolicy)
    }
    let clock = clock
    var context = ProviderContext(
      httpClient: httpClient, logger: logger, alerts: configuration.alerts.enabled,
      now: { clock.unixTime() }, clock: clock.providerClock)
    // Under the models' runs a cell's frames are composed from one call for up to its maximum age.
    if configuration.runs.isEnabled { context.seriesSeconds = configuration.runs.maximumAgeSeconds }
    func provider(_ name: String) -> (any WeatherProvider)? {
      guard let inner = configuration.services[name]?.provider(context) else { return nil }
      return BudgetedProvider(inner: inner, guarded: guarded(name))
    }
    let breakers = breakers
    func batcher(_ name: String) -> ForecastBatcher? {
      provider(name).map { provider in
        ForecastBatcher(
          provider: provider, window: window, clock: clock,
          refusingCalls: { breakers[name]?.isRefusingCalls ?? false })
      }
    }
    var names: [String] = []
    for name in configuration.weather.order {
      if let batcher = batcher(name) {
        services.append(batcher)
        names.append(name)
      }
    }
    if services.isEmpty, let fallback = batcher(OpenMeteoService.name) {
      services.append(fallback)
      names.append(OpenMeteoService.name)
    }
    inUse.withLock { $0 = names }
    func geonames() -> WeatherDesk.ReverseGeocoder {
      guard let index = geonamesIndex(configuration) else { return .none }
      return .geonames(
        index, maximumMetres: configuration.places.geonamesMaximumKilometres * 1_000)
    }
    switch configuration.places.reverseGeocoding {
    case .none:
      break
    case .service(let name):
      if let named = provider(name) { reverse = .service(named) }
    case .geonames:
      reverse = geonames()
    case .auto:
      let namer = WeatherServiceRegistry.all.lazy.filter { $0.reverseGeocodes }
        .compactMap { provider($0.name) }.first
      reverse = namer.map { .service($0) } ?? geonames()
    }
    var settings = WeatherDesk.Settings(
      services: services, reverseGeocoder: reverse, cache: configuration.cache,
      airQuality: airQuality, airQualityScale: configuration.airQuality.scale,
      officialAlerts: officialAlerts)
    if configuration.runs.isEnabled {
      settings.runs = modelRuns
      settings.maximumAgeSeconds = Int64(configuration.runs.maximumAgeSeconds)
    }
    return settings
  }

  /// The breaker, budget and counters of service `name`.
  func guarded(_ name: String) -> UpstreamGuard {
    UpstreamGuard(
      budget: budgets[name]!, name: name, health: health[name]!, breaker: breakers[name]!,
      scheduled: scheduled, logger: logger)
  }

  /// The GeoNames index for the configured file, loaded once per path.
  private func geonamesIndex(_ configuration: GatewayConfiguration) -> GeoNamesIndex? {
    guard let path = configuration.places.geonamesFile else { return nil }
    if let loaded = geonames.withLock({ $0 }), loaded.path == path { return loaded.index }
    do {
      let index = try GeoNamesIndex.load(path: path)
      geonames.withLock { $0 = (path, index) }
      logger.info("loaded place names", metadata: ["file": "\(path)", "places": "\(index.count)"])
      return index
    } catch {
      logger.error(
        "cannot use the GeoNames file, positions keep their coordinates as names: \(error)")
      return nil
    }
  }
}
