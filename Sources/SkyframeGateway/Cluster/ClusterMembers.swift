import Synchronization

/// How many live instances share the fleet's budgets: 1 alone. Each instance spends at most its
/// share (the budget divided by this), so the fleet stays within the service's limits.
final class FleetShare: Sendable {
  private let members = Atomic<Int>(1)

  var count: Int { members.load(ordering: .relaxed) }

  func set(_ count: Int) { members.store(max(count, 1), ordering: .relaxed) }

  /// `limit` divided among the members (at least 1); 0 (no limit) stays 0.
  func share(of limit: Int) -> Int {
    limit > 0 ? max(limit / count, 1) : 0
  }
}

/// The live instances of a cluster, as their retained presence messages say: a message under
/// `{base}/v1/gateway/instances/{id}` adds `id`, an empty one (a last will, a clean stop) removes
/// it. At most `ClusterSettings.maximumMembers` are kept; further ids are ignored.
public final class ClusterMembers: Sendable {
  private let members = Mutex<Set<String>>([])
  let own: String
  /// When this member first connected to the broker (gateway clock, nanoseconds), -1 before.
  private let firstConnected = Atomic<Int64>(-1)

  /// How long after its first connect a member trusts its live set: the retained presence of
  /// the others arrives right after the subscription.
  static let settling = Duration.seconds(1)

  init(own: String) {
    self.own = own
    members.withLock { _ = $0.insert(own) }
  }

  /// The first connect to the broker, at `now` on the gateway clock.
  func connected(at now: Duration) {
    let nanoseconds =
      now.components.seconds * 1_000_000_000 + now.components.attoseconds / 1_000_000_000
    _ = firstConnected.compareExchange(expected: -1, desired: nanoseconds, ordering: .relaxed)
  }

  /// Whether the live set can be trusted at `now`: a while after the first connect. Before it, a
  /// starting member knows only itself and would take every lease.
  func isSettled(at now: Duration) -> Bool {
    let first = firstConnected.load(ordering: .relaxed)
    guard first >= 0 else { return false }
    return now - .nanoseconds(first) >= Self.settling
  }

  /// The ids seen alive, this instance's own among them, sorted.
  public var live: [String] { members.withLock { $0.sorted() } }

  /// Whether this instance does the scheduled work for `key` (a named place, a watching device):
  /// rendezvous hashing, so every instance that sees the same live set picks the same owner, and
  /// a member that joins or leaves moves only the keys it wins or held.
  public func owns(_ key: String) -> Bool {
    owner(of: key) == own
  }

  /// The live member that owns `key`.
  public func owner(of key: String) -> String? {
    Self.owner(of: key, among: members.withLock { $0 })
  }

  /// The member with the highest weight for `key` (ties: the smaller id).
  public static func owner(of key: String, among members: some Sequence<String>) -> String? {
    var best: (weight: UInt64, id: String)?
    for member in members {
      let weight = weight(member, key)
      if let current = best,
        current.weight > weight || (current.weight == weight && current.id < member)
      {
        continue
      }
      best = (weight, member)
    }
    return best?.id
  }

  /// FNV-1a over member, a 0 byte and key, then a 64-bit finalizer (splitmix64) to spread the
  /// bits: the same in every process, unlike Swift's seeded `Hasher`.
  static func weight(_ member: String, _ key: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in member.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    hash = (hash ^ 0) &* 0x0000_0100_0000_01B3
    for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
    hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
    return hash ^ (hash >> 31)
  }

  var count: Int { members.withLock { $0.count } }

  /// Applies one presence message; returns whether the set changed.
  @discardableResult
  func receive(id: String, payload: some Collection<UInt8>) -> Bool {
    members.withLock { members in
      if payload.isEmpty {
        // Our own presence is cleared only when we stop; a stale clear does not remove us.
        return id != own && members.remove(id) != nil
      }
      guard members.count < ClusterSettings.maximumMembers || members.contains(id) else {
        return false
      }
      return members.insert(id).inserted
    }
  }
}

/// `{base}/v1/gateway/state` in a cluster: `{"state":"online","instances":["gw-a","gw-b"]}` while
/// any member lives, written by one of them (the owner of the key "state") whenever the live set
/// changes; a member's last will is `{"state":"offline","instance":"gw-b"}`, which the members left
/// replace; when the last member goes, its will (or its clean stop) leaves the fleet offline.
enum FleetState {
  static func online(_ members: [String]) -> [UInt8] {
    let list = members.map { "\"\($0)\"" }.joined(separator: ",")
    return Array(#"{"state":"online","instances":[\#(list)]}"#.utf8)
  }

  static func offline(_ instance: String) -> [UInt8] {
    Array(#"{"state":"offline","instance":"\#(instance)"}"#.utf8)
  }

  /// The member an offline message names; nil for anything else.
  static func offlineInstance(in payload: some Collection<UInt8>) -> String? {
    let text = String(decoding: payload, as: UTF8.self)
    let prefix = #"{"state":"offline","instance":""#
    guard text.hasPrefix(prefix), text.hasSuffix(#""}"#) else { return nil }
    let id = text.dropFirst(prefix.count).dropLast(2)
    guard (1...23).contains(id.utf8.count), id.allSatisfy(ClusterSettings.isIdentifier) else {
      return nil
    }
    return String(id)
  }
}
