import SkyframeProviders
import Synchronization

/// Whether a weather service may be called now. After `failures` failed calls in a row
/// (connection refused, timeout, 5xx, malformed answer, bad key) the breaker opens and no call
/// goes out for a back-off that doubles with each failed probe, from `initial` up to `maximum`,
/// with jitter (half the back-off fixed, half random) so that gateways restarted together do not
/// probe together. A 429 opens it at once until the time the service names in `Retry-After`, or
/// for `rateLimitPause` (or the back-off, if longer) when it names none. Once the time is up,
/// one call goes out as a probe while everyone else is still refused; its success closes the
/// breaker, its failure opens it again for the next, longer back-off.
///
/// A refusal is `ProviderError.paused`, with the cause of the pause: the gateway then answers at
/// once from the cache (`stale`), the next service, or the status of that cause (`rate_limited`
/// after a 429 or a spent quota, `internal_error` after a refused key, else
/// `upstream_unavailable`).
final class CircuitBreaker: Sendable {
  struct Policy: Sendable, Equatable {
    /// Failed calls in a row that open a closed breaker.
    var failures = 2
    var initial: Duration = .seconds(2)
    var maximum: Duration = .seconds(300)
    /// How long a 429 without `Retry-After` stops calls, at least.
    var rateLimitPause: Duration = .seconds(60)
    /// The longest `Retry-After` honoured: a service cannot switch the gateway off for good.
    var longestRetryAfter: Duration = .seconds(86_400)
  }

  enum Position: String, Sendable, Equatable {
    case closed
    case open
    /// One probe call is out; everyone else is refused until it ends.
    case probing = "half_open"
  }

  /// What the breaker says to one caller.
  enum Permission: Sendable, Equatable {
    case call
    /// The one call that tests whether the service is back.
    case probe
    /// No call: the service is paused for `remaining` more.
    case refused(remaining: Duration)
  }

  struct State: Sendable, Equatable {
    var position: Position = .closed
    /// Failed calls in a row.
    var failures = 0
    /// How many times it opened since it was last closed: the back-off's exponent.
    var openings = 0
    /// On the gateway clock (time since start).
    var openUntil: Duration = .zero
    var lastFailure: String?
    /// What opened it: what a device is told while it stays open.
    var cause: ProviderError.PauseCause = .outage
  }

  /// A change worth one log line.
  enum Transition: Sendable, Equatable {
    case opened(for: Duration, reason: String)
    case closed
  }

  let service: String
  private let state = Mutex(State())
  private let policy: Mutex<Policy>
  private let clock: GatewayClock
  private let random: @Sendable (ClosedRange<Double>) -> Double

  init(
    service: String, policy: Policy, clock: GatewayClock,
    random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
  ) {
    self.service = service
    self.policy = Mutex(policy)
    self.clock = clock
    self.random = random
  }

  func update(_ policy: Policy) {
    self.policy.withLock { $0 = policy }
  }

  var current: State { state.withLock { $0 } }

  /// Asks to make one call now.
  func permission() -> Permission {
    let now = clock.now
    return state.withLock { state in
      switch state.position {
      case .closed:
        return .call
      case .probing:
        return .refused(remaining: .zero)
      case .open:
        guard now >= state.openUntil else { return .refused(remaining: state.openUntil - now) }
        state.position = .probing
        return .probe
      }
    }
  }

  /// Whether a call now would be refused (paused, or a probe already out), without taking the
  /// probe: what a caller asks before it waits for somebody else's call.
  var isRefusingCalls: Bool {
    let now = clock.now
    return state.withLock { state in
      switch state.position {
      case .closed: false
      case .probing: true
      case .open: now < state.openUntil
      }
    }
  }

  /// The probe was allowed but not sent (the budget said no): the next caller may probe.
  func abandonProbe() {
    state.withLock { state in
      if state.position == .probing { state.position = .open }
    }
  }

  /// A call came back with an answer the service meant (success, or a refusal of this request
  /// such as an unknown place): the service is up.
  func succeeded() -> Transition? {
    state.withLock { state in
      let wasClosed = state.position == .closed
      state = State()
      return wasClosed ? nil : .closed
    }
  }

  /// A call failed with `error`; returns the transition when the breaker opened.
  func failed(_ error: ProviderError) -> Transition? {
    let policy = policy.withLock { $0 }
    let now = clock.now
    // A 429 opens the breaker at once, for the time its Retry-After names if it names one.
    var isRateLimited = false
    var named: Duration?
    if case .rateLimited(_, let retryAfter) = error {
      isRateLimited = true
      if let retryAfter, retryAfter > 0 {
        named = min(.seconds(retryAfter), policy.longestRetryAfter)
      }
    }
    return state.withLock { state -> Transition? in
      state.failures += 1
      state.lastFailure = "\(error)"
      switch state.position {
      case .open:
        // A call that was already out when the breaker opened: the pause stands.
        return nil
      case .closed where !isRateLimited && state.failures < policy.failures:
        return nil
      case .closed, .probing:
        state.openings += 1
        let backoff = backoff(policy, openings: state.openings)
        let pause = named ?? (isRateLimited ? max(backoff, policy.rateLimitPause) : backoff)
        state.position = .open
        state.openUntil = now + pause
        state.cause = ProviderError.PauseCause(of: error)
        return .opened(for: pause, reason: "\(error)")
      }
    }
  }

  /// `initial × 2^(openings-1)`, capped at `maximum`, of which half is fixed and half random.
  private func backoff(_ policy: Policy, openings: Int) -> Duration {
    let doubled = policy.initial * (1 << min(openings - 1, 30))
    let full = min(doubled, policy.maximum)
    let seconds = Double(full.components.seconds) + Double(full.components.attoseconds) / 1e18
    return .milliseconds(Int64((seconds * random(0.5...1.0) * 1_000).rounded()))
  }
}
