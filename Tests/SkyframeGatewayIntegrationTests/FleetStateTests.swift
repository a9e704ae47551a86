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
      let message = try await watcher.next(timeout: .seconds(30))
      if let names = instances(message) { seen.append(names) }
    }
    // gw-b restarts (same id): after it left the state names gw-a alone, which is true; from its
    // return on, every state names both.
    try await second.stop()
    try? await second.http.stop()
    while seen.last != ["gw-a"] {
      let message = try await watcher.next(timeout: .seconds(30))
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

  /// A member whose breaker opens at the first failure and stays open, and that would wait for
  /// a cell's owner a minute (`ownerWait`) with a device waiting two (`deadline`). A wait for the
  /// owner is then a minute, which no test here waits out: "at once" is an answer within
  /// `atOnce` (30 s), a bound far from both and from a loaded machine's slowest answer.
  static func member(_ id: String, on broker: MosquittoBroker) async throws -> GatewayHarness {
    try await keyedMember(id, on: broker) { configuration in
      configuration.requests.deadlineMilliseconds = 120_000
      configuration.cluster.ownerWaitMilliseconds = 60_000
      // Long enough that the shared entry is still fresh when the other member takes it on a
      // loaded machine (at 1 s it expired on the way, and the asker waited for the owner).
      configuration.cache.ttlSeconds = Int(Self.timeToLive.components.seconds)
      configuration.upstream.breakerFailures = 1
      configuration.upstream.backoffInitialSeconds = 600
      configuration.upstream.backoffMaximumSeconds = 600
    }
  }

  /// The members' `cache.ttl-seconds`: a test waits this long for its frame to expire.
  static let timeToLive = Duration.seconds(8)

  /// An answer that did not wait for an owner (which takes a minute) comes within this.
  static let atOnce = Duration.seconds(40)

  /// A device, `{prefix}-{n}`, that `owner` answers.
  static func device(_ prefix: String, ownedBy owner: String, on broker: MosquittoBroker)
    async throws -> Device
  {
    let id = (0..<200).map { "\(prefix)-\($0)" }.first {
      ClusterMembers.owner(of: "device:" + $0, among: members) == owner
    }
    return try await Device.frames(port: broker.port, id: try #require(id))
  }

  @Test func aPausedServiceMeansStaleAtOnceNotAnOwnerWait() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let first = try await Self.member("gw-a", on: broker)
    let second = try await Self.member("gw-b", on: broker)
    // Both have settled and know each other.
    try await Task.sleep(for: .seconds(1.5))
    // Each member answers the devices it owns: one device of each.
    let ofA = try await Self.device("stale", ownedBy: "gw-a", on: broker)
    let ofB = try await Self.device("stale", ownedBy: "gw-b", on: broker)
    let (latitude, longitude) = Self.position(ownedBy: "gw-b", startingAt: 0)
    #expect(latitude != 0)
    // gw-b owns the cell: it fetches and shares it; gw-a takes the shared entry.
    try ofB.ask("#1 \(latitude),\(longitude)")
    #expect(try await ofB.frames(1)[0].status == .ok)
    // The service fails on both; a fetch of a cell of its own opens each member's breaker.
    first.set(.status(500, "down"))
    second.set(.status(500, "down"))
    try await Task.sleep(for: Self.timeToLive + .milliseconds(200))  // the frame above expired
    for (harness, device, owner) in [(first, ofA, "gw-a"), (second, ofB, "gw-b")] {
      var asked = 1
      while harness.logs.all.filter({ $0.contains("paused") }).isEmpty, asked < 20 {
        let (otherLatitude, _) = Self.position(ownedBy: owner, startingAt: 100 + asked * 3)
        try device.ask("#\(asked + 1) \(otherLatitude),\(longitude)")
        _ = try await device.frames(1)
        asked += 1
      }
    }
    // Both paused. gw-a, which does not own the expired cell, answers it stale from its cache at
    // once; an owner wait would hold each request a minute (and `frames` would throw).
    for id in 95..<99 { try ofA.ask("#\(id) \(latitude),\(longitude)") }
    let answers = try await ofA.frames(4, timeout: Self.atOnce)
    #expect(answers.map(\.status) == [.stale, .stale, .stale, .stale])
    await first.shutdown()
    await second.shutdown()
  }
}

extension FleetStaleTests {
  /// Only the owner's breaker is open (the other member never called the failing service
  /// itself): the owner says it cannot fetch the cell, and the member that asked answers stale
  /// at once instead of waiting for an entry that will not come.
  @Test func anOwnerThatCannotFetchSaysSoAndTheAskerAnswersStaleAtOnce() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let first = try await Self.member("gw-a", on: broker)
    let second = try await Self.member("gw-b", on: broker)
    try await Task.sleep(for: .seconds(1.5))
    let ofA = try await Self.device("owner", ownedBy: "gw-a", on: broker)
    let ofB = try await Self.device("owner", ownedBy: "gw-b", on: broker)
    let (latitude, longitude) = Self.position(ownedBy: "gw-b", startingAt: 0)
    try ofB.ask("#1 \(latitude),\(longitude)")
    #expect(try await ofB.frames(1)[0].status == .ok)
    // gw-a takes the shared entry (it answers its device from it).
    try ofA.ask("#2 \(latitude),\(longitude)")
    #expect(try await ofA.frames(1)[0].status == .ok)
    first.set(.status(500, "down"))
    second.set(.status(500, "down"))
    try await Task.sleep(for: Self.timeToLive + .milliseconds(200))
    // Only gw-b's breaker opens: it fetches cells of its own.
    var asked = 3
    while second.logs.all.filter({ $0.contains("paused") }).isEmpty, asked < 20 {
      let (otherLatitude, _) = Self.position(ownedBy: "gw-b", startingAt: 100 + asked * 3)
      try ofB.ask("#\(asked) \(otherLatitude),\(longitude)")
      _ = try await ofB.frames(1)
      asked += 1
    }
    #expect(first.logs.all.filter { $0.contains("paused") }.isEmpty)
    // The owner's word comes at once; without it gw-a would wait a minute for the owner.
    try ofA.ask("#90 \(latitude),\(longitude)")
    let answer = try await ofA.frames(1, timeout: Self.atOnce)[0]
    #expect(answer.status == .stale)
    #expect(first.forecastCalls == 0, "gw-a fetched the cell itself")
    await first.shutdown()
    await second.shutdown()
  }
}

/// A member in its first second is not announced: the others answer its devices, and what it
/// holds meanwhile it drops as theirs. Its presence cleared by another member then (a clear
/// meant for its earlier incarnation, coming late) must not make it announce itself early, or
/// the requests of that moment are answered by nobody (the fault run lost 12 this way).
@Suite(.serialized) struct EarlyAnnouncementTests {
  @Test func aLateClearOfItsPresenceDoesNotAnnounceAStartingMember() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let survivor = try await keyedMember("gw-b", on: broker)
    try await Task.sleep(for: .seconds(1.5))
    let watcher = try await Device.connect(
      port: broker.port, id: "stats-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["skyframe/v1/gateway/stats"])
    // The survivor's retained stats first.
    _ = try await watcher.next()
    let id = try #require(
      (0..<200).map { "early-\($0)" }.first {
        ClusterMembers.owner(of: "device:" + $0, among: ["gw-a", "gw-b"]) == "gw-a"
      })
    let device = try await Device.frames(port: broker.port, id: id)
    let starting = try await keyedMember("gw-a", on: broker)
    // Its stats at its connect: it is subscribed, and unannounced for a second.
    _ = try await watcher.next()
    try watcher.client.publish(
      "skyframe/v1/gateway/instances/gw-a", payload: [], qos: 1, retain: true)
    try await Task.sleep(for: .milliseconds(100))
    try device.ask("#1 52.52,13.405")
    let answer = try await device.frames(1, timeout: .seconds(5))[0]
    #expect(answer.status == .ok)
    await starting.shutdown()
    await survivor.shutdown()
  }
}

/// A member killed with requests routed to it before the others saw its last will: they wait in
/// its session ahead of the taker's marker, and it answers them when it returns; what came after
/// the marker the taker answered, so it drops those.
@Suite(.serialized) struct TakeoverMarkerTests {
  @Test func aReturningMemberAnswersWhatCameBeforeTheTakeoverMarkerAndNothingAfter() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    // gw-a's session (a member's client id is its instance id), as it was when it was killed:
    // its subscriptions, kept by the broker.
    let clientID = "gw-a"
    var session = MQTTConfiguration(clientID: clientID, host: "127.0.0.1", port: broker.port)
    session.cleanSession = false
    session.sessionExpiry = .seconds(300)
    let sessionClient = try MQTTClient(configuration: session, logger: Logger(label: "session"))
    try sessionClient.subscribe("skyframe/v1/req/+", qos: 1)
    try sessionClient.subscribe("skyframe/v1/gateway/takeover/+", qos: 1)
    try await sessionClient.connect(timeout: .seconds(30))
    await sessionClient.disconnect()
    // gw-b lives (its retained presence); its device answers are not part of this test.
    let id = try #require(
      (0..<200).map { "taken-\($0)" }.first {
        ClusterMembers.owner(of: "device:" + $0, among: ["gw-a", "gw-b"]) == "gw-a"
      })
    let device = try await Device.frames(port: broker.port, id: id)
    try device.client.publish(
      "skyframe/v1/gateway/instances/gw-b", payload: Array(#"{"state":"online"}"#.utf8), qos: 1,
      retain: true)
    try device.client.publish(
      "skyframe/v1/gateway/state",
      payload: Array(#"{"state":"online","instances":["gw-b"]}"#.utf8), qos: 1, retain: true)
    // Before the marker: routed while gw-b still took gw-a for alive. After it: gw-b's.
    try device.ask("#1 52.52,13.405")
    try device.client.publish(
      "skyframe/v1/gateway/takeover/gw-a", payload: Array("gw-b".utf8), qos: 1, retain: false)
    try device.ask("#2 52.52,13.405")
    try await Task.sleep(for: .milliseconds(200))
    let returning = try await keyedMember("gw-a", on: broker)
    let frames = try await device.frames(1, timeout: .seconds(30))
    #expect(frames[0].requestID == 1)
    #expect(try await device.expectSilence(for: .seconds(2)))
    await returning.shutdown()
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
      try await keyedMember(id, on: broker) { configuration in
        configuration.locations = [
          GatewayConfiguration.NamedLocation(
            name: name, place: .coordinates(latitude: 52.52, longitude: 13.405),
            refreshSeconds: 3_600)
        ]
      }
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

  /// Names too: a place name one member looked up is the fleet's; a member that starts later
  /// answers a device asking by that name without a look-up of its own (or a forecast call).
  @Test func aStartingMemberKnowsTheNamesTheFleetLookedUp() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    func member(_ id: String) async throws -> GatewayHarness {
      try await keyedMember(id, on: broker)
    }
    let first = try await member("gw-a")
    let asking = try await Device.frames(port: broker.port, id: "names-a")
    try asking.ask("#1 Berlin,DE")
    #expect(try await asking.frames(1).first?.status == .ok)
    #expect(first.searchCalls == 1)
    // gw-b starts; a device it owns asks by the same name.
    let second = try await member("gw-b")
    try await Task.sleep(for: .seconds(1.5))
    let id = (0..<200).map { "names-\($0)" }.first {
      ClusterMembers.owner(of: "device:" + $0, among: ["gw-a", "gw-b"]) == "gw-b"
    }!
    let other = try await Device.frames(port: broker.port, id: id)
    try other.ask("#2 Berlin,DE")
    let frame = try #require(try await other.frames(1).first)
    #expect(frame.status == .ok && frame.name.string == "Berlin")
    #expect(second.searchCalls == 0, "gw-b looked up a name the fleet knew")
    #expect(second.forecastCalls == 0, "gw-b fetched a cell the fleet had")
    try await second.stop()
    try? await second.http.stop()
    await first.shutdown()
  }

  /// Scheduled work once: a member that starts and takes a named place over does not push it
  /// again before its interval — the place's retained frame says when it was last pushed.
  @Test func aStartingMemberDoesNotPushAPlaceBeforeItsTime() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let name = (0..<200).map { "spot\($0)" }.first {
      ClusterMembers.owner(of: $0, among: ["gw-a", "gw-b"]) == "gw-b"
    }!
    func member(_ id: String) async throws -> GatewayHarness {
      try await keyedMember(id, on: broker) { configuration in
        configuration.locations = [
          GatewayConfiguration.NamedLocation(
            name: name, place: .coordinates(latitude: 52.52, longitude: 13.405),
            refreshSeconds: 3_600)
        ]
      }
    }
    let first = try await member("gw-a")
    let display = try await Device.connect(
      port: broker.port, id: "display-o", subscribe: ["skyframe/v1/loc/\(name)"])
    _ = try await display.next { !$0.payload.isEmpty }
    // gw-b starts and now owns the place; gw-a pushed it a moment ago, its interval is an hour.
    let second = try await member("gw-b")
    let again = try? await display.next(timeout: .seconds(4)) { !$0.payload.isEmpty }
    #expect(again == nil, "the place was pushed again at gw-b's start")
    try await second.stop()
    try? await second.http.stop()
    await first.shutdown()
  }

  /// The same for a watch: a member that starts and takes a watch over does not push it again
  /// before its interval — it follows the watched device's frame topic and reads the last push.
  @Test func aStartingMemberDoesNotPushAWatchBeforeItsTime() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let device = (0..<200).map { "pin-\($0)" }.first {
      ClusterMembers.owner(of: $0, among: ["gw-a", "gw-b"]) == "gw-b"
    }!
    func member(_ id: String) async throws -> GatewayHarness {
      try await keyedMember(id, on: broker)
    }
    let first = try await member("gw-a")
    let display = try await Device.connect(
      port: broker.port, id: device, subscribe: ["skyframe/v1/frame/\(device)"])
    try display.client.publish(
      "skyframe/v1/watch/\(device)", payload: Array("52.52,13.41 @3600".utf8), qos: 1,
      retain: true)
    _ = try await display.next(timeout: .seconds(30)) { !$0.payload.isEmpty }
    let second = try await member("gw-b")
    let again = try? await display.next(timeout: .seconds(4)) { !$0.payload.isEmpty }
    #expect(again == nil, "the watch was pushed again at gw-b's start")
    try await second.stop()
    try? await second.http.stop()
    await first.shutdown()
  }
}

/// A member of cluster "fleet" on `broker` with the shared key, `id` its instance id and
/// `adjust` applied, started.
func keyedMember(
  _ id: String, on broker: MosquittoBroker,
  adjust: (inout GatewayConfiguration) -> Void = { _ in }
) async throws -> GatewayHarness {
  let harness = try await GatewayHarness.make(broker: broker) { configuration in
    configuration.cluster.group = "fleet"
    configuration.cluster.instanceID = id
    configuration.cluster.key = Array("a cluster key of 32 bytes, here!".utf8)
    adjust(&configuration)
  }
  try await harness.start()
  return harness
}
