import CoreMetrics
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// The desk's cell cache: each weather cell's entry (its frames, and the data they are composed
/// from as the clock moves), bounded by `cache.max-cells`, the least recently asked going first.
/// It never calls upstream: the fetcher stores what it fetched here, and in a fleet the entries
/// other members fetched are adopted. Every look-up here is fit for the network thread.
package final class CellCache: Sendable {
  package typealias Cell = WeatherDesk.Cell
  package typealias CachedFrame = WeatherDesk.CachedFrame

  /// What decides whether an entry taken from another member is kept, and for how long.
  package struct Adoption: Sendable {
    package var staleSeconds: Int64
    package var ttlSeconds: Int64
    package var maximumAgeSeconds: Int64
  }

  package let frames: Mutex<LRUTable<Cell, CachedFrame>>
  /// The call's data of each cell whose frames are composed from it (`CachedFrame.isComposed`),
  /// matched to its entry by number. Changed only while `frames` is locked (that lock first), so
  /// it holds data only for cells `frames` holds: bounded by `cache.max-cells`.
  package let series = Mutex<[Cell: FrameSeries]>([:])
  /// The last number given to a cell's data.
  private let seriesGenerations = Atomic<UInt32>(0)
  /// Misses waiting for an entry stored from elsewhere (`adopt`): another member's fetch.
  package let arrivals = ArrivalWaiters<Cell, CachedFrame>()
  private let metrics: GatewayMetrics?
  private let entriesGauge: Gauge?

  package init(capacity: Int, metrics: GatewayMetrics?) {
    frames = Mutex(LRUTable(capacity: capacity))
    self.metrics = metrics
    entriesGauge = metrics?.cacheEntries("frames")
  }

  package func resize(to capacity: Int) {
    frames.withLock { frames in
      frames.resize(to: capacity)
      series.withLock { $0 = $0.filter { frames.contains($0.key) } }
    }
  }

  package var count: Int { frames.withLock { $0.count } }

  /// The cell's entry, fresh or not, without counting it as asked.
  package func peek(_ cell: Cell) -> CachedFrame? { frames.withLock { $0.peek(cell) } }

  /// Whether the cell has an entry at all, fresh or not: refreshing it is no new cell.
  package func contains(_ cell: Cell) -> Bool { frames.withLock { $0.contains(cell) } }

  /// A number for a cell's data, never 0 (no data), wrapping after four billion.
  package func nextSeriesGeneration() -> UInt32 {
    let next = seriesGenerations.wrappingAdd(1, ordering: .relaxed).newValue
    return next == 0 ? seriesGenerations.wrappingAdd(1, ordering: .relaxed).newValue : next
  }

  /// The cell's frame while it is fresh at `time` and can serve `needs`; nil when it is missing,
  /// expired or cannot. Counts as asked.
  package func lookUp(
    _ cell: Cell, _ freshness: WeatherDesk.Freshness, needs: ProfileSet, time: Int64
  ) -> CachedFrame? {
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

  /// The cell's frame while it is fresh at `time`, in the standard profile, without counting it
  /// as asked: what a fleet member shares or waits for.
  package func fresh(_ cell: Cell, _ freshness: WeatherDesk.Freshness, time: Int64) -> CachedFrame?
  {
    guard let cached = peek(cell), cached.isFresh(at: time, freshness) else { return nil }
    return current(cached, in: cell, at: time, needs: .standard)
  }

  /// `cached` as it reads at `time` with every frame `needs` names: composed again from its
  /// series when something in it has changed since it was (or the large frame is wanted and the
  /// series can make it), and kept so for the next asker; nil when it cannot serve `needs`.
  package func current(_ cached: CachedFrame, in cell: Cell, at time: Int64, needs: ProfileSet)
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
  /// under the frames' lock, so that a cell's data goes when its frame does.
  package func store(_ entry: CachedFrame, series composer: FrameSeries?, for cell: Cell) {
    let count = frames.withLock { put(entry, series: composer, for: cell, in: &$0) }
    entriesGauge?.record(count)
  }

  /// Sets the cell's entry and its data in both tables (the frames' lock held: `frames`), the
  /// data of an evicted cell going with it. Returns how many entries there are.
  private func put(
    _ entry: CachedFrame, series composer: FrameSeries?, for cell: Cell,
    in frames: inout LRUTable<Cell, CachedFrame>
  ) -> Int {
    let evicted = frames.set(entry, forKey: cell)
    series.withLock { table in
      if let evicted { table[evicted] = nil }
      table[cell] = entry.isComposed ? composer : nil
    }
    return frames.count
  }

  /// The data `frame` (the cell's cached entry) is composed from, when it is.
  package func series(of frame: CachedFrame, in cell: Cell) -> FrameSeries? {
    guard frame.isComposed else { return nil }
    return series.withLock { $0[cell] }.flatMap {
      $0.generation == frame.seriesGeneration ? $0 : nil
    }
  }

  /// Takes an entry another member fetched, unless this cache has a newer one for the cell or
  /// the entry is past the stale window at `time`; with the data it is composed from (`series`),
  /// this member composes it as the clock moves too. The misses waiting for the cell get it.
  /// Returns whether it was taken.
  package func adopt(
    _ entry: CachedFrame, for cell: Cell, series composer: FrameSeries?, _ rules: Adoption,
    time: Int64
  ) -> Bool {
    // Written so that no stored time, however far off, traps.
    guard entry.fetchedAt <= time &+ 60, entry.fetchedAt >= time &- rules.staleSeconds else {
      return false
    }
    var entry = entry
    entry.savedFrom = entry.fetchedAt + rules.ttlSeconds
    if entry.fetchBegan != nil {
      // Kept no longer than this member's own maximum age; and, without the data the frame is
      // composed from (an entry of version 2), not past the place's local midnight.
      let offset =
        entry.bytes.count >= WeatherFrame.size
        ? entry.bytes.withUnsafeBytes {
          ProfileView(unchecked: $0.baseAddress!, kind: .standard).read(
            StandardLayout.utcOffset, as: Int16.self)
        }
        : nil
      entry.keepUntil = min(
        entry.keepUntil, entry.fetchedAt + rules.maximumAgeSeconds,
        composer.map { $0.series.coveredUntil }
          ?? WeatherDesk.localMidnight(after: entry.fetchedAt, offsetMinutes: offset))
      entry.expectedUntil = min(entry.expectedUntil, entry.keepUntil)
    }
    // The data gets this member's own number for the entry.
    let numbered = composer.map { $0.numbered(nextSeriesGeneration()) }
    if let numbered, entry.fetchBegan != nil {
      entry.recomposeAt = numbered.series.nextChange(after: entry.fetchedAt)
      entry.seriesGeneration = numbered.generation
    }
    let count = frames.withLock { frames -> Int? in
      if let current = frames.peek(cell), current.fetchedAt >= entry.fetchedAt { return nil }
      return put(entry, series: numbered, for: cell, in: &frames)
    }
    guard let count else { return false }
    entriesGauge?.record(count)
    arrivals.arrived(entry, for: cell)
    return true
  }
}
