import Foundation

/// The gateway's one notion of time: schedules sleep on it, budgets, limits and caches read the
/// Unix time from it, and frames carry that time as `fetched_at`. In production it is the
/// continuous clock anchored to the wall clock once at start; a test hands in a clock it advances
/// itself (swift-clocks' `TestClock`), and everything that waits or expires moves with it.
public struct GatewayClock: Sendable {
  private let elapsed: @Sendable () -> Duration
  private let sleeper: @Sendable (Duration) async throws -> Void
  private let unixTimeAtStart: Int64

  /// - Parameter unixTimeAtStart: the Unix time (seconds) at which `clock` reads as started.
  public init<C: Clock>(
    _ clock: C, unixTimeAtStart: Int64 = Int64(Date().timeIntervalSince1970)
  ) where C.Duration == Duration {
    let start = clock.now
    elapsed = { start.duration(to: clock.now) }
    sleeper = { duration in try await clock.sleep(for: duration) }
    self.unixTimeAtStart = unixTimeAtStart
  }

  public static var system: GatewayClock { GatewayClock(ContinuousClock()) }

  /// Time since the clock was made: what schedules count in.
  public var now: Duration { elapsed() }

  /// Seconds since 1970, UTC.
  public func unixTime() -> Int64 {
    unixTimeAtStart + elapsed().components.seconds
  }

  public func sleep(for duration: Duration) async throws {
    try await sleeper(duration)
  }

  /// Sleeps until `deadline` on this clock (a `now` reading); returns at once when it has passed.
  public func sleep(until deadline: Duration) async throws {
    let wait = deadline - now
    guard wait > .zero else {
      try Task.checkCancellation()
      return
    }
    try await sleeper(wait)
  }
}
