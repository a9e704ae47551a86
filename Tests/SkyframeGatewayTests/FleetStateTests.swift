import Foundation
import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeTestSupport
import Testing

/// The retained fleet state while members come and go: it never names fewer members than are
/// alive (a member that restarts knows only itself for a moment and must not say so).
@Suite(.serialized) struct FleetStateTests {
  private func member(_ id: String, broker: MosquittoBroker) async throws -> GatewayHarness {
    let harness = try await GatewayHarness.make(broker: broker) { configuration in
      configuration.cluster.group = "fleet"
      configuration.cluster.instanceID = id
    }
    try await harness.start(logLevel: .info)
    return harness
  }

  /// The `instances` of a state message, or nil for another state.
  private func instances(_ message: MQTTMessage) -> [String]? {
    let object = try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]
    guard object?["state"] as? String == "online" else { return nil }
    return object?["instances"] as? [String]
  }

  @Test func aRestartingMemberDoesNotWriteAFleetOfItselfAlone() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let first = try await member("gw-a", broker: broker)
    var second = try await member("gw-b", broker: broker)
    let watcher = try await MQTTMailbox.connect(
      port: broker.port, id: "state-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["skyframe/v1/gateway/state"], version: .v311)
    defer { Task { await watcher.disconnect() } }
    // Both known: the state names both (retained, or written again shortly).
    var seen: [[String]] = []
    while seen.last != ["gw-a", "gw-b"] {
      let message = try await watcher.next(timeout: .seconds(10))
      if let names = instances(message) { seen.append(names) }
    }
    // gw-b restarts (same id): after it left the state names gw-a alone, which is true; from its
    // return on, every state names both.
    try await second.stop()
    try? await second.http.stop()
    while seen.last != ["gw-a"] {
      let message = try await watcher.next(timeout: .seconds(10))
      if let names = instances(message) { seen.append(names) }
    }
    second = try await member("gw-b", broker: broker)
    var afterReturn: [[String]] = []
    while let message = try? await watcher.next(timeout: .seconds(3)) {
      if let names = instances(message) { afterReturn.append(names) }
    }
    #expect(!afterReturn.isEmpty)
    #expect(afterReturn.allSatisfy { $0 == ["gw-a", "gw-b"] }, "\(afterReturn)")
    try await second.stop()
    try? await second.http.stop()
    await first.shutdown()
  }
}

/// `stale` at once in a fleet: while every weather service is paused, a member does not wait
/// for the owner of an expired cell (nobody can fetch it), it answers from its cache.
@Suite(.serialized) struct FleetStaleTests {
  static let members = ["gw-a", "gw-b"]

  /// A position whose cell (0.01° grid) the rendezvous gives to `owner`.
  static func position(ownedBy owner: String, startingAt start: Int) -> (Double, Double) {
    for index in start..<(start + 500) {
      let latitude = 48.0 + Double(index) * 0.01
      let row = Int64((latitude / 0.01).rounded())
      let column = Int64((11.0 / 0.01).rounded())
      if ClusterMembers.owner(of: "cell:\(row)_\(column)", among: members) == owner {
        return (latitude, 11.0)
      }
    }
    return (0, 0)
  }

  @Test func aPausedServiceMeansStaleAtOnceNotAnOwnerWait() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    func member(_ id: String) async throws -> GatewayHarness {
      let harness = try await GatewayHarness.make(broker: broker) { configuration in
        configuration.cluster.group = "fleet"
        configuration.cluster.instanceID = id
        configuration.cluster.key = Array("a cluster key of 32 bytes, here!".utf8)
        // Long enough that a wait for the owner would outlast the device's 10 s.
        configuration.cluster.ownerWaitMilliseconds = 30_000
        configuration.cache.ttlSeconds = 1
        configuration.upstream.breakerFailures = 1
        configuration.upstream.backoffInitialSeconds = 600
        configuration.upstream.backoffMaximumSeconds = 600
      }
      try await harness.start()
      return harness
    }
    let first = try await member("gw-a")
    let second = try await member("gw-b")
    // Both have settled and know each other.
    try await Task.sleep(for: .seconds(1.5))
    let device = try await Device.frames(port: broker.port)
    let (latitude, longitude) = Self.position(ownedBy: "gw-b", startingAt: 0)
    #expect(latitude != 0)
    // Whichever member the shared subscription picks: an owner (gw-b) fetches, shares, answers.
    try device.ask("#1 \(latitude),\(longitude)")
    #expect(try await device.frames(1)[0].status == .ok)
    // The service fails on both; a fetch of another cell opens each member's breaker.
    first.set(.status(500, "down"))
    second.set(.status(500, "down"))
    try await Task.sleep(for: .seconds(1.2))  // the frame above is expired now
    var others = 1
    while first.logs.all.filter({ $0.contains("paused") }).isEmpty
      || second.logs.all.filter({ $0.contains("paused") }).isEmpty
    {
      let (otherLatitude, _) = Self.position(
        ownedBy: others % 2 == 0 ? "gw-a" : "gw-b", startingAt: 100 + others * 3)
      try device.ask("#\(others + 1) \(otherLatitude),\(longitude)")
      _ = try await device.frames(1)
      others += 1
      guard others < 20 else { break }
    }
    // Both paused: the expired cell is answered stale from the cache, whichever member takes
    // each request (the broker hands them out in turn, so gw-a, which does not own the cell,
    // takes some of them).
    // An owner wait would hold each request until the request deadline (3 s, then `stale`); the
    // answers come at once instead.
    let asked = ContinuousClock.now
    for id in 95..<99 { try device.ask("#\(id) \(latitude),\(longitude)") }
    let answers = try await device.frames(4, timeout: .seconds(10))
    #expect(ContinuousClock.now - asked < .seconds(2), "an answer waited for the owner")
    #expect(answers.map(\.status) == [.stale, .stale, .stale, .stale])
    await first.shutdown()
    await second.shutdown()
  }
}

/// A warm start: a member that starts takes the fleet's shared frames before it does its
/// scheduled work, so a named place fresh in the fleet costs it no upstream call.
@Suite(.serialized) struct FleetWarmStartTests {
  @Test func aStartingMemberPublishesANamedPlaceFromTheFleetsCache() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    // A place the rendezvous gives to gw-b.
    let name = (0..<200).map { "spot\($0)" }.first {
      ClusterMembers.owner(of: $0, among: ["gw-a", "gw-b"]) == "gw-b"
    }!
    func member(_ id: String) async throws -> GatewayHarness {
      let harness = try await GatewayHarness.make(broker: broker) { configuration in
        configuration.cluster.group = "fleet"
        configuration.cluster.instanceID = id
        configuration.cluster.key = Array("a cluster key of 32 bytes, here!".utf8)
        configuration.locations = [
          GatewayConfiguration.NamedLocation(
            name: name, place: .coordinates(latitude: 52.52, longitude: 13.405),
            refreshSeconds: 3_600)
        ]
      }
      try await harness.start()
      return harness
    }
    // gw-a alone: it owns the place, fetches it and shares the frame (retained, signed).
    let first = try await member("gw-a")
    let display = try await Device.connect(
      port: broker.port, id: "display-w", subscribe: ["skyframe/v1/loc/\(name)"])
    _ = try await display.next { !$0.payload.isEmpty }
    #expect(first.forecastCalls == 1)
    // gw-b starts: the place is now its own, and the fleet's frame for it is fresh.
    let second = try await member("gw-b")
    try await Task.sleep(for: .seconds(2.5))
    #expect(second.forecastCalls == 0, "gw-b fetched a cell fresh in the fleet at its start")
    try await second.stop()
    try? await second.http.stop()
    await first.shutdown()
  }
}
