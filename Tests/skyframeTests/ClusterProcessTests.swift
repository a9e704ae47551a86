import Foundation
import SkyframeCodec
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@testable import SkyframeCluster
@testable import SkyframeGateway

/// Several `skyframe run` processes in one `cluster.group` on one real mosquitto.
@Suite(.serialized) struct ClusterProcessTests {
  func write(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-cluster-\(UUID().uuidString).yaml")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  /// A member's configuration: `cluster.group: fleet` and `cluster` (more keys of that section,
  /// one a line), then `sections` (YAML), air quality off and no named places.
  func writeMemberConfig(cluster: [String] = [], _ sections: String = "") throws -> URL {
    let clusterLines = (["group: fleet"] + cluster).map { "  \($0)\n" }.joined()
    return try write(
      "cluster:\n" + clusterLines + sections
        + "air-quality:\n  service: none\nlocations:\n  names: []\n")
  }

  /// `cluster.key`, the same for every member.
  static let sharedKey = #"key: "the fleet's shared secret, 40 bytes long""#

  /// What the members of a test's fleet share: a real mosquitto, and an Open-Meteo stand-in that
  /// answers every forecast at one temperature and whose requests are the fleet's upstream calls.
  struct Fleet {
    let broker: MosquittoBroker
    let http: StubHTTPServer

    static func start(temperature: Double) async throws -> Fleet {
      let broker = try await MosquittoBroker.start()
      let http = try await StubHTTPServer.start { request in
        .json(OpenMeteoFixtures.forecast(query: request.query, temperature: temperature))
      }
      return Fleet(broker: broker, http: http)
    }

    /// Upstream calls so far.
    var calls: Int { http.requests.count }

    /// A member's environment: the broker, Open-Meteo at the stand-in, no metrics listener.
    var memberEnvironment: [String: String] {
      var environment = ProcessInfo.processInfo.environment
      environment["SKYFRAME_MQTT_PORT"] = "\(broker.port)"
      environment["SKYFRAME_OPEN_METEO_FORECAST_URL"] = http.baseURL + "/v1/forecast"
      environment["SKYFRAME_METRICS_PORT"] = "0"
      return environment
    }

    func stop() async {
      try? await http.stop()
      await broker.stop()
    }
  }

  /// `skyframe run` as member `id`.
  func startMember(_ id: String, config file: URL, environment: [String: String]) throws
    -> GatewayProcess
  {
    var own = environment
    own["SKYFRAME_CLUSTER_INSTANCE_ID"] = id
    return try GatewayProcess.start(config: file.path, environment: own)
  }

  /// `skyframe_requests_total` summed over its statuses, from an instance's /metrics.
  func requestsAnswered(metricsPort: Int) async throws -> Int {
    let metrics = try await MosquittoBroker.httpGet(port: metricsPort, path: "/metrics")
    return metrics.body.split(separator: "\n")
      .filter { $0.hasPrefix("skyframe_requests_total{") }
      .compactMap { Int($0.split(separator: " ").last ?? "") }
      .reduce(0, +)
  }

  @Test func twoInstancesAnswerEveryRequestExactlyOnceAndAnnounceThemselves() async throws {
    let fleet = try await Fleet.start(temperature: 12.5)
    defer { Task { await fleet.stop() } }
    let file = try writeMemberConfig("open-meteo:\n  timeout-seconds: 2\n")
    let environment = fleet.memberEnvironment
    let watcher = try await Watcher.start(
      port: fleet.broker.port,
      topics: [
        "skyframe/v1/gateway/instances/+", "skyframe/v1/frame/+", "skyframe/v1/gateway/state",
      ])

    var gateways: [GatewayProcess] = []
    var metricsPorts: [Int] = []
    for id in ["gw-a", "gw-b"] {
      var own = environment
      let metricsPort = try MosquittoBroker.freeLoopbackPort()
      own["SKYFRAME_METRICS_PORT"] = "\(metricsPort)"
      metricsPorts.append(metricsPort)
      gateways.append(try startMember(id, config: file, environment: own))
    }
    let running = gateways
    defer { Task { for gateway in running { await gateway.kill() } } }
    for id in ["gw-a", "gw-b"] {
      #expect(
        try await watcher.text(on: "skyframe/v1/gateway/instances/\(id)") == #"{"state":"online"}"#
      )
    }

    // Twenty devices, one request each, all different cells.
    let devices = try await MQTTMailbox.connect(port: fleet.broker.port, id: "cluster-devices")
    for index in 0..<20 {
      try devices.client.publish(
        "skyframe/v1/req/dev\(index)", payload: Array("#\(index + 1) \(index).5,10.5".utf8), qos: 1,
        retain: false)
    }
    var answered: [String: UInt16] = [:]
    for _ in 0..<20 {
      let frame = try await watcher.mailbox.next(timeout: .seconds(20)) {
        $0.topic.hasPrefix("skyframe/v1/frame/")
      }
      let decoded = try WeatherFrame(decoding: frame.payload)
      #expect(decoded.status == .ok)
      #expect(answered[frame.topic] == nil, "a second answer on \(frame.topic)")
      answered[frame.topic] = decoded.requestID
    }
    #expect(answered.count == 20)
    for index in 0..<20 {
      #expect(answered["skyframe/v1/frame/dev\(index)"] == UInt16(index + 1))
    }
    // No request is answered twice: nothing more arrives.
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await watcher.mailbox.next(timeout: .seconds(2)) {
        $0.topic.hasPrefix("skyframe/v1/frame/")
      }
    }
    // Both members took a share, and together exactly the twenty.
    var shares: [Int] = []
    for port in metricsPorts { shares.append(try await requestsAnswered(metricsPort: port)) }
    #expect(shares.reduce(0, +) == 20, "\(shares)")
    #expect(shares.allSatisfy { $0 > 0 }, "\(shares)")

    // The fleet's state names both members.
    let state = "skyframe/v1/gateway/state"
    try await watcher.awaitText(#"{"state":"online","instances":["gw-a","gw-b"]}"#, on: state)
    // kill -9: the broker publishes the member's last will; the member left clears the dead
    // one's presence and says the fleet is online without it.
    await gateways[1].kill()
    try await watcher.awaitText(#"{"state":"offline","instance":"gw-b"}"#, on: state)
    let gone = try await watcher.message(on: "skyframe/v1/gateway/instances/gw-b")
    #expect(gone.payload.isEmpty)
    try await watcher.awaitText(#"{"state":"online","instances":["gw-a"]}"#, on: state)
    // The last member stops cleanly: the fleet is offline, its presence gone.
    gateways[0].signal(SIGTERM)
    try await watcher.awaitText(#"{"state":"offline","instance":"gw-a"}"#, on: state)
    #expect(try await watcher.message(on: "skyframe/v1/gateway/instances/gw-a").payload.isEmpty)
    await devices.disconnect()
    await watcher.stop()
  }

  /// Named places and watches are split among the members by rendezvous hashing: ten new places
  /// (a reload makes them due at once) and five new watches are each published once by the fleet,
  /// not once per instance, and each place costs one upstream call in all.
  @Test func scheduledWorkIsDoneOnceByTheFleet() async throws {
    let fleet = try await Fleet.start(temperature: 3.5)
    defer { Task { await fleet.stop() } }
    let base = """
      cluster:
        group: fleet
      weather:
        batch-window-ms: 0
      air-quality:
        service: none
      """
    let file = try write(base + "\nlocations:\n  names: []\n")
    let environment = fleet.memberEnvironment
    let watcher = try await Watcher.start(
      port: fleet.broker.port,
      topics: ["skyframe/v1/gateway/instances/+", "skyframe/v1/loc/+", "skyframe/v1/frame/#"])
    var gateways: [GatewayProcess] = []
    for id in ["gw-a", "gw-b"] {
      gateways.append(try startMember(id, config: file, environment: environment))
    }
    let running = gateways
    defer { Task { for gateway in running { await gateway.kill() } } }
    for id in ["gw-a", "gw-b"] {
      _ = try await watcher.text(on: "skyframe/v1/gateway/instances/\(id)")
    }
    // Both know both before any work is due.
    try await Task.sleep(for: .milliseconds(500))

    let names = (0..<10).map { "place\($0)" }
    var locations = "\nlocations:\n  names: [\(names.joined(separator: ", "))]\n"
    for (index, name) in names.enumerated() {
      locations += "  \(name):\n    latitude: \(40 + index).5\n    longitude: 10.5\n"
    }
    try (base + locations).write(to: file, atomically: true, encoding: .utf8)
    for gateway in gateways { gateway.signal(SIGHUP) }
    let devices = try await MQTTMailbox.connect(port: fleet.broker.port, id: "cluster-pins")
    for index in 0..<5 {
      try devices.client.publish(
        "skyframe/v1/watch/pin\(index)", payload: Array("\(20 + index).5,20.5 @600".utf8), qos: 1,
        retain: true)
    }

    var seen: [String: Int] = [:]
    let deadline = ContinuousClock.now + .seconds(6)
    while ContinuousClock.now < deadline {
      guard
        let message = try? await watcher.mailbox.next(
          timeout: .milliseconds(500),
          matching: {
            $0.topic.hasPrefix("skyframe/v1/loc/") || $0.topic.hasPrefix("skyframe/v1/frame/")
          })
      else { continue }
      seen[message.topic, default: 0] += 1
    }
    for name in names {
      #expect(seen["skyframe/v1/loc/\(name)"] == 1, "\(name): \(seen)")
    }
    for index in 0..<5 {
      #expect(seen["skyframe/v1/frame/pin\(index)"] == 1, "pin\(index): \(seen)")
    }
    #expect(fleet.calls == 15, "upstream calls: \(fleet.calls)")
    await devices.disconnect()
    await watcher.stop()
  }

  /// The shared cache: a cell fetched by one member is answered by every member without a new
  /// call, a member started later starts warm from the retained entries, and an entry signed with
  /// another key is ignored.
  @Test func theFleetSharesOneCacheThroughTheBroker() async throws {
    let fleet = try await Fleet.start(temperature: 12.5)
    defer { Task { await fleet.stop() } }
    let file = try writeMemberConfig(
      cluster: [Self.sharedKey, "session-expiry-seconds: 1"], "weather:\n  batch-window-ms: 0\n")
    let environment = fleet.memberEnvironment
    func start(_ id: String) throws -> GatewayProcess {
      try startMember(id, config: file, environment: environment)
    }
    let watcher = try await Watcher.start(
      port: fleet.broker.port,
      topics: [
        "skyframe/v1/gateway/instances/+", "skyframe/v1/gateway/cache/+", "skyframe/v1/frame/+",
      ])
    let first = [try start("gw-a"), try start("gw-b")]
    defer { Task { for gateway in first { await gateway.kill() } } }
    for id in ["gw-a", "gw-b"] {
      _ = try await watcher.text(on: "skyframe/v1/gateway/instances/\(id)")
    }
    let devices = try await MQTTMailbox.connect(port: fleet.broker.port, id: "cache-devices")
    func ask(_ device: String, _ text: String) async throws -> WeatherFrame {
      try devices.client.publish(
        "skyframe/v1/req/\(device)", payload: Array(text.utf8), qos: 1, retain: false)
      let frame = try await watcher.mailbox.next(timeout: .seconds(15)) {
        $0.topic == "skyframe/v1/frame/\(device)"
      }
      return try WeatherFrame(decoding: frame.payload)
    }

    // One member fetches the cell and shares it, retained.
    #expect(try await ask("first", "52.52,13.41").status == .ok)
    let shared = try await watcher.mailbox.next(timeout: .seconds(10)) {
      $0.topic.hasPrefix("skyframe/v1/gateway/cache/")
    }
    #expect(shared.payload.count == 281)
    #expect(fleet.calls == 1)
    // Ten devices in that cell, answered by both members: no further call.
    for index in 0..<10 {
      let frame = try await ask("same-cell-\(index)", "52.52,13.41")
      #expect(frame.status == .ok)
      #expect(frame.current.temperature == 125)
    }
    #expect(fleet.calls == 1, "the fleet called again for a shared cell")

    // Both members go; a new one starts warm from the retained entry.
    for gateway in first { await gateway.kill() }
    // Until their sessions expire, the broker keeps routing the dead members' share to them.
    try await Task.sleep(for: .seconds(3))
    let later = try start("gw-c")
    defer { Task { await later.kill() } }
    _ = try await watcher.text(on: "skyframe/v1/gateway/instances/gw-c")
    #expect(try await ask("after-restart", "52.52,13.41").status == .ok)
    #expect(fleet.calls == 1, "a restarted member called for a cell the fleet had")

    // A forged entry (another key) for another cell is ignored: that cell is fetched.
    var forged = WeatherFrame()
    forged.current.temperature = 999
    let forger = try await MQTTMailbox.connect(port: fleet.broker.port, id: "forger")
    let wrongKey = SharedFrameCache(
      key: Array("a key that is not the fleet's key".utf8), topics: .init(), staleSeconds: 3_600)
    let cell = WeatherDesk.Cell(row: 400, column: 400)
    let entry = wrongKey.entry(
      .init(bytes: try forged.encoded(), fetchedAt: Int64(Date().timeIntervalSince1970)),
      for: cell)
    try forger.client.publish(wrongKey.topic(cell), payload: entry, qos: 1, retain: true)
    try await Task.sleep(for: .milliseconds(300))
    let answer = try await ask("forged-cell", "4.0,4.0")
    #expect(answer.current.temperature == 125)
    #expect(fleet.calls == 2)
    await forger.disconnect()
    await devices.disconnect()
    await watcher.stop()
  }

  /// config/mosquitto-acl.conf, as shipped, on a real mosquitto: a device reaches its own request
  /// and frame topics and nothing of another device's, the shared cache or the presence topics;
  /// the gateway user reaches everything, its shared subscription included.
  @Test func theACLKeepsDevicesToTheirOwnTopics() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-acl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let passwords = directory.appendingPathComponent("passwd").path
    let made = try ChildProcess(
      executable: "/usr/bin/mosquitto_passwd",
      arguments: ["-b", "-c", passwords, "skyframe-gateway", "gateway-secret"])
    _ = await made.waitForExit(upTo: .seconds(10))
    #expect(made.exitStatus == 0)
    let acl = Tool.root.appendingPathComponent("config/mosquitto-acl.conf").path
    let broker = try await MosquittoBroker.start(
      extraConfiguration: "acl_file \(acl)\npassword_file \(passwords)\nallow_anonymous true")
    defer { Task { await broker.stop() } }

    let gateway = try await MQTTMailbox.connect(
      port: broker.port, id: "gw-acl",
      subscribe: [
        "$share/fleet/skyframe/v1/req/+", "skyframe/v1/gateway/cache/+",
        "skyframe/v1/gateway/instances/+", "skyframe/v1/watch/+",
      ], username: "skyframe-gateway", password: "gateway-secret")
    let device = try await MQTTMailbox.connect(
      port: broker.port, id: "dev1",
      subscribe: [
        "skyframe/v1/frame/dev1", "skyframe/v1/frame/dev2", "skyframe/v1/gateway/cache/+",
        "skyframe/v1/req/+", "skyframe/v1/loc/+",
      ])

    // What the device may not do, then what it may: the broker keeps one client's order, so once
    // the allowed request has arrived, a refused message would have arrived before it.
    for topic in [
      "skyframe/v1/req/dev2", "skyframe/v1/watch/dev2", "skyframe/v1/gateway/cache/1_1",
      "skyframe/v1/gateway/instances/gw-forged",
    ] {
      try device.client.publish(topic, payload: Array("forged".utf8), qos: 1, retain: true)
    }
    try device.client.publish("skyframe/v1/watch/dev1", payload: Array("Oslo @900".utf8), qos: 1)
    try device.client.publish("skyframe/v1/req/dev1", payload: Array("52.5,13.4".utf8), qos: 1)
    let request = try await gateway.next(timeout: .seconds(5)) {
      $0.topic == "skyframe/v1/req/dev1"
    }
    #expect(String(decoding: request.payload, as: UTF8.self) == "52.5,13.4")
    #expect(
      try await gateway.next(timeout: .seconds(5)) { $0.topic == "skyframe/v1/watch/dev1" }
        .payload == Array("Oslo @900".utf8))
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      _ = try await gateway.next(timeout: .milliseconds(300)) {
        $0.topic != "skyframe/v1/req/dev1" && $0.topic != "skyframe/v1/watch/dev1"
      }
    }

    // The gateway answers both devices, shares a cache entry, names a place; dev1 gets its own
    // answer and the place, nothing else.
    for topic in [
      "skyframe/v1/frame/dev2", "skyframe/v1/gateway/cache/2_2", "skyframe/v1/req/dev3",
      "skyframe/v1/loc/harbour", "skyframe/v1/frame/dev1",
    ] {
      try gateway.client.publish(topic, payload: Array(topic.utf8), qos: 1)
    }
    #expect(
      try await device.next(timeout: .seconds(5)) { $0.topic == "skyframe/v1/frame/dev1" }
        .payload == Array("skyframe/v1/frame/dev1".utf8))
    #expect(
      try await device.next(timeout: .seconds(1)) { $0.topic == "skyframe/v1/loc/harbour" }
        .payload.isEmpty == false)
    await #expect(throws: MQTTMailbox.TimeoutError.self) {
      let leaked = try await device.next(timeout: .milliseconds(300))
      Issue.record("dev1 received \(leaked.topic)")
    }
    await device.disconnect()
    await gateway.disconnect()
  }

  /// Frames on `frame/{prefix}…` that `watcher` sees within `wait` (until `count` devices have
  /// one and `settle` more has passed): how many each device got.
  func frames(
    _ watcher: Watcher, _ prefix: String, count: Int, wait: Duration,
    settle: Duration = .milliseconds(1_500)
  ) async -> [String: Int] {
    var got: [String: Int] = [:]
    let deadline = ContinuousClock.now + wait
    var quietUntil: ContinuousClock.Instant?
    while ContinuousClock.now < min(deadline, quietUntil ?? deadline) {
      if let frame = try? await watcher.mailbox.next(
        timeout: .milliseconds(200),
        matching: { $0.topic.hasPrefix("skyframe/v1/frame/\(prefix)") })
      {
        got[frame.topic, default: 0] += 1
      }
      if quietUntil == nil, got.count >= count { quietUntil = ContinuousClock.now + settle }
    }
    return got
  }

  /// QoS 1 requests from `count` devices `{prefix}0…`, one each.
  func askAll(_ devices: MQTTMailbox, _ prefix: String, count: Int) throws {
    for index in 0..<count {
      try devices.client.publish(
        "skyframe/v1/req/\(prefix)\(index)", payload: Array("#\(index + 1) \(index).5,30.5".utf8),
        qos: 1, retain: false)
    }
  }

  /// kill -9 of one of two members: its last will tells the other at once, which answers every
  /// device from then on (each member's session gets every request; each answers the devices it
  /// owns among the live members). When the member comes back with the same id, what its session
  /// kept meanwhile was answered already: it is dropped, not answered twice.
  @Test func failoverIsAtOnceAndAReturningMemberAnswersNothingTwice() async throws {
    let fleet = try await Fleet.start(temperature: 7.5)
    defer { Task { await fleet.stop() } }
    let file = try writeMemberConfig(cluster: ["session-expiry-seconds: 60"])
    let environment = fleet.memberEnvironment
    let watcher = try await Watcher.start(
      port: fleet.broker.port, topics: ["skyframe/v1/gateway/instances/+", "skyframe/v1/frame/+"])
    let devices = try await MQTTMailbox.connect(port: fleet.broker.port, id: "failover-devices")
    let alive = try startMember("gw-a", config: file, environment: environment)
    var dead = try startMember("gw-b", config: file, environment: environment)
    defer { Task { await alive.kill() } }
    for id in ["gw-a", "gw-b"] {
      _ = try await watcher.text(on: "skyframe/v1/gateway/instances/\(id)")
    }
    try await Task.sleep(for: .milliseconds(1_200))
    try askAll(devices, "both", count: 10)
    let both = await frames(watcher, "both", count: 10, wait: .seconds(10))
    #expect(both.count == 10 && both.values.allSatisfy { $0 == 1 }, "\(both)")

    await dead.kill()
    _ = try await watcher.mailbox.next(timeout: .seconds(10)) {
      $0.topic == "skyframe/v1/gateway/instances/gw-b" && $0.payload.isEmpty
    }
    try askAll(devices, "inflight", count: 10)
    let inflight = await frames(watcher, "inflight", count: 10, wait: .seconds(6))
    #expect(
      inflight.count == 10 && inflight.values.allSatisfy { $0 == 1 },
      "answered by the member left, once each: \(inflight)")

    dead = try startMember("gw-b", config: file, environment: environment)
    _ = try await watcher.mailbox.next(timeout: .seconds(15)) {
      $0.topic == "skyframe/v1/gateway/instances/gw-b" && !$0.payload.isEmpty
    }
    let again = await frames(watcher, "inflight", count: 1, wait: .seconds(3))
    #expect(again.isEmpty, "answered again by the member that came back: \(again)")
    try await Task.sleep(for: .milliseconds(1_200))
    try askAll(devices, "after", count: 10)
    let after = await frames(watcher, "after", count: 10, wait: .seconds(10))
    #expect(after.count == 10 && after.values.allSatisfy { $0 == 1 }, "\(after)")
    await dead.kill()
    await devices.disconnect()
    await watcher.stop()
  }

  /// The broker restarts (stopped, its database saved). Requests devices send after it is back
  /// and before the members have reconnected wait in the members' sessions — a plain
  /// subscription, which mosquitto keeps for an offline session (for a `$share` one it stores
  /// nothing: such requests were lost) — and are answered, each once.
  @Test func aBrokerRestartLosesNoRequestAndAnswersNoneTwice() async throws {
    let fleet = try await Fleet.start(temperature: 8.5)
    defer { Task { await fleet.stop() } }
    let file = try writeMemberConfig(cluster: ["session-expiry-seconds: 60"])
    let environment = fleet.memberEnvironment
    let first = try await Watcher.start(
      port: fleet.broker.port, topics: ["skyframe/v1/gateway/instances/+"])
    let a = try startMember("gw-a", config: file, environment: environment)
    let b = try startMember("gw-b", config: file, environment: environment)
    defer {
      Task {
        await a.kill()
        await b.kill()
      }
    }
    for id in ["gw-a", "gw-b"] {
      _ = try await first.text(on: "skyframe/v1/gateway/instances/\(id)")
    }
    try await Task.sleep(for: .milliseconds(1_200))
    await first.stop()
    for round in 0..<2 {
      try await fleet.broker.restart()
      // At once, while the members are still reconnecting.
      let watcher = try await Watcher.start(
        port: fleet.broker.port, topics: ["skyframe/v1/frame/+"])
      let devices = try await MQTTMailbox.connect(
        port: fleet.broker.port, id: "restart-devices-\(round)")
      try askAll(devices, "gap\(round)-", count: 20)
      let got = await frames(watcher, "gap\(round)-", count: 20, wait: .seconds(15))
      #expect(got.count == 20, "round \(round): answered \(got.count) of 20")
      #expect(got.values.allSatisfy { $0 == 1 }, "round \(round): answered twice: \(got)")
      await devices.disconnect()
      await watcher.stop()
    }
  }

  /// Thirty devices ask for one cold cell at the same moment, through both members: the cell's
  /// owner fetches it once for the fleet, the other member waits for its shared entry. One
  /// upstream call in all.
  @Test func manyDevicesInOneCellCostOneUpstreamCallForTheFleet() async throws {
    let fleet = try await Fleet.start(temperature: 1.5)
    defer { Task { await fleet.stop() } }
    let file = try writeMemberConfig(cluster: [Self.sharedKey])
    let environment = fleet.memberEnvironment
    let watcher = try await Watcher.start(
      port: fleet.broker.port, topics: ["skyframe/v1/gateway/state", "skyframe/v1/frame/+"])
    var gateways: [GatewayProcess] = []
    for id in ["gw-a", "gw-b"] {
      gateways.append(try startMember(id, config: file, environment: environment))
    }
    let running = gateways
    defer { Task { for gateway in running { await gateway.kill() } } }
    try await watcher.awaitText(
      #"{"state":"online","instances":["gw-a","gw-b"]}"#, on: "skyframe/v1/gateway/state")

    let devices = try await MQTTMailbox.connect(port: fleet.broker.port, id: "one-cell-devices")
    for index in 0..<30 {
      try devices.client.publish(
        "skyframe/v1/req/cell-\(index)", payload: Array("33.331,44.441".utf8), qos: 1,
        retain: false)
    }
    for _ in 0..<30 {
      let frame = try await watcher.mailbox.next(timeout: .seconds(15)) {
        $0.topic.hasPrefix("skyframe/v1/frame/cell-")
      }
      #expect(try WeatherFrame(decoding: frame.payload).status == .ok)
    }
    #expect(fleet.calls == 1, "upstream calls: \(fleet.calls)")
    await devices.disconnect()
    await watcher.stop()
  }

  @Test func aClusterNeedsMQTT5AndValidIds() async throws {
    let file = try write(
      """
      mqtt:
        protocol: "3.1.1"
      cluster:
        group: "fleet/one"
        instance-id: "this-id-is-longer-than-23"
      """)
    let result = try await Tool.run(["config", "check", "--config", file.path])
    #expect(result.status == 1)
    #expect(result.stderr.contains("cluster.group"), "\(result.stderr)")
    #expect(result.stderr.contains("cluster.instance-id"))
    #expect(result.stderr.contains("mqtt.protocol"))
    let fine = try write("cluster:\n  group: fleet\n")
    let checked = try await Tool.run(["config", "check", "--config", fine.path])
    #expect(checked.status == 0, "\(checked.stderr)")
    #expect(checked.stdout.contains("group: \"fleet\""))
    #expect(checked.stdout.contains("instance-id: \"fleet-"))
  }
}

extension Watcher {
  /// Waits until a message on `topic` reads `text`, skipping the ones before it.
  func awaitText(_ text: String, on topic: String, timeout: Duration = .seconds(15)) async throws {
    let deadline = ContinuousClock.now + timeout
    var seen: [String] = []
    while ContinuousClock.now < deadline {
      guard
        let message = try? await mailbox.next(
          timeout: .milliseconds(200),
          matching: {
            $0.topic == topic
          })
      else { continue }
      let got = String(decoding: message.payload, as: UTF8.self)
      if got == text { return }
      seen.append(got)
    }
    Issue.record("never got \(text) on \(topic); got \(seen)")
  }
}
