import Synchronization

/// A fixed number of counters, each a relaxed atomic: counting is one atomic add, with no lock.
/// What the request path counts on every answer (the running totals, the request histogram's
/// buckets). Read one by one, the counters are each exact but not a snapshot of one instant.
final class AtomicCounters: Sendable {
  let count: Int
  /// Allocated once with the counters, freed with them; never resized.
  nonisolated(unsafe) private let slots: UnsafeMutablePointer<Atomic<Int>>

  init(count: Int) {
    self.count = count
    slots = .allocate(capacity: count)
    for slot in 0..<count { (slots + slot).initialize(to: Atomic(0)) }
  }

  deinit {
    slots.deinitialize(count: count)
    slots.deallocate()
  }

  func add(_ value: Int = 1, at slot: Int) {
    precondition(slot >= 0 && slot < count, "no such counter")
    slots[slot].wrappingAdd(value, ordering: .relaxed)
  }

  subscript(slot: Int) -> Int {
    precondition(slot >= 0 && slot < count, "no such counter")
    return slots[slot].load(ordering: .relaxed)
  }
}
