import Synchronization

/// Runs one piece of work per key at a time: callers that ask for a key while its work is running
/// wait for that run instead of starting another. This is what keeps a hundred displays in one
/// weather cell down to a single upstream call.
final class Coalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  /// The keys whose work is running; their callers hold tickets in `results`.
  private let running = Mutex<Set<Key>>([])
  private let results = ArrivalWaiters<Key, Value>()
  private let background: BackgroundWork?

  /// - Parameter background: where work runs that a caller may stop waiting for (`run(_:until:)`);
  ///   without it (the request path alone, in the bench suite) that work runs in the caller.
  init(background: BackgroundWork? = nil) {
    self.background = background
  }

  /// The value of `key`'s work: this caller does the work when none is running, else waits for
  /// the run under way.
  func run(_ key: Key, _ work: @Sendable () async -> Value) async -> Value {
    guard let ticket = join(key) else {
      let value = await work()
      finished(key, value)
      return value
    }
    if let value = await results.wait(ticket) { return value }
    // Cancelled while waiting: the work is not this caller's, so it asks for itself.
    return await work()
  }

  /// The value if it is there by `deadline` (a reading of `clock`), else nil; the work goes on
  /// either way, in `background`, for whoever asks next.
  func run(
    _ key: Key, until deadline: Duration, on clock: GatewayClock,
    _ work: @escaping @Sendable () async -> Value
  ) async -> Value? {
    guard let background else { return await run(key, work) }
    let results = results
    let (ticket, starts) = running.withLock { running in
      let starts = running.insert(key).inserted
      return (results.register(key), starts)
    }
    if starts {
      let job: BackgroundWork.Job = { [self] in finished(key, await work()) }
      if !background.start(job) { await job() }
    }
    return await withTaskGroup(of: Value?.self) { group in
      group.addTask { await results.wait(ticket) }
      group.addTask {
        try? await clock.sleep(until: deadline)
        return nil
      }
      defer { group.cancelAll() }
      return await group.next() ?? nil
    }
  }

  /// A ticket for the run under way, or nil when there is none and the caller is to start one.
  private func join(_ key: Key) -> ArrivalWaiters<Key, Value>.Ticket? {
    running.withLock { running in
      if running.contains(key) { return results.register(key) }
      running.insert(key)
      return nil
    }
  }

  /// Ends `key`'s run: the key is free for the next one first, then the waiters get `value`.
  private func finished(_ key: Key, _ value: Value) {
    _ = running.withLock { $0.remove(key) }
    results.arrived(value, for: key)
  }
}
