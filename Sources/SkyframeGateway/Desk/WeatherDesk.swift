import CoreMetrics
import Logging
import SkyframeCodec
import SkyframePlaces
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// Weather fetched: forecasts by weather cell, cached as encoded frames, and place names resolved,
/// each with one upstream call per key however many devices ask at once.
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
    /// Where each fetched frame gets its air quality index; nil: none.
    var airQuality: AirQualityDesk?
    var airQualityScale: AirQuality.Scale
    /// Where frames of the places it covers get the official alerts in force, in place of the
    /// weather service's own; nil: none.
    var officialAlerts: CellSupplement<[Forecast.Alert]>?
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
      cache: GatewayConfiguration.Cache, airQuality: AirQualityDesk? = nil,
      airQualityScale: AirQuality.Scale = .europeanAQI,
      officialAlerts: CellSupplement<[Forecast.Alert]>? = nil
    ) {
      self.airQuality = airQuality
      self.airQualityScale = airQualityScale
      self.officialAlerts = officialAlerts
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
  struct Cell: Hashable, Sendable {
    var row: Int64
    var column: Int64
  }

  enum FrameLookup: Sendable {
    case fresh(CachedFrame)
    /// The service failed; this is the last good frame.
    case stale(CachedFrame)
    case failed(ProviderError)
  }

  struct GeocodeKey: Hashable, Sendable {
    var name: String
    var countryCode: String?
  }

  struct CachedPlace: Sendable {
    var place: Forecast.Place?
    var expiresAt: Int64
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
  /// Told of every frame fetched upstream (the cluster's shared cache publishes it).
  let fetchedListener = Mutex<(@Sendable (Cell, CachedFrame, FrameSeries?) -> Void)?>(nil)
  /// Told of every name looked up upstream (found or not), after it is cached: the cluster
  /// shares it.
  let geocodedListener = Mutex<(@Sendable (GeocodeKey, CachedPlace) -> Void)?>(nil)
  /// Asked first on a miss, once per cell however many wait: a frame from elsewhere (the cell's
  /// owner in a cluster), or nil to fetch it here.
  let missListener = Mutex<(@Sendable (Cell) async -> OwnerReply)?>(nil)
  /// Bounded by `cache.max-cells` and `cache.max-names`: the least recently asked go first.
  let frames: Mutex<LRUTable<Cell, CachedFrame>>
  /// The call's data of each cell whose frames are composed from it (`CachedFrame.isComposed`),
  /// matched to its entry by number. Changed only while `frames` is locked (that lock first), so
  /// it holds data only for cells `frames` holds: bounded by `cache.max-cells`.
  let series = Mutex<[Cell: FrameSeries]>([:])
  /// The last number given to a cell's data.
  private let seriesGenerations = Atomic<UInt32>(0)

  /// A number for a cell's data, never 0 (no data), wrapping after four billion.
  func nextSeriesGeneration() -> UInt32 {
    let next = seriesGenerations.wrappingAdd(1, ordering: .relaxed).newValue
    return next == 0 ? seriesGenerations.wrappingAdd(1, ordering: .relaxed).newValue : next
  }
  let places: Mutex<LRUTable<GeocodeKey, CachedPlace>>
  let names: Mutex<LRUTable<Cell, CachedPlace>>
  let nameFetches = Coalescer<Cell, Forecast.Place?>()
  private let frameFetches: Coalescer<Cell, Result<CachedFrame, ProviderError>>
  let placeFetches = Coalescer<GeocodeKey, Result<Forecast.Place?, ProviderError>>()
  let clock: GatewayClock
  /// Misses waiting for a frame another member fetches (`adopt`).
  let arrivals = ArrivalWaiters<Cell, CachedFrame>()
  /// Misses waiting for a frame whose owner said it could not fetch it (`ownerUnavailable`).
  let unavailable = ArrivalWaiters<Cell, Bool>()
  private let logger: Logger
  private let metrics: GatewayMetrics?
  let frameEntries: Gauge?
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
    frames = Mutex(LRUTable(capacity: settings.maximumCells))
    names = Mutex(LRUTable(capacity: settings.maximumCells))
    places = Mutex(LRUTable(capacity: settings.maximumNames))
    frameEntries = metrics?.cacheEntries("frames")
    placeEntries = metrics?.cacheEntries("places")
    nameEntries = metrics?.cacheEntries("names")
    self.clock = clock
    self.logger = logger
    self.metrics = metrics
  }

  func now() -> Int64 { clock.unixTime() }

  func update(_ settings: Settings) {
    self.settings.withLock { $0 = settings }
    frames.withLock { frames in
      frames.resize(to: settings.maximumCells)
      series.withLock { $0 = $0.filter { frames.contains($0.key) } }
    }
    names.withLock { $0.resize(to: settings.maximumCells) }
    places.withLock { $0.resize(to: settings.maximumNames) }
  }

  /// Entries in each table: frames by cell, names by cell, places by name.
  var entries: (frames: Int, names: Int, places: Int) {
    (frames.withLock { $0.count }, names.withLock { $0.count }, places.withLock { $0.count })
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
    var saved = false
    let frame = frames.withLock { frames -> CachedFrame? in
      guard let cached = frames.value(forKey: cell), cached.serves(needs) || cached.isComposed,
        cached.isFresh(at: time, freshness)
      else { return nil }
      // Past the time-to-live, a frame kept under the runs' gate is an upstream call saved.
      if cached.fetchBegan != nil, freshness.gate >= 0, time >= cached.savedFrom {
        frames.update(cell) { $0.savedFrom = time + freshness.ttl }
        saved = true
      }
      return cached
    }
    if saved { metrics?.savedSameRun() }
    guard let frame, frame.isComposed else { return frame }
    return current(frame, in: cell, at: time, needs: needs)
  }

  /// `cached` as it reads at `time` with every frame `needs` names: composed again from its
  /// series when something in it has changed since it was (or the large frame is wanted and the
  /// series can make it), and kept so for the next asker; nil when it cannot serve `needs`.
  func current(_ cached: CachedFrame, in cell: Cell, at time: Int64, needs: ProfileSet)
    -> CachedFrame?
  {
    let serves = cached.serves(needs)
    guard cached.isComposed, time >= cached.recomposeAt || !serves else {
      return serves ? cached : nil
    }
    // Its data gone (another fetch took the cell's place meanwhile) or not reaching `time`: the
    // frame cannot move on, and is no answer as it is.
    guard let series = series.withLock({ $0[cell] }),
      series.generation == cached.seriesGeneration,
      let bytes = series.bytes(at: time, holds: cached.holds.union(needs))
    else { return nil }
    var composed = cached
    composed.bytes = bytes
    composed.recomposeAt = series.series.nextChange(after: time)
    frames.withLock { frames in
      // Unless a newer fetch (or a later composition) took its place meanwhile.
      guard let stored = frames.peek(cell), stored.seriesGeneration == cached.seriesGeneration,
        stored.recomposeAt <= time || !stored.serves(needs)
      else { return }
      frames.update(cell) {
        $0.bytes = composed.bytes
        $0.recomposeAt = composed.recomposeAt
      }
    }
    return composed
  }

  /// Puts `entry` (and the data it is composed from, or none) in the cell's place: both tables
  /// under the frames' lock, so that a cell's data goes when its frame does. Returns how many
  /// frames the cache holds.
  @discardableResult
  func store(_ entry: CachedFrame, series composer: FrameSeries?, for cell: Cell) -> Int {
    frames.withLock { frames in
      let evicted = frames.set(entry, forKey: cell)
      series.withLock { table in
        if let evicted { table[evicted] = nil }
        table[cell] = entry.isComposed ? composer : nil
      }
      return frames.count
    }
  }

  /// The data `frame` (the cell's cached entry) is composed from, when it is.
  func series(of frame: CachedFrame, in cell: Cell) -> FrameSeries? {
    guard frame.isComposed else { return nil }
    return series.withLock { $0[cell] }.flatMap {
      $0.generation == frame.seriesGeneration ? $0 : nil
    }
  }

  /// Whether the cell has a frame at all, fresh or not: refreshing it is no new cell.
  func hasFrame(at point: GeoPoint) -> Bool {
    let cell = settings.withLock { $0.cell(of: point) }
    return frames.withLock { $0.contains(cell) }
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

  func cell(of point: GeoPoint) -> Cell {
    settings.withLock { $0.cell(of: point) }
  }

  /// The center of `cell`, a point inside it.
  func center(of cell: Cell) -> GeoPoint {
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
  func frame(
    at point: GeoPoint, answerBy deadline: Duration? = nil, needs: ProfileSet = .standard
  ) async -> FrameLookup {
    let cell = cell(of: point)
    let (freshness, stale) = settings.withLock { ($0.freshness, $0.staleSeconds) }
    let cached = frames.withLock { $0.value(forKey: cell) }
    if let cached, cached.isFresh(at: now(), freshness),
      let current = current(cached, in: cell, at: now(), needs: needs)
    {
      return .fresh(current)
    }

    let work: @Sendable () async -> Result<CachedFrame, ProviderError> = { [self] in
      // In a cluster, the cell's owner may fetch it for the whole fleet (standard frames only).
      if needs == .standard, let fromOwner = missListener.withLock({ $0 }) {
        switch await fromOwner(cell) {
        case .frame(let frame): return .success(frame)
        case .unavailable:
          // The owner just tried and could not: the last good frame, at once; with none, this
          // member tries (the owner's trouble may be its own: its budget share, its network).
          let held = frames.withLock { $0.peek(cell) }
          if let held, now() - held.fetchedAt <= stale {
            return .failure(.unavailable("the cell's owner could not fetch it"))
          }
        case .none: break
        }
      }
      return await fetch(cell, needs: needs)
    }
    var result: Result<CachedFrame, ProviderError>
    if let deadline, let cached, now() - cached.fetchedAt <= stale {
      guard let finished = await frameFetches.run(cell, until: deadline, on: clock, work) else {
        return .stale(current(cached, in: cell, at: now(), needs: needs) ?? cached)
      }
      result = finished
    } else {
      result = await frameFetches.run(cell, work)
    }
    // Joined a fetch started for a standard or tiny request: the large frame from its series,
    // or once more, keeping the large frame.
    if case .success(let frame) = result, !frame.serves(needs) {
      if let composed = current(frame, in: cell, at: now(), needs: needs) {
        result = .success(composed)
      } else {
        result = await frameFetches.run(cell) { [self] in await fetch(cell, needs: needs) }
      }
    }
    switch result {
    case .success(let frame):
      return .fresh(frame)
    case .failure(let error):
      let fallback = frames.withLock { $0.peek(cell) }
      // Stale, but as the clock reads now where the call's data reaches.
      if let fallback, now() - fallback.fetchedAt <= stale {
        return .stale(current(fallback, in: cell, at: now(), needs: needs) ?? fallback)
      }
      return .failed(error)
    }
  }

  /// Asks the services in order; the next one is tried when one is unavailable, rate limited,
  /// over its budget or refuses the key. The first service's error is the one reported.
  private func fetch(_ cell: Cell, needs: ProfileSet) async -> Result<CachedFrame, ProviderError> {
    // Another caller may have filled the cell while this one waited to start.
    let (services, freshness, center, airQuality, scale, officialAlerts, runs, maximumAge) =
      settings.withLock {
        (
          $0.services, $0.freshness, $0.center(of: cell), $0.airQuality, $0.airQualityScale,
          $0.officialAlerts, $0.runs, $0.maximumAgeSeconds
        )
      }
    // Under the models' runs, a frame holds every run usable when its call went out.
    let began = now()
    let newestRun = runs?.newestRun()
    let previous = frames.withLock { $0.peek(cell) }
    if let previous, previous.isFresh(at: now(), freshness),
      let current = current(previous, in: cell, at: now(), needs: needs)
    {
      return .success(current)
    }
    // Once a cell was asked for in the large profile, every later fetch keeps its large frame.
    let holds = needs.union(previous?.holds ?? .standard)
    // Side by side with the forecast, from its own cache, budget and breaker.
    async let airQualityReading = airQuality?.reading(for: cell, at: center)
    async let official = officialAlerts?.reading(for: cell, at: center)
    var firstError: ProviderError?
    for batcher in services {
      let service = batcher.provider.service
      // Failed calls are logged where they are made (`UpstreamGuard`), once per call.
      switch await batcher.forecast(at: center) {
      case .success(var forecast):
        if let alerts = await official { forecast.alerts = alerts }
        let fetchedAt = now()
        var frame = forecast.frame(fetchedAt: fetchedAt, service: service)
        frame.airQuality = await airQualityReading?.index(on: scale)
        // Compaction clamps every value into range, so this only fails on a bug: say so loudly.
        guard let bytes = try? frame.encoded() else {
          logger.error(
            "a compacted forecast did not encode", metadata: ["cell": "\(cell.row),\(cell.column)"])
          return .failure(.malformed("the forecast could not be encoded"))
        }
        let largeFrame =
          holds.contains(.large)
          ? (try? forecast.largeFrame(standard: bytes, fetchedAt: fetchedAt)) ?? [] : []
        var entry = CachedFrame(
          bytes: bytes + largeFrame, fetchedAt: fetchedAt, validUntil: forecast.validUntil)
        var composer: FrameSeries?
        // Open-Meteo's cells follow the models' runs when they are configured (a run that
        // became usable during the call makes the frame old at once: the conservative side).
        if let runs, service == .openMeteo, freshness.gate != ModelRuns.off {
          entry.fetchBegan = began
          entry.runStartedAt = newestRun ?? 0
          // With the call's data in 15-minute steps the frames move with the clock, across
          // the local midnight, as long as the data reaches; without, they are as at the call
          // and kept no later than the local midnight (day 0 would be yesterday).
          let series = ForecastSeries(forecast, fetchedAt: fetchedAt)
          if let series {
            entry.recomposeAt = series.nextChange(after: fetchedAt)
            entry.seriesGeneration = nextSeriesGeneration()
            composer = FrameSeries(
              series, service: service, airQuality: frame.airQuality, fetchedAt: fetchedAt,
              generation: entry.seriesGeneration)
          }
          entry.keepUntil = min(
            fetchedAt + maximumAge,
            series?.coveredUntil
              ?? Self.localMidnight(after: fetchedAt, offsetMinutes: frame.utcOffsetMinutes))
          entry.expectedUntil = min(entry.keepUntil, runs.expectedNext() ?? entry.keepUntil)
          entry.savedFrom = fetchedAt + freshness.ttl
        }
        let count = store(entry, series: composer, for: cell)
        frameEntries?.record(count)
        fetchedListener.withLock { $0 }?(cell, entry, composer)
        return .success(entry)
      case .failure(let error):
        if firstError == nil { firstError = error }
        if case .rejected = error { return .failure(firstError ?? error) }
      }
    }
    return .failure(firstError ?? .unavailable("no weather service configured"))
  }
}
