import Synchronization

/// Upstream calls a weather service allows: so many a minute and so many a (UTC) day, counted in
/// fixed windows. A call that would pass either limit is not sent.
final class CallBudget: Sendable {
  private struct State {
    var limits: GatewayConfiguration.Budget
    var minute: Int64 = -1
    var callsThisMinute = 0
    var day: Int64 = -1
    var callsToday = 0
  }

  private let state: Mutex<State>
  private let now: @Sendable () -> Int64

  init(_ limits: GatewayConfiguration.Budget, now: @escaping @Sendable () -> Int64) {
    state = Mutex(State(limits: limits))
    self.now = now
  }

  /// New limits; the calls already counted stay counted.
  func update(_ limits: GatewayConfiguration.Budget) {
    state.withLock { $0.limits = limits }
  }

  var limits: GatewayConfiguration.Budget { state.withLock { $0.limits } }

  /// Takes `calls` from the budget, or takes nothing and answers false when they do not fit.
  func take(_ calls: Int) -> Bool {
    let time = now()
    return state.withLock { state in
      let minute = time / 60
      let day = time / 86_400
      if minute != state.minute {
        state.minute = minute
        state.callsThisMinute = 0
      }
      if day != state.day {
        state.day = day
        state.callsToday = 0
      }
      let limits = state.limits
      if limits.perMinute > 0, state.callsThisMinute + calls > limits.perMinute { return false }
      if limits.perDay > 0, state.callsToday + calls > limits.perDay { return false }
      state.callsThisMinute += calls
      state.callsToday += calls
      return true
    }
  }
}
