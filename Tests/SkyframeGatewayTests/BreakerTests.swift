import Foundation
import SkyframeAssembly
import SkyframeCodec
import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Synchronization
import Testing

@testable import SkyframeGateway

/// The circuit breaker, the device log limiter and the configuration's key check on their own.
struct BreakerTests {
  let manual = ManualClock()
  var clock: GatewayClock { GatewayClock(manual, unixTimeAtStart: 1_800_000_000) }

  func breaker(jitter: Double = 1.0) -> CircuitBreaker {
    CircuitBreaker(
      service: "open-meteo",
      policy: .init(
        failures: 2, initial: .seconds(2), maximum: .seconds(10), rateLimitPause: .seconds(60)),
      clock: clock, random: { _ in jitter })
  }

  @Test func opensAfterFailuresInARowAndSendsOneProbeWhenThePauseIsOver() {
    let breaker = breaker()
    #expect(breaker.permission() == .call)
    #expect(breaker.failed(.unavailable("HTTP 500")) == nil)
    #expect(breaker.permission() == .call)
    #expect(
      breaker.failed(.malformed("not JSON"))
        == .opened(for: .seconds(2), reason: "malformed response: not JSON"))
    #expect(breaker.permission() == .refused(remaining: .seconds(2)))
    manual.advance(by: .milliseconds(1_999))
    #expect(breaker.permission() == .refused(remaining: .milliseconds(1)))
    manual.advance(by: .milliseconds(1))
    #expect(breaker.permission() == .probe)
    // While the probe is out, everyone else is refused.
    #expect(breaker.permission() == .refused(remaining: .zero))
    #expect(breaker.current.position == .probing)
    #expect(breaker.succeeded() == .closed)
    #expect(breaker.permission() == .call)
    #expect(breaker.current == CircuitBreaker.State())
  }

  @Test func theBackOffDoublesUpToItsCapAndHalfOfItIsJitter() {
    let breaker = breaker()
    _ = breaker.failed(.unavailable("refused"))
    var pauses: [Duration] = []
    for _ in 0..<5 {
      guard case .opened(let pause, _)? = breaker.failed(.unavailable("refused")) else {
        Issue.record("did not open")
        return
      }
      pauses.append(pause)
      manual.advance(by: pause)
      #expect(breaker.permission() == .probe)
    }
    #expect(pauses == [.seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)])

    let lowest = self.breaker(jitter: 0.5)
    _ = lowest.failed(.unavailable("refused"))
    #expect(
      lowest.failed(.unavailable("refused"))
        == .opened(for: .seconds(1), reason: "unavailable: refused"))
  }

  @Test func a429PausesForItsRetryAfterOrTheDefaultPause() {
    let named = breaker()
    #expect(
      named.failed(.rateLimited("slow down", retryAfterSeconds: 120))
        == .opened(for: .seconds(120), reason: "rate limited: slow down (retry after 120 s)"))
    let unnamed = breaker()
    guard case .opened(let pause, _)? = unnamed.failed(.rateLimited("slow down")) else {
      Issue.record("a 429 did not open the breaker")
      return
    }
    #expect(pause == .seconds(60))
  }

  @Test func aCallAlreadyOutWhenTheBreakerOpenedDoesNotExtendThePause() {
    let breaker = breaker()
    _ = breaker.failed(.unavailable("1"))
    _ = breaker.failed(.unavailable("2"))
    #expect(breaker.failed(.unavailable("late")) == nil)
    #expect(breaker.permission() == .refused(remaining: .seconds(2)))
  }

  @Test func anAbandonedProbeLetsTheNextCallerProbe() {
    let breaker = breaker()
    _ = breaker.failed(.unavailable("1"))
    _ = breaker.failed(.unavailable("2"))
    manual.advance(by: .seconds(2))
    #expect(breaker.permission() == .probe)
    breaker.abandonProbe()
    #expect(breaker.permission() == .probe)
  }

  @Test func deviceLinesAreLimitedPerDeviceAndInAll() {
    let limiter = DeviceLogLimiter(capacity: 1_000, clock: clock)
    #expect(limiter.admit("kitchen") == 0)
    for _ in 0..<50 { #expect(limiter.admit("kitchen") == nil) }
    #expect(limiter.admit("hall") == 0)
    manual.advance(by: .seconds(60))
    #expect(limiter.admit("kitchen") == 50)
    // A swarm of made-up ids: at most `linesPerMinute` lines a minute in all.
    var written = 1
    for index in 0..<1_000 where limiter.admit("made-up-\(index)") != nil { written += 1 }
    #expect(written == DeviceLogLimiter.linesPerMinute)
  }

  @Test func unknownKeysAreNamedWithTheirLineAndTheClosestKnownKey() async throws {
    let yaml = """
      mqtt:
        prot: 1884
        host: 127.0.0.1
      mqt:
        keepalive-seconds: 30
      cache:
        ttl-second: 5
      weather:
        ttl-seconds: 5
      locations:
        names: [home]
        home:
          latitude: 52.5
          longitude: 13.4
        work:
          latitude: 52.4
      zzzzzz: 1
      """
    let keys = try ConfigurationKeys.keys(inYAML: yaml)
    #expect(keys.first == FileKey(path: "mqtt.prot", line: 2))
    #expect(keys.contains(FileKey(path: "locations.names", line: 11, shape: .list)))
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-\(UUID().uuidString).yaml")
    try yaml.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    var problems: [String] = []
    do {
      _ = try await GatewayConfiguration.load(
        path: file.path, environment: [:], parts: PartKind.all)
    } catch {
      problems = error.errors.filter(\.isUnknownKey).map {
        $0.description.replacingOccurrences(of: file.path, with: "x.yaml")
      }
    }
    #expect(
      problems == [
        "mqtt.prot: unknown key; did you mean mqtt.port? (x.yaml, line 2)",
        "mqt.keepalive-seconds: unknown key; did you mean mqtt.keepalive-seconds? (x.yaml, line 5)",
        "cache.ttl-second: unknown key; did you mean cache.ttl-seconds? (x.yaml, line 7)",
        "weather.ttl-seconds: unknown key; did you mean cache.ttl-seconds? (x.yaml, line 9)",
        "locations.work.latitude: unknown key; 'work' is not listed in locations.names (x.yaml, line 16)",
        "zzzzzz: unknown key (x.yaml, line 17)",
      ])
  }

  @Test func aWatchIntervalInALogLineIsCutShort() {
    let payload = Array(("Paris @" + String(repeating: "\u{1}x", count: 5_000)).utf8)
    do {
      _ = try WatchScheduler.parse(
        payload, watches: GatewayConfiguration.Watches(), maximumLocations: 7)
      Issue.record("a bad interval was accepted")
    } catch {
      let text = "\(error)"
      #expect(text.utf8.count < 80, "\(text.prefix(100))")
      #expect(!text.contains("\u{1}"))
    }
  }

  @Test func theAirQualityTableKeepsAtMostMaxCellsAndAsksOncePerCellAndTTL() async {
    let settings = AirQualityDesk.Settings(ttlSeconds: 3_600, maximumCells: 2, wait: .seconds(2))
    let desk = AirQualityDesk(settings: settings, clock: clock)
    let calls = Mutex(0)
    let batcher = PointBatcher<AirQualityReading>(maximumBatchSize: 50, window: .zero) { points in
      calls.withLock { $0 += points.count }
      return points.map { AirQualityReading(europeanAQI: $0.latitude) }
    }
    desk.update(settings, batcher: batcher)
    for row in Int64(0)..<50 {
      let index = await desk.reading(
        for: WeatherDesk.Cell(row: row, column: 0),
        at: GeoPoint(latitude: Double(row), longitude: 0))?.index(on: .europeanAQI)
      #expect(index == AirQuality(index: UInt16(row), scale: .europeanAQI))
      #expect(desk.entries <= 2)
    }
    // The last cell is still cached: no call; the first was pushed out: one more.
    _ = await desk.reading(
      for: WeatherDesk.Cell(row: 49, column: 0), at: GeoPoint(latitude: 49, longitude: 0))
    #expect(calls.withLock { $0 } == 50)
    _ = await desk.reading(
      for: WeatherDesk.Cell(row: 0, column: 0), at: GeoPoint(latitude: 0, longitude: 0))
    #expect(calls.withLock { $0 } == 51)
  }

  /// A frame waits `wait-ms` for its cell's reading, on the gateway clock; the call goes on in
  /// the background and its answer serves the next frame with no second call. 0: cached only.
  @Test(arguments: [0, 2_000])
  func aFrameWaitsForItsSupplementAtMostItsWait(milliseconds: Int) async {
    let manual = ManualClock()
    let clock = GatewayClock(manual, unixTimeAtStart: 1_800_000_000)
    let background = BackgroundWork(limit: 8)
    let service = Task { await background.run() }
    let settings = AirQualityDesk.Settings(
      ttlSeconds: 3_600, maximumCells: 8, wait: .milliseconds(milliseconds))
    let desk = AirQualityDesk(settings: settings, clock: clock, background: background)
    let (gate, open) = AsyncStream<Void>.makeStream()
    let calls = Atomic<Int>(0)
    desk.update(
      settings,
      batcher: PointBatcher<AirQualityReading>(maximumBatchSize: 50, window: .zero) { points in
        calls.add(1, ordering: .relaxed)
        for await _ in gate { break }
        return points.map { _ in AirQualityReading(europeanAQI: 42) }
      })
    let cell = WeatherDesk.Cell(row: 1, column: 1)
    let point = GeoPoint(latitude: 1, longitude: 1)
    async let first = desk.reading(for: cell, at: point)
    if milliseconds > 0 {
      // Still waiting just before the wait is over; nil at its end, the call still out.
      while manual.sleeping == 0 { await Task.yield() }
      manual.advance(by: .milliseconds(milliseconds - 1))
      for _ in 0..<100 { await Task.yield() }
      #expect(manual.sleeping == 1, "the frame stopped waiting before its wait-ms")
      manual.advance(by: .milliseconds(1))
    }
    #expect(await first == nil)
    // The call, started in the background, is made once the service runs its job.
    while calls.load(ordering: .relaxed) == 0 { await Task.yield() }
    open.yield()
    while desk.entries == 0 { await Task.yield() }
    let next = await desk.reading(for: cell, at: point)
    #expect(next?.index(on: .europeanAQI) == AirQuality(index: 42, scale: .europeanAQI))
    #expect(calls.load(ordering: .relaxed) == 1)
    service.cancel()
    await service.value
  }

  @Test func editDistanceCountsASwapOfNeighboursAsOne() {
    #expect(ConfigurationKeys.editDistance("mqtt.prot", "mqtt.port") == 1)
    #expect(ConfigurationKeys.editDistance("kitten", "sitting") == 3)
    #expect(ConfigurationKeys.editDistance("", "abc") == 3)
    #expect(ConfigurationKeys.editDistance("same", "same") == 0)
  }
}
