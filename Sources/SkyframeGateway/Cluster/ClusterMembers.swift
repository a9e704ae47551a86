import Synchronization

/// The live instances of a cluster, as their retained presence messages say: a message under
/// `{base}/v1/gateway/instances/{id}` adds `id`, an empty one (a last will, a clean stop) removes
/// it. At most `ClusterSettings.maximumMembers` are kept; further ids are ignored.
public final class ClusterMembers: Sendable {
  private let members = Mutex<Set<String>>([])
  let own: String

  init(own: String) {
    self.own = own
    members.withLock { $0.insert(own) }
  }

  /// The ids seen alive, this instance's own among them, sorted.
  public var live: [String] { members.withLock { $0.sorted() } }

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
