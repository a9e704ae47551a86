import Synchronization

/// How often each device may ask: so many requests in each minute (fixed windows). A device over
/// its allowance gets `rate_limited` and nothing is sent upstream.
final class DeviceRateLimiter: Sendable {
  private struct Window {
    var minute: Int64
    var requests: Int
  }

  private let windows = Mutex<[String: Window]>([:])
  private let now: @Sendable () -> Int64

  init(now: @escaping @Sendable () -> Int64) {
    self.now = now
  }

  /// Counts a request from `device`; false when it is over `perMinute` (0 allows everything).
  func allow(_ device: String, perMinute: Int) -> Bool {
    guard perMinute > 0 else { return true }
    let minute = now() / 60
    return windows.withLock { windows in
      if var window = windows[device], window.minute == minute {
        guard window.requests < perMinute else { return false }
        window.requests += 1
        windows[device] = window
        return true
      }
      // Old windows are dropped when a new minute starts, so the table holds only this minute's devices.
      if let any = windows.first, any.value.minute != minute {
        windows.removeAll(keepingCapacity: true)
      }
      windows[device] = Window(minute: minute, requests: 1)
      return true
    }
  }
}
