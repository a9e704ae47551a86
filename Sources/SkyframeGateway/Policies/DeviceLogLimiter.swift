import Logging
import SkyframeProviders
import Synchronization

/// How often lines about devices reach the log: at most one a minute per device id, and at most
/// `linesPerMinute` a minute for all devices together, so neither one device repeating a bad
/// request nor a swarm of made-up ids can flood it. Lines left out are counted, and the next line
/// written for that device says how many. Remembers as many device ids as `requests.max-devices`.
package final class DeviceLogLimiter: Sendable {
  private struct Entry {
    var minute: Int64
    var suppressed: Int
  }

  private struct State {
    var devices: LRUTable<String, Entry>
    var minute: Int64 = -1
    var linesThisMinute = 0
  }

  static let linesPerMinute = 120
  private let state: Mutex<State>
  private let clock: GatewayClock

  init(capacity: Int, clock: GatewayClock) {
    state = Mutex(State(devices: LRUTable(capacity: capacity)))
    self.clock = clock
  }

  func resize(to capacity: Int) {
    state.withLock { $0.devices.resize(to: capacity) }
  }

  /// Nil when the line is to be left out (and is counted); else how many lines about `device`
  /// were left out since its last one.
  func admit(_ device: String) -> Int? {
    let minute = clock.unixTime() / 60
    return state.withLock { state -> Int? in
      if state.minute != minute {
        state.minute = minute
        state.linesThisMinute = 0
      }
      var entry = state.devices.value(forKey: device) ?? Entry(minute: -1, suppressed: 0)
      defer { state.devices.set(entry, forKey: device) }
      guard entry.minute != minute, state.linesThisMinute < Self.linesPerMinute else {
        entry.suppressed += 1
        return nil
      }
      state.linesThisMinute += 1
      entry.minute = minute
      defer { entry.suppressed = 0 }
      return entry.suppressed
    }
  }
}

/// A logger for one device: the device id is attached only to lines that are written, so a
/// request that logs nothing builds no metadata; with a limiter, lines at notice and above the
/// debug level are rate limited per device (`DeviceLogLimiter`).
package struct DeviceLog {
  let logger: Logger
  let device: String
  var limiter: DeviceLogLimiter? = nil

  package init(logger: Logger, device: String, limiter: DeviceLogLimiter? = nil) {
    self.logger = logger
    self.device = device
    self.limiter = limiter
  }

  package func debug(_ message: @autoclosure () -> String) {
    logger.debug("\(message())", metadata: ["device": "\(device)"])
  }
  package func info(_ message: @autoclosure () -> String) {
    write(.info, message())
  }
  package func warning(_ message: @autoclosure () -> String) {
    write(.warning, message())
  }
  func error(_ message: @autoclosure () -> String) {
    write(.error, message())
  }

  private func write(_ level: Logger.Level, _ message: @autoclosure () -> String) {
    guard logger.logLevel <= level else { return }
    var metadata: Logger.Metadata = ["device": "\(device)"]
    if let limiter {
      guard let suppressed = limiter.admit(device) else { return }
      if suppressed > 0 { metadata["suppressed"] = "\(suppressed)" }
    }
    logger.log(level: level, "\(message())", metadata: metadata)
  }
}
