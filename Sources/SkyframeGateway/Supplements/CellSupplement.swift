import CoreMetrics
import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// What a frame gets from a second upstream API beside its forecast, by weather cell (frame
/// v1.1): the air quality index (Open-Meteo's air-quality API), the weather alerts in force (the
/// NWS for points in the United States). Fetched alongside a cell's forecast, at most once per
/// cell per TTL, batched over the cells that miss within the batch window where the API allows,
/// behind the API's own budget and breaker. A failure leaves the field missing in the frame; it
/// never fails the forecast, and the frame waits for it at most `Settings.wait` (`wait-ms`).
final class CellSupplement<Reading: Sendable>: Sendable {
  struct Settings: Sendable {
    var ttlSeconds: Int64
    var maximumCells: Int
    /// How long a frame waits for a reading being fetched; 0: only what is cached.
    var wait: Duration
  }

  private struct Entry {
    var reading: Reading
    var expiresAt: Int64
  }

  private let settings: Mutex<Settings>
  private let table: Mutex<LRUTable<WeatherDesk.Cell, Entry>>
  private let fetches: Coalescer<WeatherDesk.Cell, Reading?>
  private let batcher: Mutex<PointBatcher<Reading>?>
  private let clock: GatewayClock
  /// Where the API has data; elsewhere no call is made and the reading is nil.
  private let covers: @Sendable (GeoPoint) -> Bool

  init(
    settings: Settings, clock: GatewayClock, background: BackgroundWork? = nil,
    covers: @escaping @Sendable (GeoPoint) -> Bool = { _ in true }
  ) {
    self.settings = Mutex(settings)
    fetches = Coalescer(background: background)
    table = Mutex(LRUTable(capacity: settings.maximumCells))
    batcher = Mutex(nil)
    self.clock = clock
    self.covers = covers
  }

  /// New settings, and the guarded provider calls go through from now on; no batcher: off.
  func update(_ settings: Settings, batcher: PointBatcher<Reading>?) {
    self.settings.withLock { $0 = settings }
    table.withLock { $0.resize(to: settings.maximumCells) }
    self.batcher.withLock { $0 = batcher }
  }

  var isEnabled: Bool { batcher.withLock { $0 != nil } }

  /// The reading for `cell`: cached, else fetched (one call per cell however many ask); nil when
  /// switched off, outside the API's area, or failed.
  func reading(for cell: WeatherDesk.Cell, at center: GeoPoint) async -> Reading? {
    guard let batcher = batcher.withLock({ $0 }), covers(center) else { return nil }
    let settings = settings.withLock { $0 }
    let now = clock.unixTime()
    if let cached = table.withLock({ $0.value(forKey: cell) }), cached.expiresAt > now {
      return cached.reading
    }
    // The frame waits at most this long; a slower answer is cached for the next.
    let reading = await fetches.run(cell, until: clock.now + settings.wait, on: clock) {
      [self] in
      // A failed call is logged by its guard; the frame goes without the field.
      guard case .success(let reading) = await batcher.value(at: center) else { return nil }
      let entry = Entry(reading: reading, expiresAt: clock.unixTime() + settings.ttlSeconds)
      table.withLock { _ = $0.set(entry, forKey: cell) }
      return reading
    }
    return reading ?? nil
  }

  var entries: Int { table.withLock { $0.count } }
}

typealias AirQualityDesk = CellSupplement<AirQualityReading>
