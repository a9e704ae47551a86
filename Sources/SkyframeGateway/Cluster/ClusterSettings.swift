import Foundation
import SkyframeProviders

/// Several gateways on one broker (`cluster` section). Without a group the gateway runs alone,
/// exactly as before. With one, every instance:
/// - subscribes to `{base}/v1/req/+` in its own persistent MQTT 5 session (a plain subscription,
///   which mosquitto keeps for an offline session across its own restart), so every member gets
///   every request, and answers the devices it owns among the live members (rendezvous hashing,
///   `ClusterMembers.answers`);
/// - connects with its own client id (`instanceID`, derived from the group, the host and the
///   process when not set), so instances never take each other's session;
/// - keeps its MQTT 5 session for `sessionExpirySeconds` after it disappears;
/// - announces itself retained under `{base}/v1/gateway/instances/{id}`, cleared by its last
///   will when it dies and by itself when it stops, and watches the others there: a member gone
///   is a member whose devices the others answer from then on.
public struct ClusterSettings: Sendable, Equatable {
  /// The fleet's name: 1-32 characters of a-z, A-Z, 0-9, '-', '_'. nil: alone.
  public var group: String?
  /// This instance's id: its MQTT client id and the last level of its presence topic.
  public var instanceID: String?
  /// How long the broker keeps a vanished member's session (and queues requests in it).
  public var sessionExpirySeconds = 30
  /// The key that signs the shared cache's entries (HMAC-SHA256), the same on every member; nil:
  /// no shared cache, each member fetches for itself. At least 16 bytes.
  public var key: [UInt8]?
  /// On a miss for a cell another member owns, ask that member for it and wait this long for its
  /// shared entry before fetching here (needs `key`; 0: every member fetches its own misses).
  public var ownerWaitMilliseconds = 1_500
  /// At most this many instances are remembered from the presence topics (a bound on what
  /// anyone who can publish there can make the gateway keep).
  public static let maximumMembers = 64

  public init() {}

  public var isEnabled: Bool { group != nil }

  /// The id this process uses: the configured one, else `{group}-{hash of group and host}-{pid}`
  /// cut to the 23 characters every MQTT broker accepts as a client id.
  public func resolvedInstanceID(
    host: String = ProcessInfo.processInfo.hostName,
    process: Int32 = ProcessInfo.processInfo.processIdentifier
  ) -> String? {
    guard let group else { return nil }
    if let instanceID { return instanceID }
    var hash: UInt32 = 0x811C_9DC5  // FNV-1a
    for byte in "\(group)@\(host)".utf8 {
      hash = (hash ^ UInt32(byte)) &* 0x0100_0193
    }
    let digits = String(hash, radix: 16)
    let hex = String(repeating: "0", count: 8 - digits.count) + digits
    let suffix = "-\(hex)-\(process)"
    return String(group.prefix(23 - suffix.utf8.count)) + suffix
  }
}

extension ClusterSettings {
  /// Reads `cluster.*` and checks it.
  init(reading keys: KeyReader) {
    self.init()
    group = keys.text("cluster.group")
    if let group, !(1...32).contains(group.utf8.count) || !group.allSatisfy(Self.isIdentifier) {
      keys.fail("cluster.group", group, "1-32 characters of a-z, A-Z, 0-9, '-', '_'")
    }
    instanceID = keys.text("cluster.instance-id")
    if let instanceID,
      !(1...23).contains(instanceID.utf8.count) || !instanceID.allSatisfy(Self.isIdentifier)
    {
      keys.fail("cluster.instance-id", instanceID, "1-23 characters of a-z, A-Z, 0-9, '-', '_'")
    }
    if instanceID != nil && group == nil {
      keys.fail("cluster.instance-id", instanceID, "only with cluster.group")
    }
    // Derived once here (the host name is asked of the system), not wherever the id is used.
    instanceID = resolvedInstanceID()
    var keyText = keys.text("cluster.key", secret: true)
    if let file = keys.text("cluster.key-file") {
      do {
        keyText = try String(contentsOfFile: file, encoding: .utf8)
          .trimmingCharacters(in: .whitespacesAndNewlines)
      } catch {
        keys.fail("cluster.key-file", file, "a readable file holding the cluster key")
      }
    }
    if let keyText {
      if keyText.utf8.count < 16 {
        keys.fail("cluster.key", "<redacted>", "at least 16 bytes")
      } else if group == nil {
        keys.fail("cluster.key", "<redacted>", "only with cluster.group")
      } else {
        key = Array(keyText.utf8)
      }
    }
    ownerWaitMilliseconds = keys.integer(
      "cluster.owner-wait-ms", ownerWaitMilliseconds, 0...60_000, "milliseconds, 0-60000")
    sessionExpirySeconds = keys.integer(
      "cluster.session-expiry-seconds", sessionExpirySeconds, 1...86_400, "seconds, 1-86400")
  }

  static func isIdentifier(_ character: Character) -> Bool {
    GatewayConfiguration.isIdentifierCharacter(character)
  }
}
