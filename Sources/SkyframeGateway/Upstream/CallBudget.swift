import SkyframeProviders
import Synchronization

/// Upstream calls a weather service allows: so many a minute and so many a (UTC) day, counted in
/// fixed windows. A call that would pass either limit is not sent. Device requests may use only
/// the part of each limit that `upstream.reserve-percent` leaves while there is scheduled work
/// (named places or watches); scheduled refreshes may use it all.
final class CallBudget: Sendable {
  private struct State {
    var limits: GatewayConfiguration.Budget
    var reservePercent: Int
    var minute: Int64 = -1
    var callsThisMinute = 0
    var day: Int64 = -1
    var callsToday = 0

    mutating func roll(to time: Int64) {
      if time / 60 != minute {
        minute = time / 60
        callsThisMinute = 0
      }
      if time / 86_400 != day {
        day = time / 86_400
        callsToday = 0
      }
    }

    /// The limit as it applies to `priority`; 0 is no limit.
    func limit(_ full: Int, for priority: UpstreamPriority, reserving: Bool) -> Int {
      guard full > 0, priority == .device, reserving else { return full }
      return max(full * (100 - reservePercent) / 100, 1)
    }
  }

  private let state: Mutex<State>
  private let clock: GatewayClock
  /// In a cluster, this instance spends only its share of each limit.
  private let fleet: FleetShare?

  init(
    _ limits: GatewayConfiguration.Budget, reservePercent: Int = 0, clock: GatewayClock,
    fleet: FleetShare? = nil
  ) {
    state = Mutex(State(limits: limits, reservePercent: reservePercent))
    self.clock = clock
    self.fleet = fleet
  }

  /// The configured limits, or this instance's share of them in a cluster.
  private func ownShare(_ limits: GatewayConfiguration.Budget) -> GatewayConfiguration.Budget {
    guard let fleet else { return limits }
    var share = limits
    share.perMinute = fleet.share(of: limits.perMinute)
    share.perDay = fleet.share(of: limits.perDay)
    return share
  }

  /// New limits; the calls already counted stay counted.
  func update(_ limits: GatewayConfiguration.Budget, reservePercent: Int) {
    state.withLock {
      $0.limits = limits
      $0.reservePercent = reservePercent
    }
  }

  var limits: GatewayConfiguration.Budget { state.withLock { $0.limits } }

  /// Calls left in this minute and today for scheduled refreshes (nil: no limit).
  var remaining: (minute: Int?, day: Int?) {
    let time = clock.unixTime()
    return state.withLock { state in
      state.roll(to: time)
      let limits = ownShare(state.limits)
      return (
        limits.perMinute > 0 ? max(limits.perMinute - state.callsThisMinute, 0) : nil,
        limits.perDay > 0 ? max(limits.perDay - state.callsToday, 0) : nil
      )
    }
  }

  /// Takes `calls` from the budget, or takes nothing and answers false when they do not fit.
  ///
  /// - Parameter reserving: whether the reserve is held back from device requests (there is
  ///   scheduled work to keep it for).
  func take(_ calls: Int, for priority: UpstreamPriority = .scheduled, reserving: Bool = true)
    -> Bool
  {
    let time = clock.unixTime()
    return state.withLock { state in
      state.roll(to: time)
      let limits = ownShare(state.limits)
      let perMinute = state.limit(limits.perMinute, for: priority, reserving: reserving)
      let perDay = state.limit(limits.perDay, for: priority, reserving: reserving)
      if perMinute > 0, state.callsThisMinute + calls > perMinute { return false }
      if perDay > 0, state.callsToday + calls > perDay { return false }
      state.callsThisMinute += calls
      state.callsToday += calls
      return true
    }
  }
}
