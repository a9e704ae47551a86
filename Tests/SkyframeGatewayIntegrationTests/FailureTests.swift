import Foundation
import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Synchronization
import Testing

/// A weather service that fails, refuses or stalls, with a real mosquitto and a local HTTP
/// server: the gateway backs off instead of calling once per request, answers at once from what
/// it has, and says what is going on in its metrics and logs.
@Suite(.serialized) struct FailureTests {
  static let start: Int64 = 1_800_000_000

  /// A harness on a clock the test advances, so back-off and pauses are exact.
  static func manualHarness(
    _ adjust: @escaping (inout GatewayConfiguration) -> Void = { _ in }
  ) async throws -> (GatewayHarness, ManualClock) {
    let manual = ManualClock()
    let harness = try await GatewayHarness.make(
      clock: GatewayClock(manual, unixTimeAtStart: start)
    ) {
      $0.upstream.breakerFailures = 2
      $0.upstream.backoffInitialSeconds = 4
      $0.upstream.backoffMaximumSeconds = 60
      $0.upstream.rateLimitedPauseSeconds = 60
      $0.weather.batchWindowMilliseconds = 0
      // The stand-in answers at once, but its answer is a task that may wait seconds for a thread
      // on a busy machine: no test here waits out this timeout, so it is far beyond that.
      $0.services[OpenMeteoService.self].timeoutSeconds = 30
      // Requests here repeat one failing cell: no device limits in the way.
      $0.requests.perDevicePerMinute = 0
      $0.upstream.newCellsPerDevicePerMinute = 0
      adjust(&$0)
    }
    return (harness, manual)
  }

  /// A manual-clock harness with a 60 s timeout and TTL, a device, and the frame for 52.52,13.41
  /// fetched at the start (so the cell has something to serve stale).
  static func primedHarness(deadlineMilliseconds: Int) async throws -> (
    GatewayHarness, ManualClock, Device, WeatherFrame
  ) {
    let (harness, clock) = try await manualHarness {
      $0.services[OpenMeteoService.self].timeoutSeconds = 60
      $0.requests.deadlineMilliseconds = deadlineMilliseconds
      $0.cache.ttlSeconds = 60
    }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("52.52,13.41")
    let fresh = try #require(try await device.frames(1).first)
    #expect(fresh.status == .ok)
    return (harness, clock, device, fresh)
  }

  static let failures: [(String, GatewayHarness.Mode)] = [
    ("HTTP 500", .status(500, #"{"error":true,"reason":"Internal error"}"#)),
    ("malformed JSON", .garbage),
    ("dropped connection", .drop),
  ]

  @Test(arguments: failures)
  func aFailingServiceIsCalledWithBackOffNotOncePerRequest(
    _ name: String, _ mode: GatewayHarness.Mode
  ) async throws {
    let (harness, clock) = try await Self.manualHarness()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    harness.set(mode)
    let device = try await Device.frames(port: harness.broker.port)
    // Twenty requests for one cell: two calls fail, the breaker opens, the rest get no call.
    for id in 0..<20 {
      try device.ask("#\(id) 52.52,13.41")
      let frame = try #require(try await device.frames(1).first)
      #expect(frame.status == .upstreamUnavailable, "\(name), request \(id)")
      #expect(frame.requestID == UInt16(id))
    }
    #expect(harness.forecastCalls == 2, "\(name)")

    // The pause is 2-4 s (half of the 4 s back-off is jitter): after 4 s one probe goes out.
    clock.advance(by: .seconds(4))
    for id in 20..<25 {
      try device.ask("#\(id) 52.52,13.41")
      #expect(try await device.frames(1).first?.status == .upstreamUnavailable)
    }
    #expect(harness.forecastCalls == 3, "\(name): one probe")

    // The probe failed: the next pause is 4-8 s. At 4 s nothing, by 8 s a probe that succeeds.
    clock.advance(by: .milliseconds(3_900))
    try device.ask("#30 52.52,13.41")
    #expect(try await device.frames(1).first?.status == .upstreamUnavailable)
    #expect(harness.forecastCalls == 3)
    harness.set(.normal)
    clock.advance(by: .seconds(5))
    try device.ask("#31 52.52,13.41")
    #expect(try await device.frames(1).first?.status == .ok)
    // Closed again: the next cell is fetched at once.
    try device.ask("#32 48.85,2.35")
    #expect(try await device.frames(1).first?.status == .ok)
  }

  @Test func a429StopsCallsUntilTheTimeInRetryAfter() async throws {
    let (harness, clock) = try await Self.manualHarness()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    harness.set(
      .response(
        StubHTTPResponse(
          status: 429,
          body: Array(#"{"error":true,"reason":"Minutely API request limit exceeded"}"#.utf8),
          headers: [("Content-Type", "application/json"), ("Retry-After", "120")])))
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 52.52,13.41")
    let first = try #require(try await device.frames(1).first)
    #expect(first.status == .rateLimited)
    #expect(first.nextUpdateSeconds == 120)
    // While paused, devices are told why and when: rate_limited, ask again when the pause ends.
    for id in 2..<12 {
      try device.ask("#\(id) 52.52,13.41")
      let frame = try #require(try await device.frames(1).first)
      #expect(frame.status == .rateLimited)
      #expect(frame.nextUpdateSeconds == 120)
    }
    #expect(harness.forecastCalls == 1)
    // Exactly the time the service named: not a call before it.
    clock.advance(by: .seconds(119))
    try device.ask("#20 52.52,13.41")
    let late = try #require(try await device.frames(1).first)
    #expect(late.status == .rateLimited)
    #expect(late.nextUpdateSeconds == 1)
    #expect(harness.forecastCalls == 1)
    harness.set(.normal)
    clock.advance(by: .seconds(1))
    try device.ask("#21 52.52,13.41")
    #expect(try await device.frames(1).first?.status == .ok)
    #expect(harness.forecastCalls == 2)
  }

  /// A refused key is the gateway's configuration, not an outage: internal_error on the call that
  /// was refused and while the service is paused after it.
  @Test func aRefusedKeyStaysInternalErrorWhilePaused() async throws {
    let (harness, _) = try await Self.manualHarness()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    harness.set(.status(401, #"{"error":true,"reason":"Invalid API key"}"#))
    let device = try await Device.frames(port: harness.broker.port)
    for id in 0..<6 {
      try device.ask("#\(id) 52.52,13.41")
      #expect(try await device.frames(1).first?.status == .internalError, "request \(id)")
    }
    #expect(harness.forecastCalls == 2)
  }

  /// OpenWeatherMap's 429 on the first call for a new position, its reverse geocoding: the
  /// weather call after it finds the service paused, and the device is told rate_limited.
  @Test func a429OnReverseGeocodingIsRateLimitedForTheDevice() async throws {
    let manual = ManualClock()
    let harness = try await GatewayHarness.make(
      service: .openWeatherMap, clock: GatewayClock(manual, unixTimeAtStart: Self.start)
    ) {
      $0.places.reverseGeocoding = .auto
      $0.upstream.rateLimitedPauseSeconds = 90
      $0.weather.batchWindowMilliseconds = 0
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let clock = harness.clock
    harness.set(
      .answer { request in
        guard request.path == "/geo/1.0/reverse" else {
          return ServiceFixtures.answer(
            request, places: GatewayHarness.places, temperature: 9, now: Int(clock.unixTime()))
        }
        return .json(#"{"cod":429,"message":"Your account is temporary blocked"}"#, status: 429)
      })
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 59.9,10.7")
    let frame = try #require(try await device.frames(1).first)
    #expect(frame.status == .rateLimited)
    #expect(frame.nextUpdateSeconds == 90)
    #expect(harness.forecastCalls == 0)
  }

  /// WeatherAPI.com's spent monthly quota (error 2007 with HTTP 403) is rate_limited, also while
  /// the service is paused after it.
  @Test func aSpentQuotaIsRateLimitedWhilePaused() async throws {
    let manual = ManualClock()
    let harness = try await GatewayHarness.make(
      service: .weatherAPI, clock: GatewayClock(manual, unixTimeAtStart: Self.start)
    ) {
      $0.weather.batchWindowMilliseconds = 0
      $0.requests.perDevicePerMinute = 0
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    harness.set(
      .status(
        403, #"{"error":{"code":2007,"message":"API key has exceeded calls per month quota."}}"#))
    let device = try await Device.frames(port: harness.broker.port)
    for id in 0..<4 {
      try device.ask("#\(id) 52.52,13.41")
      #expect(try await device.frames(1).first?.status == .rateLimited, "request \(id)")
    }
    #expect(harness.calls(to: .weatherAPI) == 1)
  }

  @Test func whileTheBreakerIsOpenTheNextServiceAnswers() async throws {
    let (harness, _) = try await Self.manualHarness {
      $0.weather.service = OpenMeteoService.name
      $0.weather.fallback = [WeatherAPIService.name]
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    harness.set(.status(503, "Service Unavailable"), only: .openMeteo)
    let device = try await Device.frames(port: harness.broker.port)
    for id in 0..<6 {
      try device.ask("#\(id) \(40 + id).5,10.5")
      #expect(try await device.frames(1).first?.status == .ok)
    }
    // Open-Meteo was tried twice; the other four went straight to WeatherAPI.
    #expect(harness.calls(to: .openMeteo) == 2)
    #expect(harness.calls(to: .weatherAPI) == 6)
  }

  @Test func aRefusedConnectionIsAnsweredStaleAtOnceNotAfterTheTimeout() async throws {
    let (harness, clock, device, fresh) = try await Self.primedHarness(deadlineMilliseconds: 0)
    defer { Task { await harness.shutdown() } }
    // Nothing listens on the service's port any more: every connection is refused.
    try await harness.http.stop()
    clock.advance(by: .seconds(61))
    try device.ask("#7 52.52,13.41")
    // Well inside the 60 s timeout.
    let stale = try #require(try await device.frames(1, timeout: .seconds(30)).first)
    #expect(stale.status == .stale)
    #expect(stale.requestID == 7)
    #expect(stale.fetchedAt == fresh.fetchedAt)
  }

  @Test func aSlowFetchIsAnsweredStaleAtTheDeadlineAndFinishesForTheNextAsker() async throws {
    let (harness, clock, device, fresh) = try await Self.primedHarness(deadlineMilliseconds: 200)
    defer { Task { await harness.shutdown() } }

    harness.set(.held)
    harness.service.temperature.withLock { $0 = 21.5 }
    clock.advance(by: .seconds(61))
    try device.ask("#2 52.52,13.41")
    // The deadline is on the gateway clock: nothing comes until the test moves it past 200 ms.
    #expect(try await device.expectSilence(for: .milliseconds(400)))
    clock.advance(by: .milliseconds(200))
    // The service has not answered (it answers when released): this is the deadline's doing.
    let stale = try #require(try await device.frames(1).first)
    #expect(stale.status == .stale)
    #expect(stale.fetchedAt == fresh.fetchedAt)

    // The fetch was not abandoned: once the service answers, the next asker gets its result
    // from the cache, with no new call.
    harness.set(.normal)
    harness.release()
    var refreshed: WeatherFrame?
    for attempt in 3..<50 {
      try device.ask("#\(attempt) 52.52,13.41")
      let frame = try #require(try await device.frames(1).first)
      if frame.status == .ok {
        refreshed = frame
        break
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    let frame = try #require(refreshed)
    #expect(frame.current.temperature == 215)
    #expect(frame.fetchedAt == UInt32(Self.start + 61))
    #expect(harness.forecastCalls == 2)
  }

  @Test func framesSayWhenNewerDataIsExpectedAndCarryTheMoon() async throws {
    let (harness, clock) = try await Self.manualHarness {
      $0.cache.ttlSeconds = 600
      $0.requests.perDevicePerMinute = 3
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("52.52,13.41")
    let fresh = try #require(try await device.frames(1).first)
    #expect(fresh.status == .ok)
    #expect(fresh.nextUpdateSeconds == 600)
    #expect(fresh.moon == Moon.phase(onLocalDay: Int(fresh.dailyStart!), utcOffsetSeconds: 3_600))
    // A cache hit 100 s later: the hint counts down with it.
    clock.advance(by: .seconds(100))
    try device.ask("52.52,13.41")
    #expect(try await device.frames(1).first?.nextUpdateSeconds == 500)
    // Over the device's limit (3 a minute; this minute began at start + 60 s): ask again when the
    // minute turns, 20 s from now.
    for _ in 0..<3 { try device.ask("52.52,13.41") }
    let limited = try await device.frames(3)
    #expect(limited[2].status == .rateLimited)
    #expect(limited[2].nextUpdateSeconds == 20)
    // Stale: a minute.
    harness.set(.status(500, "oops"))
    clock.advance(by: .seconds(600))
    try device.ask("52.52,13.41")
    let stale = try #require(try await device.frames(1).first)
    #expect(stale.status == .stale)
    #expect(stale.nextUpdateSeconds == 60)
  }

  @Test func airQualityComesFromItsOwnAPIOncePerCellAndTTL() async throws {
    let (harness, clock) = try await Self.manualHarness {
      $0.cache.ttlSeconds = 600
      $0.airQuality.ttlSeconds = 3_600
      $0.airQuality.scale = .usAQI
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("52.52,13.41")
    let first = try #require(try await device.frames(1).first)
    // The stand-in's US AQI is the rounded longitude of the cell's centre.
    #expect(first.airQuality == AirQuality(index: 13, scale: .usAQI))
    #expect(harness.airQualityCalls == 1)
    // The forecast expires after 600 s and is fetched again; the air quality is not.
    clock.advance(by: .seconds(601))
    try device.ask("52.52,13.41")
    let second = try #require(try await device.frames(1).first)
    #expect(second.fetchedAt == first.fetchedAt! + 601)
    #expect(second.airQuality == first.airQuality)
    #expect(harness.forecastCalls == 2)
    #expect(harness.airQualityCalls == 1)
    // Past its own TTL it is asked again.
    clock.advance(by: .seconds(3_600))
    try device.ask("52.52,13.41")
    #expect(try await device.frames(1).first?.airQuality == AirQuality(index: 13, scale: .usAQI))
    #expect(harness.airQualityCalls == 2)
  }

  @Test func breakerAndRefusedResponseTopicsShowInMetricsAndHealth() async throws {
    let port = try MosquittoBroker.freeLoopbackPort()
    let (harness, _) = try await Self.manualHarness { $0.metrics.port = port }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    harness.set(.status(500, "oops"))
    let device = try await Device.frames(port: harness.broker.port, id: "mallory")
    for id in 0..<3 {
      try device.ask("#\(id) 52.52,13.41")
      _ = try await device.frames(1)
    }
    try device.client.publish(
      "skyframe/v1/req/mallory", payload: Array("52.52,13.41".utf8), qos: 1,
      responseTopic: "skyframe/v1/frame/victim")
    #expect(try await device.frames(1).first?.status == .badRequest)

    let metrics = try await MosquittoBroker.httpGet(port: port, path: "/metrics").body
    for line in [
      #"skyframe_upstream_breaker_state{service="open-meteo"} 1"#,
      #"skyframe_upstream_breaker_openings_total{service="open-meteo"} 1"#,
      #"skyframe_upstream_consecutive_failures{service="open-meteo"} 2"#,
      #"skyframe_upstream_calls_total{service="open-meteo",result="unavailable"} 2"#,
      #"skyframe_upstream_calls_total{service="open-meteo",result="paused"} 1"#,
      "skyframe_response_topics_refused_total 1",
    ] {
      #expect(metrics.contains(line), "missing: \(line)")
    }
    let health = try await MosquittoBroker.httpGet(port: port, path: "/health").body
    #expect(health.contains(#""breaker":"open""#))
    #expect(health.contains(#""response_topics_refused":1"#))
    #expect(
      health.contains(#""breaker_open_until":\#(Self.start + 2)"#)
        || health.contains(#""breaker_open_until":\#(Self.start + 3)"#)
        || health.contains(#""breaker_open_until":\#(Self.start + 4)"#))
  }

  @Test func aFloodOfRefusedRequestsLeavesOneShortLogLine() async throws {
    try await ServiceTests.startEarlyInAMinute()
    let port = try MosquittoBroker.freeLoopbackPort()
    let harness = try await GatewayHarness.make { $0.metrics.port = port }
    defer { Task { await harness.shutdown() } }
    try await harness.start(logLevel: .info)
    let device = try await Device.frames(port: harness.broker.port, id: "mallory")
    let topic = "skyframe/v1/resp/victim/" + String(repeating: "x", count: 60_000)
    for id in 0..<200 {
      try device.client.publish(
        "skyframe/v1/req/mallory", payload: Array("#\(id) 52.52,13.41".utf8), qos: 1,
        responseTopic: topic)
    }
    // The first 30 are answered bad_request: the refusals count against the device's 30 requests
    // a minute. The 31st is answered rate_limited, and the other 169 not at all.
    let frames = try await device.frames(31, timeout: .seconds(30))
    #expect(frames.filter { $0.status == .badRequest }.count == 30)
    #expect(frames.filter { $0.status == .rateLimited }.map(\.requestID) == [30])
    let unanswered = #"skyframe_requests_unanswered_total{reason="over-limit"} 169"#
    for _ in 0..<300 {
      if try await MosquittoBroker.httpGet(port: port, path: "/metrics").body.contains(unanswered) {
        break
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    #expect(
      try await MosquittoBroker.httpGet(port: port, path: "/metrics").body.contains(unanswered))
    #expect(
      try await MosquittoBroker.httpGet(port: port, path: "/health").body.contains(
        #""unanswered_over_limit":169"#))
    await #expect(throws: (any Error).self) { try await device.frames(1, timeout: .seconds(1)) }
    let lines = harness.logs.all.filter { $0.contains("mallory") }
    // One line a minute for the device.
    #expect(lines.count == 1, "\(lines.map { $0.prefix(120) })")
    #expect(lines.allSatisfy { $0.utf8.count < 512 })
  }

}
