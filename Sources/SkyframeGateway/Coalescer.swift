import Synchronization

/// Runs one piece of work per key at a time: callers that ask for a key while its work is running
/// wait for that run instead of starting another. This is what keeps a hundred displays in one
/// weather cell down to a single upstream call.
final class Coalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private let running = Mutex<[Key: Task<Value, Never>]>([:])

  func run(_ key: Key, _ work: @escaping @Sendable () async -> Value) async -> Value {
    let task = running.withLock { running in
      if let existing = running[key] { return existing }
      let task = Task { await work() }
      running[key] = task
      return task
    }
    let value = await task.value
    running.withLock { running in
      if running[key] == task { running[key] = nil }
    }
    return value
  }
}
