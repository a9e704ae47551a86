import Synchronization

/// How fast devices may make the gateway fetch cells (and place names) that are not in the cache
/// at all: so many a minute in all, and so many per device id (kept in the `DeviceTable`). A
/// flood of random ids and random coordinates then costs at most `upstream.new-cells-per-minute`
/// upstream fetches a minute, and the rest of the budget keeps known cells fresh. Refreshing a
/// cell that is in the cache (even expired) and scheduled refreshes are not counted here.
final class NewCellAdmission: Sendable {
  private struct Window {
    var minute: Int64 = -1
    var taken = 0
  }

  private let window = Mutex(Window())

  /// Whether this minute's allowance is used up (nothing is taken).
  func isSpent(minute: Int64, perMinute: Int) -> Bool {
    guard perMinute > 0 else { return false }
    return window.withLock { $0.minute == minute && $0.taken >= perMinute }
  }

  /// Takes one new cell from this minute's allowance; `perMinute` 0 allows everything.
  func take(minute: Int64, perMinute: Int) -> Bool {
    guard perMinute > 0 else { return true }
    return window.withLock { window in
      if window.minute != minute {
        window.minute = minute
        window.taken = 0
      }
      guard window.taken < perMinute else { return false }
      window.taken += 1
      return true
    }
  }
}
