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
  /// What frames get beside the forecast (`SupplementRegistry.all`), each from its own API.
  let supplements: [any Supplement]
  let scheduled: ScheduledWork
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
    let scheduled = ScheduledWork()
    self.scheduled = scheduled
    supplements = SupplementRegistry.make(
      SupplementContext(
        configuration: configuration, httpClient: httpClient, metrics: metrics, clock: clock,
        logger: logger, fleet: fleet, background: background, scheduled: scheduled))
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
    for supplement in supplements where supplement.isEnabled {
      let guarded = supplement.guarded
      services.append((guarded.name, guarded.health, guarded.budget, guarded.breaker))
    }
    return services
  }

  /// The services in fallback order, each behind its budget and batcher, and the reverse geocoder.
  func settings(for configuration: GatewayConfiguration) -> WeatherDesk.Settings {
    let window = Duration.milliseconds(configuration.weather.batchWindowMilliseconds)
    var services: [ForecastBatcher] = []
    var reverse: WeatherDesk.ReverseGeocoder = .none
    for supplement in supplements { supplement.configure(configuration) }
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
      supplements: supplements)
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
