import CoreMetrics
import Logging
import SkyframeCodec
import SkyframePlaces
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// Weather for the answer path: a cell's frames from the cell cache (`CellCache`) while they are
/// fresh, else fetched (`WeatherFetcher`: the services, then the supplements beside them) through
/// whatever stands in front of the fetcher (`DeskMiddleware`: the fleet), one fetch per cell
/// however many devices ask at once; and place names resolved, one look-up per name.
package final class WeatherDesk: Sendable {
  struct Settings: Sendable {
    /// The weather services in the order they are tried, each with its batcher.
    var services: [ForecastBatcher]
    var reverseGeocoder: ReverseGeocoder
    var ttlSeconds: Int64
    var staleSeconds: Int64
    var gridDegrees: Double
    var geocodingTTLSeconds: Int64
    var maximumCells: Int
    var maximumNames: Int
    /// What frames get beside the forecast (air quality, official alerts), each from its API.
    var supplements: [any Supplement]
    /// The models' runs that decide when an Open-Meteo cell is fetched again; nil: the
    /// time-to-live alone.
    var runs: ModelRuns?
    /// Under the runs' gate, the most a frame is kept without a newer run being seen.
    var maximumAgeSeconds: Int64 = 10_800

    /// What decides whether a cached frame is fresh, read together on every look-up.
    var freshness: Freshness {
      Freshness(ttl: ttlSeconds, gate: runs?.gate() ?? ModelRuns.off)
    }

    init(
      services: [ForecastBatcher], reverseGeocoder: ReverseGeocoder = .none,
      cache: GatewayConfiguration.Cache, supplements: [any Supplement] = []
    ) {
      self.supplements = supplements
      precondition(!services.isEmpty, "at least one weather service")
      self.services = services
      self.reverseGeocoder = reverseGeocoder
      ttlSeconds = Int64(cache.ttlSeconds)
      staleSeconds = Int64(cache.staleSeconds)
      gridDegrees = cache.gridDegrees
      geocodingTTLSeconds = Int64(cache.geocodingTTLSeconds)
      maximumCells = cache.maximumCells
      maximumNames = cache.maximumNames
    }

    init(provider: any WeatherProvider, cache: GatewayConfiguration.Cache) {
      self.init(services: [ForecastBatcher(provider: provider, window: .zero)], cache: cache)
    }

    func cell(of point: GeoPoint) -> Cell {
      Cell(
        row: Int64((point.latitude / gridDegrees).rounded()),
        column: Int64((point.longitude / gridDegrees).rounded()))
    }

    /// The center of `cell`: the point its forecast is asked for.
    func center(of cell: Cell) -> GeoPoint {
      GeoPoint(
        latitude: Double(cell.row) * gridDegrees, longitude: Double(cell.column) * gridDegrees)
    }
  }

  /// Where names for positions come from.
  enum ReverseGeocoder: Sendable {
    case none
    case service(any WeatherProvider)
    case geonames(GeoNamesIndex, maximumMetres: Double)
  }

  /// A cell of the coordinate grid: all points in it share one forecast.
  package struct Cell: Hashable, Sendable {
    package var row: Int64
    package var column: Int64

    package init(row: Int64, column: Int64) {
      self.row = row
      self.column = column
    }
  }

  package enum FrameLookup: Sendable {
    case fresh(CachedFrame)
    /// The service failed; this is the last good frame.
    case stale(CachedFrame)
    case failed(ProviderError)
  }

  package struct GeocodeKey: Hashable, Sendable {
    package var name: String
    package var countryCode: String?

    package init(name: String, countryCode: String?) {
      self.name = name
      self.countryCode = countryCode
    }
  }

  package struct CachedPlace: Sendable {
    package var place: Forecast.Place?
    package var expiresAt: Int64

    package init(place: Forecast.Place?, expiresAt: Int64) {
      self.place = place
      self.expiresAt = expiresAt
    }
  }

  /// What a cache knows of a key without asking upstream.
  enum Lookup<Value: Sendable>: Sendable {
    case known(Value)
    /// Asked before, but the answer has expired.
    case expired
    /// Never asked (or forgotten to make room).
    case unknown
  }

  let settings: Mutex<Settings>
  /// Each cell's frames, and the data they are composed from.
  package let cache: CellCache
  let fetcher: WeatherFetcher
  /// What stands in front of the fetcher (the fleet); nil: the fetcher alone. Set once, when
  /// the gateway is assembled.
  private let middleware = Mutex<(any DeskMiddleware)?>(nil)
  let places: Mutex<LRUTable<GeocodeKey, CachedPlace>>
  let names: Mutex<LRUTable<Cell, CachedPlace>>
  let nameFetches = Coalescer<Cell, Forecast.Place?>()
  private let frameFetches: Coalescer<Cell, Result<CachedFrame, ProviderError>>
  let placeFetches = Coalescer<GeocodeKey, Result<Forecast.Place?, ProviderError>>()
  package let clock: GatewayClock
  let placeEntries: Gauge?
  let nameEntries: Gauge?

  /// - Parameter background: where a fetch goes on after the request that started it stopped
  ///   waiting at its deadline; without it (the request path alone) the request waits for it.
  init(
    settings: Settings, clock: GatewayClock, metrics: GatewayMetrics? = nil,
    background: BackgroundWork? = nil, logger: Logger
  ) {
    self.settings = Mutex(settings)
    frameFetches = Coalescer(background: background)
    cache = CellCache(capacity: settings.maximumCells, metrics: metrics)
    fetcher = WeatherFetcher(cache: cache, clock: clock, logger: logger)
    names = Mutex(LRUTable(capacity: settings.maximumCells))
    places = Mutex(LRUTable(capacity: settings.maximumNames))
    placeEntries = metrics?.cacheEntries("places")
    nameEntries = metrics?.cacheEntries("names")
    self.clock = clock
  }

  /// Puts `middleware` in front of the fetcher (the gateway does, once, when it is assembled).
  func use(_ middleware: any DeskMiddleware) {
    self.middleware.withLock { $0 = middleware }
  }

  /// What stands in front of the fetcher, if anything.
  var front: (any DeskMiddleware)? { middleware.withLock { $0 } }

  package func now() -> Int64 { clock.unixTime() }

  func update(_ settings: Settings) {
    self.settings.withLock { $0 = settings }
    cache.resize(to: settings.maximumCells)
    names.withLock { $0.resize(to: settings.maximumCells) }
    places.withLock { $0.resize(to: settings.maximumNames) }
  }

  /// Entries in each table: frames by cell, names by cell, places by name.
  var entries: (frames: Int, names: Int, places: Int) {
    (cache.count, names.withLock { $0.count }, places.withLock { $0.count })
  }

  // MARK: Without waiting (the network thread)

  /// The cell's frame while it is fresh; nil when it is missing or expired. `time`: the Unix time
  /// now, when the caller has read it already.
  func cachedFrame(at point: GeoPoint, needs: ProfileSet = .standard, time: Int64? = nil)
    -> CachedFrame?
  {
    let (cell, freshness) = settings.withLock { ($0.cell(of: point), $0.freshness) }
    return cachedFrame(in: cell, freshness, needs: needs, time: time ?? now())
  }

  private func cachedFrame(in cell: Cell, _ freshness: Freshness, needs: ProfileSet, time: Int64)
    -> CachedFrame?
  {
    cache.lookUp(cell, freshness, needs: needs, time: time)
  }

  /// The cell's frame while it is fresh, in the standard profile (what a fleet member shares).
  package func freshFrame(for cell: Cell) -> CachedFrame? {
    cache.fresh(cell, settings.withLock { $0.freshness }, time: now())
  }

  /// The data `frame` (the cell's cached entry) is composed from, when it is.
  package func series(of frame: CachedFrame, in cell: Cell) -> FrameSeries? {
    cache.series(of: frame, in: cell)
  }

  /// Whether the cell has a frame at all, fresh or not: refreshing it is no new cell.
  func hasFrame(at point: GeoPoint) -> Bool {
    cache.contains(settings.withLock { $0.cell(of: point) })
  }

  /// The cell's last good frame while it may still be answered `stale`, as the clock reads now
  /// where the call's data reaches; nil when there is none that young.
  package func staleFrame(for cell: Cell, needs: ProfileSet = .standard) -> CachedFrame? {
    let stale = settings.withLock { $0.staleSeconds }
    let time = now()
    guard let held = cache.peek(cell), time - held.fetchedAt <= stale else { return nil }
    return cache.current(held, in: cell, at: time, needs: needs) ?? held
  }

  /// Takes a frame another member fetched (see `CellCache.adopt`). Returns whether it was taken.
  @discardableResult
  package func adopt(_ entry: CachedFrame, for cell: Cell, series composer: FrameSeries? = nil)
    -> Bool
  {
    let rules = settings.withLock {
      CellCache.Adoption(
        staleSeconds: $0.staleSeconds, ttlSeconds: $0.ttlSeconds,
        maximumAgeSeconds: $0.maximumAgeSeconds)
    }
    return cache.adopt(entry, for: cell, series: composer, rules, time: now())
  }

  /// The name for a position as far as it is known without a call.
  func cachedPlaceName(at point: GeoPoint, time: Int64? = nil) -> Lookup<Forecast.Place?> {
    let (geocoder, cell) = settings.withLock { ($0.reverseGeocoder, $0.cell(of: point)) }
    return cachedPlaceName(at: point, in: cell, from: geocoder, time: time)
  }

  /// A cache hit for a position, with one read of the settings: `cachedPlaceName` and, when the
  /// name is known, `cachedFrame` (nil when the name is not).
  func cachedPosition(at point: GeoPoint, needs: ProfileSet, time: Int64?) -> (
    name: Lookup<Forecast.Place?>, frame: CachedFrame?
  ) {
    let (geocoder, cell, freshness) = settings.withLock {
      ($0.reverseGeocoder, $0.cell(of: point), $0.freshness)
    }
    let time = time ?? now()
    let name = cachedPlaceName(at: point, in: cell, from: geocoder, time: time)
    guard case .known = name else { return (name, nil) }
    return (name, cachedFrame(in: cell, freshness, needs: needs, time: time))
  }

  private func cachedPlaceName(
    at point: GeoPoint, in cell: Cell, from geocoder: ReverseGeocoder, time: Int64?
  ) -> Lookup<Forecast.Place?> {
    switch geocoder {
    case .none:
      return .known(nil)
    case .geonames(let index, let maximumMetres):
      return .known(Self.nearest(in: index, to: point, within: maximumMetres))
    case .service:
      let time = time ?? now()
      return names.withLock { names in
        guard let cached = names.value(forKey: cell) else { return .unknown }
        return cached.expiresAt > time ? .known(cached.place) : .expired
      }
    }
  }

  static func nearest(in index: GeoNamesIndex, to point: GeoPoint, within metres: Double)
    -> Forecast.Place?
  {
    index.nearest(latitude: point.latitude, longitude: point.longitude, within: metres).map {
      Forecast.Place(
        name: $0.name, countryCode: $0.countryCode, latitude: point.latitude,
        longitude: point.longitude)
    }
  }

  // MARK: Waiting for upstream (the workers)

  package func cell(of point: GeoPoint) -> Cell {
    settings.withLock { $0.cell(of: point) }
  }

  /// The center of `cell`, a point inside it.
  package func center(of cell: Cell) -> GeoPoint {
    settings.withLock { $0.center(of: cell) }
  }

  /// The frame for the cell that holds `point`: from the cache while fresh, else fetched (one call
  /// per cell however many ask), else the last good one as stale, else the failure. When the
  /// fetch is still running at `deadline` (a reading of the gateway clock) and the cache has a frame young enough to serve stale,
  /// that frame is the answer and the fetch goes on for the next asker.
  ///
  /// With `needs` naming `large`, the entry must hold the large frame too: a cell is compacted into it only once
  /// something asked for it (then at every later fetch of the cell), so a cell that only standard
  /// and tiny devices ask for holds 192 bytes. The first large request for such a cell fetches it
  /// again, as does one for an entry shared by another cluster member (those carry 192 bytes).
  package func frame(
    at point: GeoPoint, answerBy deadline: Duration? = nil, needs: ProfileSet = .standard
  ) async -> FrameLookup {
    let cell = cell(of: point)
    let (freshness, stale) = settings.withLock { ($0.freshness, $0.staleSeconds) }
    let cached = cache.peek(cell)
    if let cached, cached.isFresh(at: now(), freshness),
      let current = cache.current(cached, in: cell, at: now(), needs: needs)
    {
      return .fresh(current)
    }
    var result: Result<CachedFrame, ProviderError>
    if let deadline, let cached, now() - cached.fetchedAt <= stale {
      guard
        let finished = await frameFetches.run(cell, until: deadline, on: clock, fetch(cell, needs))
      else {
        return .stale(cache.current(cached, in: cell, at: now(), needs: needs) ?? cached)
      }
      result = finished
    } else {
      result = await frameFetches.run(cell, fetch(cell, needs))
    }
    // Joined a fetch started for a standard or tiny request: the large frame from its series,
    // or once more, keeping the large frame.
    if case .success(let frame) = result, !frame.serves(needs) {
      if let composed = cache.current(frame, in: cell, at: now(), needs: needs) {
        result = .success(composed)
      } else {
        result = await frameFetches.run(cell, fetch(cell, needs))
      }
    }
    switch result {
    case .success(let frame):
      return .fresh(frame)
    case .failure(let error):
      return staleFrame(for: cell, needs: needs).map { .stale($0) } ?? .failed(error)
    }
  }

  /// The fetch of a miss: through what stands in front of the fetcher, then the fetcher, with
  /// the settings as they are when it starts.
  private func fetch(_ cell: Cell, _ needs: ProfileSet)
    -> @Sendable () async -> Result<
      CachedFrame, ProviderError
    >
  {
    { [self] in
      let settings = settings.withLock { $0 }
      let fetcher = fetcher
      let next: CellFetch = { cell, needs in
        await fetcher.fetch(cell, needs: needs, with: settings)
      }
      guard let front else { return await next(cell, needs).map(\.entry) }
      return await front.fetch(cell, needs: needs, next: next).map(\.entry)
    }
  }
}
