import Synchronization

/// Callers waiting for a key's value to arrive: a cell's frame from another cluster member, or the
/// result of work another caller started (`Coalescer`). Each is resumed when the value is stored,
/// or with nil when its task is cancelled (the wait's deadline). No polling. Bounded by the
/// callers: one entry per waiting call, and the calls are the request workers' and the schedules'
/// misses.
package final class ArrivalWaiters<Key: Hashable & Sendable, Value: Sendable>: Sendable {
  private enum Phase {
    /// Made, its continuation not yet registered.
    case starting
    case waiting(CheckedContinuation<Value?, Never>)
    /// Cancelled or given a value before its continuation was registered.
    case settled(Value?)
  }

  private struct Entry {
    var key: Key
    var phase: Phase
  }

  private struct State {
    var next = 0
    var entries: [Int: Entry] = [:]
  }

  private let state = Mutex(State())

  package init() {}

  /// A place in the line for `key`'s next value: a value that arrives from now on is kept for
  /// `wait(_:)`, even before the wait starts.
  package struct Ticket: Sendable {
    fileprivate let id: Int
  }

  /// Takes a ticket for `key` now; `wait(_:)` then gives what arrived since.
  package func register(_ key: Key) -> Ticket {
    state.withLock { state in
      defer { state.next &+= 1 }
      state.entries[state.next] = Entry(key: key, phase: .starting)
      return Ticket(id: state.next)
    }
  }

  /// The value stored for `key` from now on, or nil when the calling task is cancelled.
  package func wait(for key: Key) async -> Value? {
    await wait(register(key))
  }

  /// The value stored for the ticket's key since it was taken, or nil when the calling task is
  /// cancelled.
  package func wait(_ ticket: Ticket) async -> Value? {
    let id = ticket.id
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let settled = state.withLock { state -> Value?? in
          guard case .settled(let value) = state.entries[id]?.phase else {
            state.entries[id]?.phase = .waiting(continuation)
            return nil
          }
          state.entries[id] = nil
          return .some(value)
        }
        if let settled { continuation.resume(returning: settled) }
      }
    } onCancel: {
      settle(id, nil)
    }
  }

  /// Resumes everyone waiting for `key` with `value`.
  package func arrived(_ value: Value, for key: Key) {
    let ids = state.withLock { state in state.entries.filter { $0.value.key == key }.map(\.key) }
    for id in ids { settle(id, value) }
  }

  package var count: Int { state.withLock { $0.entries.count } }

  private func settle(_ id: Int, _ value: Value?) {
    let continuation = state.withLock { state -> CheckedContinuation<Value?, Never>? in
      switch state.entries[id]?.phase {
      case .waiting(let continuation):
        state.entries[id] = nil
        return continuation
      case .starting:
        state.entries[id]?.phase = .settled(value)
        return nil
      case .settled, nil:
        return nil
      }
    }
    continuation?.resume(returning: value)
  }
}
