import ServiceLifecycle

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

  /// Keeps the times of the keys for which `keep` holds; the others are due at once.
  mutating func keep(where keep: (String) -> Bool) { next = next.filter { keep($0.key) } }
}

/// Every `tick`, runs `work` for each item `takeDue` hands out, concurrently, until the task is
/// cancelled or the service group shuts down.
func runSchedule<Item: Sendable>(
  tick: Duration, clock: GatewayClock, takeDue: @escaping @Sendable (Duration) -> [Item],
  work: @escaping @Sendable (Item) async -> Void
) async {
  await withDiscardingTaskGroup { group in
    while !Task.isCancelled && !Task.isShuttingDownGracefully {
      for item in takeDue(clock.now) {
        group.addTask { await work(item) }
      }
      try? await clock.sleep(for: tick)
    }
  }
}
