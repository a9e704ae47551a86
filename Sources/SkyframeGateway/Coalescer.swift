import Synchronization

/// Runs one piece of work per key at a time: callers that ask for a key while its work is running
/// wait for that run instead of starting another. This is what keeps a hundred displays in one
/// weather cell down to a single upstream call.
final class Coalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private let running = Mutex<[Key: Task<Value, Never>]>([:])

  func run(_ key: Key, _ work: @escaping @Sendable () async -> Value) async -> Value {
    let task = start(key, work)
    let value = await task.value
    finished(key, task)
    return value
  }

  /// The value if it is there by `deadline` (a reading of `clock`), else nil; the work goes on either way, for whoever
  /// asks next. Each call adds two short tasks: a timer that ends at the deadline or when the
  /// value comes, and a waiter that ends with the work (an upstream call, bounded by its timeout).
  /// Callers are the request workers (`requests.workers` × the places of one request) and the
  /// air-quality fetches those start, so devices cannot make more of them.
  func run(
    _ key: Key, until deadline: Duration, on clock: GatewayClock,
    _ work: @escaping @Sendable () async -> Value
  ) async -> Value? {
    let task = start(key, work)
    return await withCheckedContinuation { continuation in
      let pending = PendingAnswer(continuation)
      let timer = Task {
        try? await clock.sleep(until: deadline)
        pending.resume(returning: nil)
      }
      Task {
        let value = await task.value
        self.finished(key, task)
        timer.cancel()
        pending.resume(returning: value)
      }
    }
  }

  private func start(_ key: Key, _ work: @escaping @Sendable () async -> Value) -> Task<
    Value, Never
  > {
    running.withLock { running in
      if let existing = running[key] { return existing }
      let task = Task { await work() }
      running[key] = task
      return task
    }
  }

  private func finished(_ key: Key, _ task: Task<Value, Never>) {
    running.withLock { running in
      if running[key] == task { running[key] = nil }
    }
  }
}

/// A continuation that two racers may try to resume: the first one does, the other is ignored.
private final class PendingAnswer<Value: Sendable>: Sendable {
  private let continuation: Mutex<CheckedContinuation<Value?, Never>?>

  init(_ continuation: CheckedContinuation<Value?, Never>) {
    self.continuation = Mutex(continuation)
  }

  func resume(returning value: Value?) {
    continuation.withLock { $0.take() }?.resume(returning: value)
  }
}
