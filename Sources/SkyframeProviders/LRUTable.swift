/// A table with a fixed capacity that forgets its least recently used entry to make room: what
/// every table keyed by something a device sends is built on, so a flood of made-up ids, names
/// or cells costs at most `capacity` entries. Lookups and updates allocate nothing once the
/// table has grown to its capacity.
///
/// Everything is inlinable: the gateway's tables live in another module, where an unspecialized
/// generic table looked its key and value types up at run time on every cache hit.
public struct LRUTable<Key: Hashable, Value> {
  @usableFromInline
  struct Node {
    @usableFromInline var key: Key
    @usableFromInline var value: Value
    /// Toward the newest entry; -1 at the newest.
    @usableFromInline var newer: Int
    /// Toward the oldest entry; -1 at the oldest.
    @usableFromInline var older: Int

    @inlinable
    init(key: Key, value: Value, newer: Int, older: Int) {
      self.key = key
      self.value = value
      self.newer = newer
      self.older = older
    }
  }

  @usableFromInline var slots: [Key: Int] = [:]
  @usableFromInline var nodes: [Node?] = []
  @usableFromInline var free: [Int] = []
  @usableFromInline var newest = -1
  @usableFromInline var oldest = -1
  /// Changed only by `resize(to:)`.
  public var capacity: Int
  /// Entries dropped to make room, since the table was made.
  public var evictions = 0

  @inlinable public init(capacity: Int) {
    self.capacity = max(capacity, 1)
  }

  @inlinable public var count: Int { slots.count }
  @inlinable public var isEmpty: Bool { slots.isEmpty }

  /// The value, marked as just used.
  @inlinable public mutating func value(forKey key: Key) -> Value? {
    guard let slot = slots[key] else { return nil }
    touch(slot)
    return nodes[slot]!.value
  }

  /// The value, without marking it used.
  @inlinable public func peek(_ key: Key) -> Value? {
    slots[key].map { nodes[$0]!.value }
  }

  @inlinable public func contains(_ key: Key) -> Bool { slots[key] != nil }

  /// Inserts or replaces, marked as just used; the least recently used entry goes when full, and
  /// its key is returned.
  @discardableResult @inlinable
  public mutating func set(_ value: Value, forKey key: Key) -> Key? {
    if let slot = slots[key] {
      nodes[slot]!.value = value
      touch(slot)
      return nil
    }
    var evicted: Key?
    if slots.count >= capacity { evicted = evictOldest() }
    let node = Node(key: key, value: value, newer: -1, older: newest)
    let slot: Int
    if let reused = free.popLast() {
      slot = reused
      nodes[slot] = node
    } else {
      slot = nodes.count
      nodes.append(node)
    }
    if newest >= 0 { nodes[newest]!.newer = slot }
    newest = slot
    if oldest < 0 { oldest = slot }
    slots[key] = slot
    return evicted
  }

  /// Changes the value in place if the key is there, without marking it used.
  @inlinable public mutating func update(_ key: Key, _ body: (inout Value) -> Void) {
    guard let slot = slots[key] else { return }
    body(&nodes[slot]!.value)
  }

  /// The value for `key` changed in place by `body` and marked as just used, in one look-up; when
  /// there is none, `make`'s value is inserted first (the least recently used goes when full).
  @inlinable public mutating func modify<Result>(
    _ key: Key, orInsert make: () -> Value, _ body: (inout Value) -> Result
  ) -> Result {
    if let slot = slots[key] {
      touch(slot)
      return body(&nodes[slot]!.value)
    }
    set(make(), forKey: key)
    return body(&nodes[newest]!.value)
  }

  @discardableResult @inlinable
  public mutating func removeValue(forKey key: Key) -> Value? {
    guard let slot = slots.removeValue(forKey: key) else { return nil }
    let node = unlink(slot)
    return node.value
  }

  /// A new capacity (after a reload): the oldest entries go until the table fits.
  @inlinable public mutating func resize(to capacity: Int) {
    self.capacity = max(capacity, 1)
    while slots.count > self.capacity { evictOldest() }
  }

  /// Every entry, newest first.
  @inlinable public var entries: [(key: Key, value: Value)] {
    var result: [(key: Key, value: Value)] = []
    result.reserveCapacity(slots.count)
    forEachNewestFirst { key, value in
      result.append((key, value))
      return true
    }
    return result
  }

  /// Visits entries newest first until `body` returns false; the order is not changed.
  @inlinable public func forEachNewestFirst(_ body: (Key, Value) -> Bool) {
    var slot = newest
    while slot >= 0, let node = nodes[slot] {
      guard body(node.key, node.value) else { return }
      slot = node.older
    }
  }

  @discardableResult @inlinable
  mutating func evictOldest() -> Key? {
    guard oldest >= 0, nodes[oldest] != nil else { return nil }
    let node = unlink(oldest)
    slots[node.key] = nil
    evictions += 1
    return node.key
  }

  // The links are read and written field by field: copying a whole node would retain and release
  // its key and value (a device's topic and places) on every hit.
  @inlinable mutating func touch(_ slot: Int) {
    guard slot != newest else { return }
    let (newer, older) = (nodes[slot]!.newer, nodes[slot]!.older)
    // Out of its place...
    if newer >= 0 { nodes[newer]!.older = older }
    if older >= 0 { nodes[older]!.newer = newer } else { oldest = newer }
    // ...and in front.
    nodes[slot]!.older = newest
    nodes[slot]!.newer = -1
    if newest >= 0 { nodes[newest]!.newer = slot }
    newest = slot
  }

  /// Takes the node out of the list and its slot (moved, not copied), and frees the slot.
  @inlinable mutating func unlink(_ slot: Int) -> Node {
    let (newer, older) = (nodes[slot]!.newer, nodes[slot]!.older)
    if newer >= 0 { nodes[newer]!.older = older } else { newest = older }
    if older >= 0 { nodes[older]!.newer = newer } else { oldest = newer }
    let node = nodes[slot].take()!
    free.append(slot)
    return node
  }
}
