import Logging
import SkyframeCodec
import SkyframePlaces
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// Weather fetched: forecasts by weather cell, cached as encoded frames, and place names resolved,
/// each with one upstream call per key however many devices ask at once.
final class WeatherDesk: Sendable {
  struct Settings: Sendable {
    /// The weather services in the order they are tried, each with its batcher.
    var services: [ForecastBatcher]
    var reverseGeocoder: ReverseGeocoder
    var ttlSeconds: Int64
    var staleSeconds: Int64
    var gridDegrees: Double
    var geocodingTTLSeconds: Int64

    init(
      services: [ForecastBatcher], reverseGeocoder: ReverseGeocoder = .none,
      cache: GatewayConfiguration.Cache
    ) {
      precondition(!services.isEmpty, "at least one weather service")
      self.services = services
      self.reverseGeocoder = reverseGeocoder
      ttlSeconds = Int64(cache.ttlSeconds)
      staleSeconds = Int64(cache.staleSeconds)
      gridDegrees = cache.gridDegrees
      geocodingTTLSeconds = Int64(cache.geocodingTTLSeconds)
    }

    init(provider: any WeatherProvider, cache: GatewayConfiguration.Cache) {
      self.init(services: [ForecastBatcher(provider: provider, window: .zero)], cache: cache)
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

  struct CachedFrame: Sendable {
    /// The encoded frame as compacted at fetch time; a hit copies and rewrites it.
    var bytes: [UInt8]
    var fetchedAt: Int64
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

  private let settings: Mutex<Settings>
  private let frames = Mutex<[Cell: CachedFrame]>([:])
  private let places = Mutex<[GeocodeKey: CachedPlace]>([:])
  private let names = Mutex<[Cell: CachedPlace]>([:])
  private let nameFetches = Coalescer<Cell, Forecast.Place?>()
  private let frameFetches = Coalescer<Cell, Result<CachedFrame, ProviderError>>()
  private let placeFetches = Coalescer<GeocodeKey, Result<Forecast.Place?, ProviderError>>()
  private let now: @Sendable () -> Int64
  private let logger: Logger

  init(settings: Settings, now: @escaping @Sendable () -> Int64, logger: Logger) {
    self.settings = Mutex(settings)
    self.now = now
    self.logger = logger
  }

  func update(_ settings: Settings) {
    self.settings.withLock { $0 = settings }
  }

  func cell(of point: GeoPoint) -> Cell {
    let grid = settings.withLock { $0.gridDegrees }
    return Cell(
      row: Int64((point.latitude / grid).rounded()),
      column: Int64((point.longitude / grid).rounded()))
  }

  /// The frame for the cell that holds `point`: from the cache while fresh, else fetched (one call
  /// per cell however many ask), else the last good one as stale, else the failure.
  func frame(at point: GeoPoint) async -> FrameLookup {
    let cell = cell(of: point)
    let (ttl, stale) = settings.withLock { ($0.ttlSeconds, $0.staleSeconds) }
    let cached = frames.withLock { $0[cell] }
    if let cached, now() - cached.fetchedAt < ttl { return .fresh(cached) }

    let result = await frameFetches.run(cell) { [self] in await fetch(cell) }
    switch result {
    case .success(let frame):
      return .fresh(frame)
    case .failure(let error):
      let fallback = frames.withLock { $0[cell] }
      if let fallback, now() - fallback.fetchedAt <= stale { return .stale(fallback) }
      return .failed(error)
    }
  }

  /// Asks the services in order; the next one is tried when one is unavailable, rate limited,
  /// over its budget or refuses the key. The first service's error is the one reported.
  private func fetch(_ cell: Cell) async -> Result<CachedFrame, ProviderError> {
    // Another caller may have filled the cell while this one waited to start.
    let (services, ttl, grid) = settings.withLock { ($0.services, $0.ttlSeconds, $0.gridDegrees) }
    if let cached = frames.withLock({ $0[cell] }), now() - cached.fetchedAt < ttl {
      return .success(cached)
    }
    let center = GeoPoint(latitude: Double(cell.row) * grid, longitude: Double(cell.column) * grid)
    var firstError: ProviderError?
    for batcher in services {
      let service = batcher.provider.service
      switch await batcher.forecast(at: center) {
      case .success(let forecast):
        let fetchedAt = now()
        let frame = forecast.frame(fetchedAt: fetchedAt, service: service)
        // Compaction clamps every value into range, so this only fails on a bug: say so loudly.
        guard let bytes = try? frame.encoded() else {
          logger.error(
            "a compacted forecast did not encode", metadata: ["cell": "\(cell.row),\(cell.column)"])
          return .failure(.malformed("the forecast could not be encoded"))
        }
        let entry = CachedFrame(bytes: bytes, fetchedAt: fetchedAt)
        frames.withLock { $0[cell] = entry }
        return .success(entry)
      case .failure(let error):
        logger.warning(
          "weather service failed",
          metadata: [
            "service": "\(service.name?.description ?? "?")", "cell": "\(cell.row),\(cell.column)",
            "error": "\(error)",
          ])
        if firstError == nil { firstError = error }
        if case .rejected = error { return .failure(firstError ?? error) }
      }
    }
    return .failure(firstError ?? .unavailable("no weather service configured"))
  }

  /// A name for the place at `point`: from OpenWeatherMap's reverse geocoding or the GeoNames
  /// file, cached per cell; nil when there is neither or nothing is near.
  func placeName(at point: GeoPoint) async -> Forecast.Place? {
    let (geocoder, ttl) = settings.withLock { ($0.reverseGeocoder, $0.geocodingTTLSeconds) }
    switch geocoder {
    case .none:
      return nil
    case .geonames(let index, let maximumMetres):
      return index.nearest(
        latitude: point.latitude, longitude: point.longitude, within: maximumMetres
      ).map {
        Forecast.Place(
          name: $0.name, countryCode: $0.countryCode, latitude: point.latitude,
          longitude: point.longitude)
      }
    case .service(let provider):
      let cell = cell(of: point)
      if let cached = names.withLock({ $0[cell] }), cached.expiresAt > now() { return cached.place }
      return await nameFetches.run(cell) { [self] in
        do throws(ProviderError) {
          let place = try await provider.reverseGeocode(point)
          names.withLock { $0[cell] = CachedPlace(place: place, expiresAt: now() + ttl) }
          return place
        } catch {
          // No name is no failure: the frame then says the coordinates. Retried next time.
          logger.info("reverse geocoding failed", metadata: ["error": "\(error)"])
          return nil
        }
      }
    }
  }

  /// The place a name stands for: cached (misses too) for the geocoding TTL, one call per name.
  func place(named name: String, countryCode: String?) async -> Result<
    Forecast.Place?, ProviderError
  > {
    let key = GeocodeKey(name: name.lowercased(), countryCode: countryCode?.uppercased())
    if let cached = places.withLock({ $0[key] }), cached.expiresAt > now() {
      return .success(cached.place)
    }
    return await placeFetches.run(key) { [self] in
      let (services, ttl) = settings.withLock { ($0.services, $0.geocodingTTLSeconds) }
      var firstError: ProviderError?
      for batcher in services {
        do throws(ProviderError) {
          let place = try await batcher.provider.geocode(name: name, countryCode: countryCode)
          // A miss is cached for an hour at most, so a typo fixed upstream is not stuck for a day.
          let lifetime = place == nil ? min(ttl, 3_600) : ttl
          places.withLock { $0[key] = CachedPlace(place: place, expiresAt: now() + lifetime) }
          return .success(place)
        } catch {
          logger.warning("geocoding failed", metadata: ["name": "\(name)", "error": "\(error)"])
          if firstError == nil { firstError = error }
          if case .rejected = error { break }
        }
      }
      return .failure(firstError ?? .unavailable("no weather service configured"))
    }
  }
}
