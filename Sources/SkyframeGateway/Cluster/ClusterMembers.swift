import Synchronization

/// How many live instances share the fleet's budgets: 1 alone. Each instance spends at most its
/// share (the budget divided by this), so the fleet stays within the service's limits.
package final class FleetShare: Sendable {
  private let members = Atomic<Int>(1)

  package var count: Int { members.load(ordering: .relaxed) }

  package func set(_ count: Int) { members.store(max(count, 1), ordering: .relaxed) }

  /// `limit` divided among the members (at least 1); 0 (no limit) stays 0.
  package func share(of limit: Int) -> Int {
    limit > 0 ? max(limit / count, 1) : 0
  }
}

/// The live instances of a cluster, as their retained presence messages say: a message under
/// `{base}/v1/gateway/instances/{id}` adds `id`, an empty one (a last will, a clean stop) removes
/// it. At most `ClusterSettings.maximumMembers` are kept; further ids are ignored.
public final class ClusterMembers: Sendable {
  private let members = Mutex<Set<String>>([])
  package let own: String
  /// When this member first connected to the broker (gateway clock, nanoseconds), -1 before.
  private let firstConnected = Atomic<Int64>(-1)

  /// After a reconnect (a broker restart sends every member's will while nobody listens), the
  /// members that have not announced themselves again yet: the requests of the devices they own
  /// are held until they do (then they answer them from their own sessions) or until
  /// `reconfirming` is over (then they are gone, and their devices move). Empty otherwise.
  private let unconfirmed = Mutex<Set<String>>([])
  /// Members that left lately and when (gateway clock): a broker that shuts down sends every
  /// member's will to the others still connected, so a member that reconnects counts those that
  /// left in the last `recentlyGone` as members to confirm again. At most `maximumMembers`, the
  /// one that left longest ago giving way.
  private let gone = Mutex<[String: Duration]>([:])
  package static let recentlyGone = Duration.seconds(30)
  /// Whether a reconfirming has begun (at the disconnect) and not ended.
  private let reconfirming = Atomic<Bool>(false)

  package var isReconfirming: Bool { reconfirming.load(ordering: .relaxed) }
  /// Members this one is taking over (gone by their last will) and since when (gateway clock):
  /// until its own takeover marker comes back through the broker, requests of the devices the
  /// gone member owned are left to it. They sit in its session ahead of the marker, and it
  /// answers them when it returns; what comes after the marker is this member's. Ends at the
  /// marker, or after `takeoverLimit` if it never comes back. At most `maximumMembers`.
  private let takingOver = Mutex<[String: Duration]>([:])
  /// How many are in `takingOver`: the request path looks at this number alone.
  private let takeovers = Atomic<Int>(0)
  package static let takeoverLimit = Duration.seconds(5)
  /// Told when a takeover marker for this member arrives (the intake notes where it came among
  /// the requests it holds).
  private let takenOver = Mutex<(@Sendable () -> Void)?>(nil)
  /// What the intake does with the requests it held, once the live set can be trusted: `true`
  /// to drop them when other members live (after this process's first connect, while it was not
  /// yet announced, they answered them).
  private let release = Mutex<(@Sendable (_ dropIfOthersLive: Bool) -> Void)?>(nil)

  /// How long after its first connect a member trusts its live set: the retained presence of
  /// the others arrives right after the subscription.
  package static let settling = Duration.seconds(1)

  /// How long after a reconnect the members have to announce themselves again: they reconnect
  /// within about a second of the broker's return.
  package static let reconfirming = Duration.seconds(10)

  /// What the intake does with a request from a device (`answers(device:at:)`).
  package enum Answering: Equatable {
    /// This member owns the device: it answers.
    case answer
    /// Another live member owns it and answers it (every member's session gets every request).
    case otherMember
    /// The live set is not settled yet, or the owner has not announced itself again since a
    /// reconnect: held until then.
    case hold
  }

  /// Who answers `device`'s requests: the member the rendezvous over the live set picks, once
  /// that set can be trusted.
  package func answers(device: String, at now: Duration) -> Answering {
    guard isSettled(at: now) else { return .hold }
    let members = members.withLock { $0 }
    // Alone, every device is this member's (perhaps taking over the last other member's).
    let owner =
      members.count > 1 ? Self.owner(of: device, prefix: Self.devicePrefix, among: members) : own
    guard let owner, owner != own else {
      return takeovers.load(ordering: .relaxed) > 0 && wasTakenOver(device, members, now)
        ? .otherMember : .answer
    }
    // A member leaving moves only its own devices: this member's stay its own meanwhile.
    return unconfirmed.withLock { $0.contains(owner) } ? .hold : .otherMember
  }

  /// Whether `device` belonged to a member this one is still taking over (its requests until
  /// the marker are that member's).
  private func wasTakenOver(_ device: String, _ members: Set<String>, _ now: Duration) -> Bool {
    let pending = takingOver.withLock { taking in
      taking.filter { now - $0.value < Self.takeoverLimit }.map(\.key)
    }
    guard !pending.isEmpty else { return false }
    let previous = Self.owner(
      of: device, prefix: Self.devicePrefix, among: members.union(pending))
    return previous.map { pending.contains($0) } ?? false
  }

  /// `id` left by its last will at `now`: its devices are this member's once the takeover
  /// marker this member publishes comes back (`endTakeover`).
  package func beginTakeover(of id: String, at now: Duration) {
    let count = takingOver.withLock { taking in
      taking = taking.filter { now - $0.value < Self.takeoverLimit }
      if taking.count < ClusterSettings.maximumMembers || taking[id] != nil { taking[id] = now }
      return taking.count
    }
    takeovers.store(count, ordering: .relaxed)
  }

  /// This member's takeover marker for `id` came back, or `id` is back: its devices are settled.
  package func endTakeover(of id: String) {
    let count = takingOver.withLock { taking in
      taking[id] = nil
      return taking.count
    }
    takeovers.store(count, ordering: .relaxed)
  }

  /// How many members this one is taking over (at most `maximumMembers`).
  package var takeoverCount: Int { takeovers.load(ordering: .relaxed) }

  /// Where a takeover marker for this member is told (set once, by the gateway).
  package func onTakenOver(_ handler: @escaping @Sendable () -> Void) {
    takenOver.withLock { $0 = handler }
  }

  /// Another member took this one over while it was gone: the marker arrived.
  package func takenOverMarkerArrived() {
    takenOver.withLock { $0 }?()
  }

  package static let devicePrefix = "device:"

  package init(own: String) {
    self.own = own
    members.withLock { _ = $0.insert(own) }
  }

  /// Where the requests held go when the live set can be trusted (set once, by the gateway).
  package func onRelease(_ handler: @escaping @Sendable (_ dropIfOthersLive: Bool) -> Void) {
    release.withLock { $0 = handler }
  }

  /// This process's first connect has settled and it is announced: the held requests were
  /// answered by the others, if any live (it was not one of them yet), else they are answered.
  package func settledFirstConnect() {
    release.withLock { $0 }?(true)
  }

  /// The connection is lost at `now` (or found again without that being seen): at the
  /// reconnect, the others and those that left in the last `recentlyGone` must announce
  /// themselves again within `reconfirming`; until then their devices' requests wait. Begun at
  /// the disconnect, so that what the broker delivers at once on the reconnect waits too.
  package func beginReconfirming(at now: Duration) {
    let recent = gone.withLock { gone in
      gone = gone.filter { now - $0.value <= Self.recentlyGone }
      return Set(gone.keys)
    }
    let others = members.withLock { members in
      for id in recent where members.count < ClusterSettings.maximumMembers {
        members.insert(id)
      }
      return members.subtracting([own])
    }
    unconfirmed.withLock { $0 = others }
    reconfirming.store(true, ordering: .relaxed)
  }

  /// The reconnect's time to confirm is over: who did not announce itself again is gone, and the
  /// requests held for its devices go to their new owners. Returns whether the live set changed.
  @discardableResult
  package func endReconfirming() -> Bool {
    let gone = unconfirmed.withLock { unconfirmed in
      defer { unconfirmed = [] }
      return unconfirmed
    }
    let changed = members.withLock { members in
      let before = members.count
      members.subtract(gone)
      return members.count != before
    }
    reconfirming.store(false, ordering: .relaxed)
    release.withLock { $0 }?(false)
    return changed
  }

  /// A connect to the broker, at `now` on the gateway clock; returns whether it is this
  /// process's first.
  @discardableResult
  package func connected(at now: Duration) -> Bool {
    let nanoseconds =
      now.components.seconds * 1_000_000_000 + now.components.attoseconds / 1_000_000_000
    return firstConnected.compareExchange(expected: -1, desired: nanoseconds, ordering: .relaxed)
      .exchanged
  }

  /// Whether the live set can be trusted at `now`: a while after the first connect. Before it, a
  /// starting member knows only itself and would take every lease.
  package func isSettled(at now: Duration) -> Bool {
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

  /// The member with the highest weight for `prefix` + `key` (ties: the smaller id): the same
  /// in every member that sees the same set.
  public static func owner(
    of key: String, prefix: String = "", among members: some Sequence<String>
  ) -> String? {
    var best: (weight: UInt64, id: String)?
    for member in members {
      let weight = weight(member, prefix, key)
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
  package static func weight(_ member: String, _ key: String) -> UInt64 {
    weight(member, "", key)
  }

  /// `weight(member, prefix + key)`, without making the joined string (a request's path).
  package static func weight(_ member: String, _ prefix: String, _ key: String) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in member.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    hash = (hash ^ 0) &* 0x0000_0100_0000_01B3
    for byte in prefix.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
    hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
    return hash ^ (hash >> 31)
  }

  package var count: Int { members.withLock { $0.count } }

  /// Applies one presence message; returns whether the set changed.
  @discardableResult
  package func receive(id: String, payload: some Collection<UInt8>, at now: Duration = .zero)
    -> Bool
  {
    // A member announced again after a reconnect: the requests held for it are its own.
    if !payload.isEmpty, unconfirmed.withLock({ $0.remove(id) }) != nil {
      release.withLock { $0 }?(false)
    }
    return members.withLock { members in
      if payload.isEmpty {
        // After a reconnect a member to confirm stays until it does or its time is over: the
        // wills and clears a broker's shutdown and restart bring say nothing of it now.
        if reconfirming.load(ordering: .relaxed), unconfirmed.withLock({ $0.contains(id) }) {
          return false
        }
        // Our own presence is cleared only when we stop; a stale clear does not remove us.
        guard id != own, members.remove(id) != nil else { return false }
        gone.withLock { gone in
          // Full: the one that left longest ago gives way.
          if gone[id] == nil, gone.count >= ClusterSettings.maximumMembers,
            let oldest = gone.min(by: { $0.value < $1.value })
          {
            gone[oldest.key] = nil
          }
          gone[id] = now
        }
        return true
      }
      guard members.count < ClusterSettings.maximumMembers || members.contains(id) else {
        return false
      }
      let inserted = members.insert(id).inserted
      if inserted, takeovers.load(ordering: .relaxed) > 0 { endTakeover(of: id) }
      return inserted
    }
  }
}

/// `{base}/v1/gateway/state` in a cluster: `{"state":"online","instances":["gw-a","gw-b"]}` while
/// any member lives, written by one of them (the owner of the key "state") whenever the live set
/// changes; a member's last will is `{"state":"offline","instance":"gw-b"}`, which the members left
/// replace; when the last member goes, its will (or its clean stop) leaves the fleet offline.
package enum FleetState {
  package static func online(_ members: [String]) -> [UInt8] {
    let list = members.map { "\"\($0)\"" }.joined(separator: ",")
    return Array(#"{"state":"online","instances":[\#(list)]}"#.utf8)
  }

  package static func offline(_ instance: String) -> [UInt8] {
    Array(#"{"state":"offline","instance":"\#(instance)"}"#.utf8)
  }

  /// The member an offline message names; nil for anything else.
  package static func offlineInstance(in payload: some Collection<UInt8>) -> String? {
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
