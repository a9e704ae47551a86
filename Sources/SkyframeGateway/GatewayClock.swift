import Foundation
import SkyframeProviders

/// The gateway's one notion of time: schedules sleep on it, budgets, limits and caches read the
/// Unix time from it, and frames carry that time as `fetched_at`. In production it is the
/// continuous clock anchored to the wall clock once at start; a test hands in a clock it advances
/// itself (swift-clocks' `TestClock`), and everything that waits or expires moves with it.
public struct GatewayClock: Sendable {
  private let elapsed: @Sendable () -> Duration
  private let sleeper: @Sendable (Duration) async throws -> Void
  private let unixTimeAtStart: Int64
  /// For the system clock only: its start as a `MonotonicNanoseconds` reading, so that
  /// `unixTime()`, read for every request, is one `clock_gettime` and integer arithmetic: no
  /// closure and no 128-bit `Duration` arithmetic.
  private var startReading: Int64?

  /// - Parameter unixTimeAtStart: the Unix time (seconds) at which `clock` reads as started.
  public init<C: Clock>(
    _ clock: C, unixTimeAtStart: Int64 = Int64(Date().timeIntervalSince1970)
  ) where C.Duration == Duration {
    let start = clock.now
    elapsed = { start.duration(to: clock.now) }
    sleeper = { duration in try await clock.sleep(for: duration) }
    self.unixTimeAtStart = unixTimeAtStart
  }

  public static var system: GatewayClock {
    system(unixTimeAtStart: Int64(Date().timeIntervalSince1970))
  }

  /// The system clock as if started at `unixTimeAtStart`: what the gateway runs on, anchored to
  /// a Unix time of the caller's choosing (the bench suite's fixtures are from 2024).
  public static func system(unixTimeAtStart: Int64) -> GatewayClock {
    var clock = GatewayClock(ContinuousClock(), unixTimeAtStart: unixTimeAtStart)
    clock.startReading = MonotonicNanoseconds.now()
    return clock
  }

  /// Time since the clock was made: what schedules count in.
  public var now: Duration { elapsed() }

  /// Seconds since 1970, UTC.
  public func unixTime() -> Int64 {
    guard startReading != nil else { return unixTimeAtStart + elapsed().components.seconds }
    return unixTime(atReading: MonotonicNanoseconds.now())
  }

  /// A reading in nanoseconds, for durations and for `unixTime(atReading:)`: the system clock's
  /// is one `clock_gettime` (read for every request, so no closure and no 128-bit arithmetic);
  /// any other clock's is its time since it was made, so a test's clock drives it.
  package func reading() -> Int64 {
    if startReading != nil { return MonotonicNanoseconds.now() }
    let (seconds, attoseconds) = elapsed().components
    return seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000
  }

  /// `unixTime()` at a `reading()` taken just now: one clock read serves a request's timing and
  /// its Unix time.
  package func unixTime(atReading nanoseconds: Int64) -> Int64 {
    // Whole seconds elapsed, as `components.seconds` of the elapsed duration would say.
    unixTimeAtStart + max(nanoseconds - (startReading ?? 0), 0) / 1_000_000_000
  }

  /// This clock for the weather services' calls (their deadlines and durations).
  public var providerClock: ProviderClock {
    let clock = self
    return ProviderClock(
      now: { clock.now }, sleep: { try await clock.sleep(for: $0) },
      unixTime: { clock.unixTime() })
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

/// Nanoseconds on `CLOCK_BOOTTIME` (the system `GatewayClock`'s) as a plain integer: request
/// durations, measured on the hit path, without `Duration`'s 128-bit arithmetic. Read through
/// `GatewayClock.reading()` only.
private enum MonotonicNanoseconds {
  static func now() -> Int64 {
    var time = timespec()
    clock_gettime(CLOCK_BOOTTIME, &time)
    return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
  }
}
