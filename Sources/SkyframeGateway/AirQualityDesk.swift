import CoreMetrics
import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// The air quality index by weather cell (frame v1.1): fetched from Open-Meteo's air-quality API
/// alongside a cell's forecast, at most once per cell per `air-quality.ttl-seconds`, batched over
/// the cells that miss within the batch window, behind its own budget and breaker. A failure
/// leaves the index missing in the frame; it never fails the forecast.
final class AirQualityDesk: Sendable {
  struct Settings: Sendable {
    var scale: AirQuality.Scale
    var ttlSeconds: Int64
    var maximumCells: Int
  }

  private struct Entry {
    var reading: AirQualityReading
    var expiresAt: Int64
  }

  private let settings: Mutex<Settings>
  private let table: Mutex<LRUTable<WeatherDesk.Cell, Entry>>
  private let fetches = Coalescer<WeatherDesk.Cell, AirQualityReading?>()
  private let batcher: Mutex<PointBatcher<AirQualityReading>?>
  private let clock: GatewayClock

  init(settings: Settings, clock: GatewayClock) {
    self.settings = Mutex(settings)
    table = Mutex(LRUTable(capacity: settings.maximumCells))
    batcher = Mutex(nil)
    self.clock = clock
  }

  /// New settings, and the guarded provider calls go through from now on; no batcher: off.
  func update(_ settings: Settings, batcher: PointBatcher<AirQualityReading>?) {
    self.settings.withLock { $0 = settings }
    table.withLock { $0.resize(to: settings.maximumCells) }
    self.batcher.withLock { $0 = batcher }
  }

  var isEnabled: Bool { batcher.withLock { $0 != nil } }

  /// The index for the frame of `cell` on the configured scale: cached, else fetched (one call
  /// per cell however many ask); nil when switched off, unknown or failed.
  func index(for cell: WeatherDesk.Cell, at center: GeoPoint) async -> AirQuality? {
    guard let batcher = batcher.withLock({ $0 }) else { return nil }
    let settings = settings.withLock { $0 }
    let now = clock.unixTime()
    if let cached = table.withLock({ $0.value(forKey: cell) }), cached.expiresAt > now {
      return cached.reading.index(on: settings.scale)
    }
    // The frame waits for the index at most this long; a slower answer is cached for the next.
    let reading = await fetches.run(cell, until: .now + Self.longestWait) { [self] in
      // A failed call is logged by its guard; the frame goes without the index.
      guard case .success(let reading) = await batcher.value(at: center) else { return nil }
      let entry = Entry(reading: reading, expiresAt: clock.unixTime() + settings.ttlSeconds)
      table.withLock { $0.set(entry, forKey: cell) }
      return reading
    }
    return reading??.index(on: settings.scale)
  }

  static let longestWait = Duration.seconds(2)

  var entries: Int { table.withLock { $0.count } }
}
