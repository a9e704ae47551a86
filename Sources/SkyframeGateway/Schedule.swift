import DequeModule
import ServiceLifecycle
import Synchronization

/// When each scheduled thing (a named place, a watch) is next due, by its key, in the gateway
/// clock's time. A key with no time yet is due at once.
struct DueTimes {
  private var next: [String: Duration] = [:]

  /// The items due at `now`, each rescheduled `seconds(item)` later.
  mutating func takeDue<Item>(
    _ items: some Sequence<Item>, now: Duration, key: (Item) -> String,
    seconds: (Item) -> Int
  ) -> [Item] {
    var due: [Item] = []
    for item in items where next[key(item)].map({ $0 <= now }) ?? true {
      next[key(item)] = now + .seconds(seconds(item))
      due.append(item)
    }
    return due
  }

  /// Makes `key` due at once.
  mutating func reset(_ key: String) { next[key] = nil }

  /// `key` was done at `time` (by this member or another): it is next due `seconds` after it,
  /// unless it is due later already.
  mutating func noteDone(_ key: String, at time: Duration, seconds: Int) {
    let due = time + .seconds(seconds)
    if let current = next[key], current >= due { return }
    next[key] = due
  }

  /// Keeps the times of the keys for which `keep` holds; the others are due at once.
  mutating func keep(where keep: (String) -> Bool) { next = next.filter { keep($0.key) } }
}

extension DueTimes {
  /// How long ago a frame found retained on (re)subscribing was pushed, by this member before a
  /// restart or by another: at some moment between its weather's fetch and now, for a push may
  /// serve weather fetched long before. Taken as at most half an interval ago, so the next push
  /// comes between half an interval and an interval and a half after the real last one, and
  /// never seconds after a push another member made just before this one started.
  static func retainedPushSecondsAgo(fetchedSecondsAgo: Int64, intervalSeconds: Int) -> Int64 {
    min(max(fetchedSecondsAgo, 0), Int64(intervalSeconds) / 2)
  }
}

/// Every `tick`, runs `work` for each item `takeDue` hands out, concurrently but at most
/// `concurrency` at once (`nil`: no bound), until the task is cancelled or the service group
/// shuts down. Items over the bound wait in order, and are started as soon as running ones end
/// (checked every `tick / 10` while any wait): 2,000 watches due at once make `concurrency`
/// upstream fetches at a time, not 2,000. An item handed out again while its earlier turn still
/// waits (its interval passed while pushes were behind) is not queued twice: with `key`, the
/// queue holds each key at most once, so it stays within the number of scheduled things.
func runSchedule<Item: Sendable>(
  tick: Duration, clock: GatewayClock, concurrency: @escaping @Sendable () -> Int? = { nil },
  key: (@Sendable (Item) -> String)? = nil,
  takeDue: @escaping @Sendable (Duration) -> [Item],
  work: @escaping @Sendable (Item) async -> Void
) async {
  let running = RunningCount()
  await withDiscardingTaskGroup { group in
    var waiting = WaitingItems<Item>(key: key)
    while !Task.isCancelled && !Task.isShuttingDownGracefully {
      for item in takeDue(clock.now) { waiting.add(item) }
      let limit = concurrency() ?? .max
      while running.value.load(ordering: .relaxed) < limit, let item = waiting.popFirst() {
        running.value.add(1, ordering: .relaxed)
        group.addTask {
          await work(item)
          running.value.subtract(1, ordering: .relaxed)
        }
      }
      try? await clock.sleep(for: waiting.isEmpty ? tick : tick / 10)
    }
  }
}

/// How many scheduled items are being worked on, shared with the tasks that do them.
private final class RunningCount: Sendable {
  let value = Atomic<Int>(0)
}

/// Scheduled items waiting for a turn, in order; with `key`, each key at most once (an item
/// handed out again while it still waits is dropped).
struct WaitingItems<Item> {
  private var items = Deque<Item>()
  private var keys = Set<String>()
  private let key: ((Item) -> String)?

  init(key: ((Item) -> String)?) { self.key = key }

  var count: Int { items.count }
  var isEmpty: Bool { items.isEmpty }

  /// Queues `item`; false when its key is already waiting.
  @discardableResult mutating func add(_ item: Item) -> Bool {
    if let key { guard keys.insert(key(item)).inserted else { return false } }
    items.append(item)
    return true
  }

  mutating func popFirst() -> Item? {
    guard let item = items.popFirst() else { return nil }
    if let key { keys.remove(key(item)) }
    return item
  }
}
