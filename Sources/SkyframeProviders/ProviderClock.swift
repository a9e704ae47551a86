import Foundation

/// The time a weather service's calls keep: their deadlines, their measured durations and the
/// "now" a `Retry-After` date counts from. The gateway hands in its own clock
/// (`GatewayClock.providerClock`), so a test that moves the gateway's time moves these too;
/// alone, a provider keeps the system's.
public struct ProviderClock: Sendable {
  /// Time since the clock was made.
  public let now: @Sendable () -> Duration
  public let sleep: @Sendable (Duration) async throws -> Void
  /// Seconds since 1970, UTC.
  public let unixTime: @Sendable () -> Int64

  public init(
    now: @escaping @Sendable () -> Duration,
    sleep: @escaping @Sendable (Duration) async throws -> Void,
    unixTime: @escaping @Sendable () -> Int64
  ) {
    self.now = now
    self.sleep = sleep
    self.unixTime = unixTime
  }

  /// The system's continuous clock and wall clock.
  public static let system: ProviderClock = {
    let clock = ContinuousClock()
    let start = clock.now
    return ProviderClock(
      now: { start.duration(to: clock.now) }, sleep: { try await clock.sleep(for: $0) },
      unixTime: { Int64(Date().timeIntervalSince1970) })
  }()

  /// Sleeps until `deadline` (a `now` reading); at once when it has passed.
  func sleep(until deadline: Duration) async throws {
    let wait = deadline - now()
    guard wait > .zero else {
      try Task.checkCancellation()
      return
    }
    try await sleep(wait)
  }
}
