import Foundation
import Logging
import SkyframeAssembly
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeProviders
import SkyframeTestSupport
import Testing

/// The runtime around the request path: answer QoS, the bounded queue, the new-cell limit, the
/// stats message and the metrics endpoint, with a real broker and a stand-in service.
@Suite(.serialized) struct RuntimeTests {
  @Test func answersGoOutAtTheRequestsQoS() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    // The device subscribes at QoS 1, so what arrives shows the QoS the gateway published at.
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 52.52,13.41", qos: 1)
    let first = try await device.next { $0.topic.hasPrefix("skyframe/v1/frame/") }
    #expect(first.qos == 1)
    try device.ask("#2 52.52,13.41", qos: 0)  // a cache hit, answered on arrival
    let second = try await device.next { $0.topic.hasPrefix("skyframe/v1/frame/") }
    #expect(second.qos == 0)
    #expect(try WeatherFrame(decoding: second.payload).requestID == 2)
  }

  @Test func requestsSharedOverSeveralConnectionsAreEachAnsweredOnce() async throws {
    let harness = try await GatewayHarness.make { $0.mqtt.requestConnections = 3 }
    defer { Task { await harness.shutdown() } }
    try await harness.start(logLevel: .info)
    // The two more connections connect side by side, in either order.
    func bothConnected() -> Bool {
      (1...2).allSatisfy { lane in
        harness.logs.all.contains { $0.contains("request connection \(lane) connected") }
      }
    }
    for _ in 0..<250 where !bothConnected() {
      try await Task.sleep(for: .milliseconds(20))
    }
    for lane in 1...2 {
      #expect(harness.logs.all.contains { $0.contains("request connection \(lane) connected") })
    }
    let warm = try await Device.frames(port: harness.broker.port)
    try warm.ask("52.52,13.41")
    #expect(try await warm.frames(1)[0].status == .ok)

    // Forty devices asking at once: the broker deals the requests out among the three
    // connections; every one is answered exactly once (a plain subscription on each connection
    // would answer each three times).
    let watcher = try await Device.connect(
      port: harness.broker.port, id: "watch-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["skyframe/v1/frame/+"])
    for index in 0..<40 {
      try watcher.client.publish(
        "skyframe/v1/req/shared-\(index)", payload: Array("#\(index) 52.52,13.41".utf8), qos: 1)
    }
    var answered: [String: Int] = [:]
    while answered.values.reduce(0, +) < 40 {
      let frame = try await watcher.next { $0.topic.hasPrefix("skyframe/v1/frame/shared-") }
      answered[frame.topic, default: 0] += 1
      #expect(try WeatherFrame(decoding: frame.payload).status == .ok)
    }
    #expect(answered.count == 40)
    #expect(answered.values.allSatisfy { $0 == 1 })
    let more = try? await watcher.next(timeout: .milliseconds(500)) {
      $0.topic.hasPrefix("skyframe/v1/frame/shared-")
    }
    #expect(more == nil)
  }

  @Test func theRequestFilterIsSharedWithSeveralConnectionsAndTheOtherFormIsDropped() async throws {
    var configuration = GatewayConfiguration()
    configuration.mqtt.clientID = "gw-a"
    #expect(configuration.requestFilter == "skyframe/v1/req/+")
    configuration.mqtt.requestConnections = 4
    #expect(configuration.requestFilter == "$share/gw-a/skyframe/v1/req/+")
    #expect(configuration.otherRequestFilters == ["skyframe/v1/req/+"])
    #expect(
      configuration.requestLaneConfigurations.map(\.clientID) == ["gw-a-r1", "gw-a-r2", "gw-a-r3"])
    #expect(
      configuration.requestLaneConfigurations.allSatisfy { $0.cleanSession && $0.will == nil })

    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-\(UUID().uuidString).yaml")
    try "mqtt:\n  protocol: \"3.1.1\"\n  request-connections: 2\n".write(
      to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    await #expect {
      _ = try await GatewayConfiguration.load(
        path: file.path, environment: [:], parts: PartKind.all)
    } throws: { error in
      "\(error)".contains("mqtt.request-connections") && "\(error)".contains("MQTT 5")
    }
  }

  @Test func answerQoSCanBeFixedByConfiguration() async throws {
    let harness = try await GatewayHarness.make { $0.topics.answerQoS = .one }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("52.52,13.41", qos: 0)
    #expect(try await device.next { $0.topic.hasPrefix("skyframe/v1/frame/") }.qos == 1)
  }

  @Test func aFullQueueIsAnsweredRateLimitedAtOnceWithoutAnUpstreamCall() async throws {
    let harness = try await GatewayHarness.make {
      $0.requests.workers = 1
      $0.requests.queueLimit = 1
      $0.weather.batchWindowMilliseconds = 0
      // The slow service (1.5 s a call) well inside the deadline and the timeout, however
      // loaded the machine: #1 and #2 are answered ok; only the full queue is under test.
      $0.requests.deadlineMilliseconds = 60_000
      $0.services[OpenMeteoService.self].timeoutSeconds = 60
    }
    defer { Task { await harness.shutdown() } }
    harness.set(.slow(.milliseconds(1_500)))
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 10.5,10.5")  // taken by the one worker, which waits for the service
    // The worker's call has reached the service: #1 is out of the queue.
    for _ in 0..<3_000 where harness.forecastCalls == 0 {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(harness.forecastCalls == 1)
    try device.ask("#2 11.5,11.5")  // waits in the queue
    try device.ask("#3 12.5,12.5")  // finds it full
    let frames = try await device.frames(3)
    #expect(frames.map(\.requestID) == [3, 1, 2])
    #expect(frames[0].status == .rateLimited)
    #expect(frames[0].name.string == "gateway busy")
    #expect(frames[1].status == .ok)
    #expect(frames[2].status == .ok)
    #expect(harness.forecastCalls == 2)
  }

  @Test func newCellsFromOneDeviceAreLimitedAndCachedCellsAreNot() async throws {
    let harness = try await GatewayHarness.make {
      $0.upstream.newCellsPerDevicePerMinute = 2
      $0.weather.batchWindowMilliseconds = 0
    }
    defer { Task { await harness.shutdown() } }
    try await ServiceTests.startEarlyInAMinute()
    try await harness.start()
    let greedy = try await Device.frames(port: harness.broker.port)
    let places = ["1.5,1.5", "2.5,2.5", "3.5,3.5", "4.5,4.5"]
    try greedy.ask(places.joined(separator: ";"))
    let frames = try await greedy.frames(4)
    // The places are resolved at once: which two take the allowance is not fixed.
    #expect(frames.filter { $0.status == .ok }.count == 2)
    #expect(frames.filter { $0.status == .rateLimited }.count == 2)
    #expect(harness.forecastCalls == 2)
    let cached = try #require(frames.firstIndex { $0.status == .ok })
    let refused = try #require(frames.firstIndex { $0.status == .rateLimited })
    // A cell already cached costs nothing, so it is never refused.
    try greedy.ask(places[cached])
    #expect(try await greedy.frames(1).first?.status == .ok)
    // One new place past the allowance: refused as the worker would, with no call.
    try greedy.ask("#7 5.5,5.5")
    let early = try #require(try await greedy.frames(1).first)
    #expect(early.status == .rateLimited)
    #expect(early.requestID == 7)
    #expect(early.name.string == "5.5,5.5" || early.name.string.hasPrefix("5.5"))
    #expect(harness.forecastCalls == 2)
    // Another device still has its own allowance.
    let other = try await Device.frames(port: harness.broker.port)
    try other.ask(places[refused])
    #expect(try await other.frames(1).first?.status == .ok)
  }

  /// The status document is there as soon as the gateway is connected, not a stats interval
  /// (a minute by default) later: `mosquitto_sub -C 1 -t skyframe/v1/gateway/stats` after a start
  /// is answered at once.
  @Test func theStatsMessageIsPublishedAtTheConnect() async throws {
    let harness = try await GatewayHarness.make { $0.metrics.statsSeconds = 3_600 }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let watcher = try await Device.connect(
      port: harness.broker.port, id: "stats-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["skyframe/v1/gateway/stats"])
    let stats = try await watcher.next(timeout: .seconds(5))
    #expect(stats.retain)
    let document = try JSONSerialization.jsonObject(with: Data(stats.payload)) as? [String: Any]
    #expect((document?["broker"] as? [String: Any])?["connected"] as? Bool == true)
  }

  @Test func theStatsMessageSummarizesTheGatewayRetained() async throws {
    let harness = try await GatewayHarness.make { $0.metrics.statsSeconds = 1 }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("52.52,13.41")
    _ = try await device.frames(1)
    let watcher = try await Device.connect(
      port: harness.broker.port, id: "stats-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["skyframe/v1/gateway/stats"])
    let stats = try await watcher.next(timeout: .seconds(5)) {
      String(decoding: $0.payload, as: UTF8.self).contains(#""ok":1"#)
    }
    let document = try JSONSerialization.jsonObject(with: Data(stats.payload)) as? [String: Any]
    #expect((document?["broker"] as? [String: Any])?["connected"] as? Bool == true)
    #expect((document?["answers"] as? [String: Int])?["ok"] == 1)
    // The forecast and the air quality for the cell.
    #expect((document?["upstream"] as? [String: Int])?["calls"] == 2)
    #expect((document?["queue"] as? [String: Int])?["limit"] == 1_024)
    let services = document?["services"] as? [[String: Any]]
    #expect(services?.first?["name"] as? String == "open-meteo")
    #expect(services?.first?["last_success"] is Int)
    #expect(services?.last?["name"] as? String == "open-meteo-air-quality")
  }

  @Test func theInfoMessageCreditsEachServiceInUseRetained() async throws {
    let harness = try await GatewayHarness.make {
      $0.weather.service = WeatherAPIService.name
      $0.weather.fallback = [OpenMeteoService.name]
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let display = try await Device.connect(
      port: harness.broker.port, id: "info-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["skyframe/v1/gateway/info"])
    let info = try await display.next()
    #expect(info.retain)
    let document = try JSONSerialization.jsonObject(with: Data(info.payload)) as? [String: Any]
    #expect(document?["frame_version"] as? String == "1.1")
    // The one version string: the same one `skyframe --version` prints.
    #expect(document?["version"] as? String == SkyframeVersion.current)
    let services = (document?["services"] as? [[String: Any]]) ?? []
    #expect(
      services.map { $0["name"] as? String } == [
        "weatherapi", "open-meteo", "open-meteo-air-quality",
      ])
    #expect(services.map { $0["role"] as? String } == ["weather", "fallback", "air-quality"])
    #expect(services[1]["attribution"] as? String == "Weather data by Open-Meteo.com")
    #expect(services[1]["license"] as? String == "CC BY 4.0")
  }

  @Test func metricsAndHealthAreServedOverHTTP() async throws {
    let port = try MosquittoBroker.freeLoopbackPort()
    let harness = try await GatewayHarness.make { $0.metrics.port = port }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("52.52,13.41;Atlantis")
    _ = try await device.frames(2)
    let metrics = try await MosquittoBroker.httpGet(port: port, path: "/metrics")
    #expect(metrics.status == 200)
    for line in [
      #"skyframe_requests_total{status="ok"} 1"#,
      #"skyframe_requests_total{status="not_found"} 1"#,
      #"skyframe_cache_lookups_total{result="miss"} 1"#,
      #"skyframe_upstream_calls_total{service="open-meteo",result="ok"} 2"#,
      #"skyframe_budget_remaining{service="open-meteo",window="minute"}"#,
      "skyframe_queue_depth 0", "skyframe_broker_connected 1",
      "skyframe_request_duration_seconds_count 1",
      "skyframe_upstream_duration_seconds_count{service=\"open-meteo\"} 2",
      #"skyframe_cache_entries{table="frames"} 1"#,
    ] {
      #expect(metrics.body.contains(line), "missing: \(line)")
    }
    let health = try await MosquittoBroker.httpGet(port: port, path: "/health")
    #expect(health.status == 200)
    #expect(health.body.contains(#""healthy":true"#))
    #expect(try await MosquittoBroker.httpGet(port: port, path: "/nothing").status == 404)
  }
}

/// Time comes from one injected clock: a test advances it instead of sleeping.
@Suite(.serialized) struct ClockTests {
  @Test func namedPlacesAreRefreshedWhenTheGatewayClockSaysSo() async throws {
    let manual = ManualClock()
    let start: Int64 = 1_800_000_000
    let harness = try await GatewayHarness.make(
      clock: GatewayClock(manual, unixTimeAtStart: start)
    ) {
      $0.locations = [
        .init(
          name: "home", place: .coordinates(latitude: 52.52, longitude: 13.405),
          refreshSeconds: 120)
      ]
      $0.cache.ttlSeconds = 60
      // The batch window sleeps on the gateway clock too; without one, fetches start at once.
      $0.weather.batchWindowMilliseconds = 0
    }
    defer { Task { await harness.shutdown() } }
    let display = try await Device.connect(
      port: harness.broker.port, id: "epaper-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["skyframe/v1/loc/home"])
    try await harness.start()
    let first = try WeatherFrame(decoding: try await display.next().payload)
    #expect(first.fetchedAt == UInt32(start))
    #expect(harness.forecastCalls == 1)

    // Ten seconds on: the cached frame is fresh, so whatever is published (the connect may have
    // made the place due again) comes from the cache.
    manual.advance(by: .seconds(10))
    while let again = try? await display.next(timeout: .milliseconds(500)) {
      #expect(try WeatherFrame(decoding: again.payload).fetchedAt == UInt32(start))
    }
    #expect(harness.forecastCalls == 1)

    // Past the interval and the TTL: fetched again, stamped with the clock's time.
    manual.advance(by: .seconds(200))
    let second = try WeatherFrame(decoding: try await display.next().payload)
    #expect(second.fetchedAt == UInt32(start + 210))
    #expect(harness.forecastCalls == 2)
  }
}
