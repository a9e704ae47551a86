import CoreMetrics
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// The desk's side of a cluster: frames fetched here are told to the shared cache, a miss asks
/// the cell's owner first and waits for its entry or its word that it could not fetch, and
/// entries another member fetched are adopted.
extension WeatherDesk {
  /// What the owner of a cell in a cluster made of a miss here (`onMiss`).
  enum OwnerReply: Sendable {
    /// Its shared entry came.
    case frame(CachedFrame)
    /// It said it could not fetch the cell (its service fails or is paused).
    case unavailable
    /// Nothing in time, or no owner to ask: fetch it here.
    case none
  }

  /// Calls `listener` with every frame fetched upstream, after it is cached.
  func onFetched(_ listener: @escaping @Sendable (Cell, CachedFrame, FrameSeries?) -> Void) {
    fetchedListener.withLock { $0 = listener }
  }

  /// Calls `listener` first on every miss (see `missListener`).
  func onMiss(_ listener: @escaping @Sendable (Cell) async -> OwnerReply) {
    missListener.withLock { $0 = listener }
  }

  /// The cached frame of `cell` while it is fresh.
  func freshFrame(for cell: Cell) -> CachedFrame? {
    let freshness = settings.withLock { $0.freshness }
    let time = now()
    guard let cached = frames.withLock({ $0.peek(cell) }), cached.isFresh(at: time, freshness)
    else { return nil }
    return current(cached, in: cell, at: time, needs: .standard)
  }

  /// Asks (`ask`: the question to the cell's owner) and waits: the fresh frame of `cell` as soon
  /// as one is here (adopted from another member), or word that its owner could not fetch it, or
  /// `.none` at `deadline` (a reading of the gateway clock). The places in line are taken before
  /// the question goes out, so an answer that comes at once is not missed.
  func ownerReply(for cell: Cell, by deadline: Duration, asking ask: () -> Void) async
    -> OwnerReply
  {
    if let frame = freshFrame(for: cell) { return .frame(frame) }
    let (arrivals, unavailable, clock) = (arrivals, unavailable, clock)
    let (arrival, refusal) = (arrivals.register(cell), unavailable.register(cell))
    ask()
    return await withTaskGroup(of: OwnerReply?.self) { group in
      group.addTask { await arrivals.wait(arrival).map { .frame($0) } }
      group.addTask { await unavailable.wait(refusal) == true ? .unavailable : nil }
      group.addTask {
        try? await clock.sleep(until: deadline)
        return OwnerReply.none
      }
      defer { group.cancelAll() }
      // The first that says something: a waiter cancelled by another's answer says nothing.
      while let reply = await group.next() {
        if let reply {
          // Stored between the first look and the tickets: the last look finds it.
          if case .none = reply, let frame = freshFrame(for: cell) { return .frame(frame) }
          return reply
        }
      }
      return freshFrame(for: cell).map { .frame($0) } ?? OwnerReply.none
    }
  }

  /// The owner of `cell` said it could not fetch it: the misses waiting for it here stop.
  func ownerUnavailable(_ cell: Cell) {
    unavailable.arrived(true, for: cell)
  }

  /// Takes a frame another instance fetched, unless this cache has a newer one for the cell or
  /// the frame is past the stale window; with the data it is composed from (`series`), this
  /// member composes it as the clock moves too. Returns whether it was taken.
  @discardableResult
  func adopt(_ entry: CachedFrame, for cell: Cell, series composer: FrameSeries? = nil) -> Bool {
    let (stale, ttl, maximumAge) = settings.withLock {
      ($0.staleSeconds, $0.ttlSeconds, $0.maximumAgeSeconds)
    }
    let time = now()
    // Written so that no stored time, however far off, traps.
    guard entry.fetchedAt <= time &+ 60, entry.fetchedAt >= time &- stale else { return false }
    var entry = entry
    entry.savedFrom = entry.fetchedAt + ttl
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
        entry.keepUntil, entry.fetchedAt + maximumAge,
        composer.map { $0.series.coveredUntil }
          ?? Self.localMidnight(after: entry.fetchedAt, offsetMinutes: offset))
      entry.expectedUntil = min(entry.expectedUntil, entry.keepUntil)
    }
    // The data gets this member's own number for the entry.
    let numbered = composer.map {
      $0.numbered(nextSeriesGeneration())
    }
    if let numbered, entry.fetchBegan != nil {
      entry.recomposeAt = numbered.series.nextChange(after: entry.fetchedAt)
      entry.seriesGeneration = numbered.generation
    }
    let count = frames.withLock { frames -> Int? in
      if let current = frames.peek(cell), current.fetchedAt >= entry.fetchedAt { return nil }
      let evicted = frames.set(entry, forKey: cell)
      series.withLock { table in
        if let evicted { table[evicted] = nil }
        table[cell] = entry.isComposed ? numbered : nil
      }
      return frames.count
    }
    guard let count else { return false }
    frameEntries?.record(count)
    arrivals.arrived(entry, for: cell)
    return true
  }
}
