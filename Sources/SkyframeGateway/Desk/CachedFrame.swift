import SkyframeCodec

extension WeatherDesk {
  /// The time-to-live and the runs' gate (`ModelRuns.gate()`) at one moment.
  package struct Freshness: Sendable {
    package var ttl: Int64
    package var gate: Int64
  }

  package struct CachedFrame: Sendable {
    /// The encoded frame as compacted at fetch time; a hit copies and rewrites it. `tiny` answers
    /// are made from it. When a request, watch or named location asked for the cell in the
    /// `large` profile, the large frame compacted from the same forecast follows it in the same
    /// array (192 + 960 bytes), so a hit retains one array; otherwise, and for an entry taken
    /// from another cluster member, it is the 192-byte standard frame alone.
    package var bytes: [UInt8]
    package var fetchedAt: Int64
    /// The service has no newer data before this (MET Norway's `Expires`): the frame stays fresh
    /// at least until then, whatever the TTL.
    package var validUntil: Int64? = nil
    /// Fetched under the models' runs: when the fetch began. The frame holds every run usable by
    /// then, and is fresh until the gate (`ModelRuns.gate()`) passes that moment. Nil: the frame
    /// follows the time-to-live.
    package var fetchBegan: Int64? = nil
    /// Under the gate, the frame is kept no later than this: its maximum age, or as far as its
    /// series reaches (without one, the place's local midnight: its day 0 would be yesterday).
    package var keepUntil: Int64 = 0
    /// Under the gate, the start (initialisation) of the newest model run usable when the fetch
    /// began: the newest the frame can hold; 0 when not known.
    package var runStartedAt: Int64 {
      get { Int64(runStart) }
      set { runStart = UInt32(clamping: newValue) }
    }
    /// `runStartedAt` in four bytes (Unix seconds to 2106), beside `seriesGeneration`: every
    /// copy of the entry on the hit path copies these too.
    /// Under the gate, when a newer run is expected (`next_update`).
    package var expectedUntil: Int64 = 0
    /// Under the gate, hits after this are counted as an upstream call saved (once per
    /// time-to-live).
    package var savedFrom: Int64 = 0
    /// When `bytes` must be composed again from the call's data (`WeatherDesk.series`,
    /// `WeatherDesk.current`); `.max`: never, the frames are as compacted at fetch time. (The
    /// data is kept beside the frame, not in it: a reference here would be retained and released
    /// with every copy of the entry on the hit path, about 80 ns of a 700 ns hit.)
    package var recomposeAt: Int64 = .max
    /// The number of the data it is composed from (`FrameSeries.generation`); 0: none.
    package var seriesGeneration: UInt32 = 0
    package var runStart: UInt32 = 0

    package init(bytes: [UInt8], fetchedAt: Int64, validUntil: Int64? = nil) {
      self.bytes = bytes
      self.fetchedAt = fetchedAt
      self.validUntil = validUntil
    }

    /// Whether the frames are composed again from the call's data as the clock moves.
    package var isComposed: Bool { seriesGeneration != 0 }

    /// The frames this entry holds: the standard one, and the large one when it follows.
    package var holds: ProfileSet {
      bytes.count == WeatherFrame.size + LargeLayout.size ? [.standard, .large] : .standard
    }

    /// Whether this entry holds every frame `needs` names.
    package func serves(_ needs: ProfileSet) -> Bool { holds.isSuperset(of: needs) }

    /// Seconds from `now` until newer data is expected (`next_update`): under the models' runs,
    /// until the next run is expected (a minute, the metadata's poll, when one is late), within
    /// `keepUntil`; else until the TTL ends or the service's `Expires`. Any stored times, even a
    /// peer's, give a number, not a trap.
    package func secondsUntilNewer(ttl: Int64, now: Int64) -> Int64 {
      guard fetchBegan != nil else {
        return max(fetchedAt &+ ttl, validUntil ?? 0) &- now
      }
      return (expectedUntil > now ? expectedUntil : min(keepUntil, now &+ 60)) &- now
    }

    package func isFresh(at time: Int64, _ freshness: Freshness) -> Bool {
      if let fetchBegan, freshness.gate != ModelRuns.off {
        guard time < keepUntil else { return false }
        // Metadata that cannot be read keeps the frame until `keepUntil`.
        return freshness.gate == ModelRuns.unknown || fetchBegan >= freshness.gate
      }
      return time < max(fetchedAt &+ freshness.ttl, validUntil ?? 0)
    }
  }

  /// The first local midnight after `time` at a UTC offset of `offsetMinutes` (none: never).
  static func localMidnight(after time: Int64, offsetMinutes: Int16?) -> Int64 {
    guard let offsetMinutes else { return .max }
    let offset = Int64(offsetMinutes) * 60
    return ((time + offset) / 86_400 + 1) * 86_400 - offset
  }
}
