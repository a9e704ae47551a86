import DequeModule
import Synchronization

/// One bounded first-in-first-out queue between the network thread and a fixed number of
/// workers: `offer` never waits (a full queue says no at once, and the caller answers for it);
/// `next` waits for the oldest element. An element offered while a worker waits goes straight to
/// that worker.
final class BoundedQueue<Element: Sendable>: Sendable {
  private struct State: ~Copyable {
    var elements = Deque<Element>()
    var waiting = Deque<(id: UInt64, continuation: CheckedContinuation<Element?, Never>)>()
    var nextWaiter: UInt64 = 0
    var limit: Int
    var finished = false
  }

  enum Refusal: Error {
    case full
    case finished
  }

  private let state: Mutex<State>

  init(limit: Int) {
    state = Mutex(State(limit: max(limit, 1)))
  }

  /// Elements waiting for a worker.
  var depth: Int { state.withLock { $0.elements.count } }

  var limit: Int { state.withLock { $0.limit } }

  func setLimit(_ limit: Int) {
    state.withLock { $0.limit = max(limit, 1) }
  }

  /// Queues `element`, or hands it to a waiting worker; never waits.
  func offer(_ element: Element) -> Result<Void, Refusal> {
    let handoff: CheckedContinuation<Element?, Never>?
    do throws(Refusal) {
      handoff = try state.withLock { state throws(Refusal) in
        if state.finished { throw .finished }
        if let waiter = state.waiting.popFirst() { return waiter.continuation }
        guard state.elements.count < state.limit else { throw .full }
        state.elements.append(element)
        return nil
      }
    } catch {
      return .failure(error)
    }
    handoff?.resume(returning: element)
    return .success(())
  }

  /// The oldest element; nil once the queue is finished and empty, or the task is cancelled.
  func next() async -> Element? {
    let id = state.withLock { state in
      state.nextWaiter += 1
      return state.nextWaiter
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
        let immediate: Element?? = state.withLock { state in
          if let element = state.elements.popFirst() { return .some(element) }
          if state.finished || Task.isCancelled { return .some(nil) }
          state.waiting.append((id, continuation))
          return nil
        }
        if let immediate { continuation.resume(returning: immediate) }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0).continuation }
      }
      waiter?.resume(returning: nil)
    }
  }

  /// No more offers; waiting workers get nil, queued elements are still handed out.
  func finish() {
    let waiters = state.withLock { state in
      state.finished = true
      defer { state.waiting.removeAll() }
      return state.waiting.map(\.continuation)
    }
    for waiter in waiters { waiter.resume(returning: nil) }
  }
}
