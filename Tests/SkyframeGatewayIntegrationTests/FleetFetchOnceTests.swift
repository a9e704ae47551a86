import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeTestSupport
import Testing

/// A cell is fetched once by the fleet across a member's return and a broker restart (the fault
/// run saw cells fetched a second time within their time-to-live there).
@Suite(.serialized) struct FleetFetchOnceTests {
  /// The first `{prefix}-{n}` the rendezvous over gw-a and gw-b gives to `owner`.
  static func device(_ prefix: String, ownedBy owner: String) -> String? {
    (0..<200).map { "\(prefix)-\($0)" }.first {
      ClusterMembers.owner(of: "device:" + $0, among: FleetStaleTests.members) == owner
    }
  }

  /// A position in a cell gw-a owns, and that cell's `row_column` (the 0.01° grid).
  static func cellOfA() -> (position: String, cell: String) {
    let (latitude, longitude) = FleetStaleTests.position(ownedBy: "gw-a", startingAt: 0)
    let row = Int64((latitude / 0.01).rounded())
    let column = Int64((longitude / 0.01).rounded())
    return ("\(latitude),\(longitude)", "\(row)_\(column)")
  }

  /// gw-a counts as live for the members that start (its retained presence, as a broker keeps it
  /// while the member is away), and the fleet is online.
  static func announceAbsentOwner(with control: Device) throws {
    try control.client.publish(
      "skyframe/v1/gateway/instances/gw-a", payload: Array(#"{"state":"online"}"#.utf8), qos: 1,
      retain: true)
    try control.client.publish(
      "skyframe/v1/gateway/state",
      payload: Array(#"{"state":"online","instances":["gw-a","gw-b"]}"#.utf8), qos: 1, retain: true)
  }

  /// An owner that is away (killed, or not yet back after a broker restart) keeps in its session
  /// what other members asked of it meanwhile. A want is worth something only while its asker
  /// waits (`cluster.owner-wait-ms`); after that the asker fetched the cell itself, so an owner
  /// that finds the want on its return and fetches the cell calls upstream a second time.
  @Test func aReturningOwnerDoesNotFetchForAWantItsAskerStoppedWaitingFor() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    // gw-a's session as it was when the member went away: subscribed to its wants.
    var session = MQTTConfiguration(clientID: "gw-a", host: "127.0.0.1", port: broker.port)
    session.cleanSession = false
    session.sessionExpiry = .seconds(300)
    let sessionClient = try MQTTClient(configuration: session, logger: Logger(label: "session"))
    try sessionClient.subscribe("skyframe/v1/gateway/want/gw-a", qos: 1)
    try await sessionClient.connect(timeout: .seconds(30))
    await sessionClient.disconnect()
    let control = try await Device.connect(
      port: broker.port, id: "control-w", subscribe: ["skyframe/v1/gateway/want/gw-a"])
    try Self.announceAbsentOwner(with: control)
    let asker = try await keyedMember("gw-b", on: broker)
    try await Task.sleep(for: .seconds(1.5))
    let (position, cell) = Self.cellOfA()
    let device = try await Device.frames(
      port: broker.port, id: try #require(Self.device("want", ownedBy: "gw-b")))
    try device.ask("#1 \(position)")
    let want = try await control.next { $0.topic == "skyframe/v1/gateway/want/gw-a" }
    // At QoS 1 the asker's own client would also keep a want made while the asker is away and
    // send it at its return: QoS 0 is kept by neither.
    #expect(want.qos == 0)
    // No answer from gw-a within the wait: gw-b fetched the cell itself.
    #expect(try await device.frames(1)[0].status == .ok)
    #expect(asker.forecastCalls == 1)
    // Its shared entry cleared, so that only the want could make gw-a fetch the cell.
    try control.client.publish(
      "skyframe/v1/gateway/cache/\(cell)", payload: [], qos: 1, retain: true)
    // gw-a comes back a moment after gw-b stopped waiting.
    try await Task.sleep(for: .seconds(1))
    let returning = try await keyedMember("gw-a", on: broker)
    try await Task.sleep(for: .seconds(1.5))
    #expect(returning.forecastCalls == 0, "gw-a fetched a cell for a want nobody waited for")
    await device.mailbox.disconnect()
    await control.mailbox.disconnect()
    try await returning.stop()
    try? await returning.http.stop()
    await asker.shutdown()
  }

  /// A member that fetches a cell while the broker is away shares it when the broker is back:
  /// libmosquitto keeps a QoS 1 publish made without a connection (though it reports it failed)
  /// and sends it at the reconnect. So the cell's owner, or a member that starts, has the copy
  /// and does not fetch the cell again; a want, at QoS 0, is not kept that way.
  @Test func aFrameFetchedWhileTheBrokerIsAwayIsSharedWhenItIsBack() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let control = try await Device.connect(
      port: broker.port, id: "control-s", subscribe: ["skyframe/v1/gateway/want/gw-a"])
    try Self.announceAbsentOwner(with: control)
    // gw-b waits for gw-a's entry longer than the broker takes to stop.
    let fetcher = try await keyedMember("gw-b", on: broker) { configuration in
      configuration.cluster.ownerWaitMilliseconds = 3_000
    }
    try await Task.sleep(for: .seconds(1.5))
    let (position, cell) = Self.cellOfA()
    let device = try await Device.frames(
      port: broker.port, id: try #require(Self.device("away", ownedBy: "gw-b")))
    try device.ask("#1 \(position)")
    _ = try await control.next { $0.topic == "skyframe/v1/gateway/want/gw-a" }
    await control.mailbox.disconnect()
    await device.mailbox.disconnect()
    await broker.stop()
    // The wait ends while the broker is away: gw-b fetches the cell and cannot share it.
    let deadline = ContinuousClock.now + .seconds(10)
    while fetcher.forecastCalls == 0, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(fetcher.forecastCalls == 1)
    try await broker.restart()
    let cache = try await Device.connect(
      port: broker.port, id: "cache-s", subscribe: ["skyframe/v1/gateway/cache/\(cell)"])
    let shared = try? await cache.next(timeout: .seconds(30)) { !$0.payload.isEmpty }
    #expect(shared != nil, "the frame fetched while the broker was away was not shared")
    await cache.mailbox.disconnect()
    // gw-a starts: the cell is its own, and fresh in the fleet.
    let owner = try await keyedMember("gw-a", on: broker)
    try await Task.sleep(for: .seconds(1.5))
    let ofA = try await Device.frames(
      port: broker.port, id: try #require(Self.device("back", ownedBy: "gw-a")))
    try ofA.ask("#2 \(position)")
    #expect(try await ofA.frames(1)[0].status == .ok)
    #expect(owner.forecastCalls == 0, "gw-a fetched a cell gw-b had fetched while away")
    await ofA.mailbox.disconnect()
    try await owner.stop()
    try? await owner.http.stop()
    await fetcher.shutdown()
  }

  /// The fetch time of a shared entry (bytes 1..<9, little-endian).
  static func fetchedAt(_ entry: MQTTMessage) -> Int64 {
    entry.payload[1..<9].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
  }

  /// A broker killed (-9) comes back from its last save, with an entry older than the members'
  /// copies: they keep theirs, but a member that starts later would take the old entry, expired,
  /// and fetch the cell again. The cell's owner, offered the old entry, shares its own again.
  @Test func anEntryTheBrokerLostIsSharedAgainByTheCellsOwner() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let owner = try await keyedMember("gw-a", on: broker) { $0.cache.ttlSeconds = 3 }
    let other = try await keyedMember("gw-b", on: broker) { $0.cache.ttlSeconds = 3 }
    try await Task.sleep(for: .seconds(1.5))
    let (position, cell) = Self.cellOfA()
    let device = try await Device.frames(
      port: broker.port, id: try #require(Self.device("lost", ownedBy: "gw-a")))
    try device.ask("#1 \(position)")
    #expect(try await device.frames(1)[0].status == .ok)
    // The first entry is in the broker's database (a stop saves it).
    try await broker.restart()
    let saved = try await Device.connect(
      port: broker.port, id: "saved-l", subscribe: ["skyframe/v1/gateway/cache/\(cell)"])
    let first = Self.fetchedAt(try await saved.next { !$0.payload.isEmpty })
    await saved.mailbox.disconnect()
    // Expired: the owner fetches the cell again and shares it; the broker is killed before it
    // saves that entry.
    try await Task.sleep(for: .seconds(3.5))
    try device.ask("#2 \(position)")
    #expect(try await device.frames(1)[0].status == .ok)
    #expect(owner.forecastCalls == 2)
    await broker.kill()
    try await broker.restart()
    let entries = try await Device.connect(
      port: broker.port, id: "entries-l", subscribe: ["skyframe/v1/gateway/cache/\(cell)"])
    let newer = try? await entries.next(timeout: .seconds(30)) {
      !$0.payload.isEmpty && Self.fetchedAt($0) > first
    }
    #expect(newer != nil, "the broker kept the entry of before its kill")
    await entries.mailbox.disconnect()
    await device.mailbox.disconnect()
    try await other.stop()
    try? await other.http.stop()
    await owner.shutdown()
  }
}
