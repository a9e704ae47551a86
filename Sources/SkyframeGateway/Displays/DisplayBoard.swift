import Synchronization

/// What every named place and watch last published, as its displays show it: the standard frame
/// of each retained publish. The status page draws these, and Home Assistant gets them as
/// sensors (`homeassistant`).
///
/// Bounded: named places come from the configuration, and watch places are kept only while
/// fewer than `capacity` entries are held (`watches.maximum` plus the named places); a watch
/// place past that is published to its displays as always but not shown here.
package final class DisplayBoard: Sendable {
  /// One display's source: a named place, or one place of a watch (`slot` nil when the watch
  /// names one place).
  package enum Key: Hashable, Sendable, Comparable {
    case place(String)
    case watch(device: String, slot: Int?)

    package static func < (lhs: Key, rhs: Key) -> Bool { lhs.sortText < rhs.sortText }

    private var sortText: String {
      switch self {
      case .place(let name): "0 \(name)"
      case .watch(let device, let slot): "1 \(device) \(slot.map { String($0 + 1_000) } ?? "")"
      }
    }

    /// `loc/berlin`, `watch/kitchen`, `watch/kitchen/1`: the path below `{base}/v1/state/` and
    /// the status page's name for it.
    package var path: String {
      switch self {
      case .place(let name): "loc/\(name)"
      case .watch(let device, nil): "watch/\(device)"
      case .watch(let device, let slot?): "watch/\(device)/\(slot)"
      }
    }

    var device: String? {
      if case .watch(let device, _) = self { device } else { nil }
    }
  }

  package struct Entry: Sendable {
    package var key: Key
    /// The standard frame (`WeatherFrame.size` bytes) as published.
    package var frame: [UInt8]
    /// Unix seconds of the publish.
    var publishedAt: Int64
  }

  /// Told of every change, outside the board's lock.
  package protocol Listener: Sendable {
    func displayChanged(_ entry: Entry)
    func displayRemoved(_ key: Key)
  }

  private struct State {
    var entries: [Key: Entry] = [:]
    var capacity: Int
  }

  private let state: Mutex<State>
  /// Parts that follow the board (Home Assistant), added while the gateway is assembled.
  private let listeners = Mutex<[any Listener]>([])

  init(capacity: Int, listener: (any Listener)? = nil) {
    state = Mutex(State(capacity: capacity))
    if let listener { listen(listener) }
  }

  package func listen(_ listener: any Listener) {
    listeners.withLock { $0.append(listener) }
  }

  func resize(_ capacity: Int) {
    state.withLock { $0.capacity = capacity }
  }

  /// Keeps `frame` as what `key`'s displays show now; a new watch place past the capacity is
  /// not kept (named places always are).
  func record(_ key: Key, frame: [UInt8], at time: Int64) {
    let entry = Entry(key: key, frame: frame, publishedAt: time)
    let kept = state.withLock { state -> Bool in
      if state.entries[key] == nil, case .watch = key, state.entries.count >= state.capacity {
        return false
      }
      state.entries[key] = entry
      return true
    }
    guard kept else { return }
    for listener in listeners.withLock({ $0 }) { listener.displayChanged(entry) }
  }

  /// Forgets the keys `remove` picks (a watch that went, a named place no longer configured).
  func remove(where remove: (Key) -> Bool) {
    let gone = state.withLock { state -> [Key] in
      let keys = state.entries.keys.filter(remove)
      for key in keys { state.entries[key] = nil }
      return keys
    }
    let listeners = listeners.withLock { $0 }
    for key in gone.sorted() {
      for listener in listeners { listener.displayRemoved(key) }
    }
  }

  /// Forgets a watch's places: all of them, or those from `slots` on (and the single-place key
  /// when it now names several, and the reverse).
  func removeWatch(_ device: String, keeping slots: Int = 0) {
    remove { key in
      guard case .watch(device, let slot) = key else { return false }
      switch slot {
      case nil: return slots != 1
      case let slot?: return slots <= 1 || slot >= slots
      }
    }
  }

  /// Every entry, named places first, then watches, each in name order.
  package var entries: [Entry] {
    state.withLock { Array($0.entries.values) }.sorted { $0.key < $1.key }
  }

  var count: Int { state.withLock { $0.entries.count } }
}
