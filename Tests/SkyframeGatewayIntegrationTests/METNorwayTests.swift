import Foundation
import SkyframeAssembly
import SkyframeCodec
import SkyframeGateway
import SkyframeProviders
import SkyframeTestSupport
import Testing

/// MET Norway under its terms of service, through a real broker and a local HTTP server that
/// answers like api.met.no: `Expires`, `Last-Modified`, 304 to a matching `If-Modified-Since`,
/// bodies gzip-compressed to clients that accept it.
@Suite(.serialized) struct METNorwayTests {
  static let lastModified = "Tue, 16 Jun 2020 12:13:49 GMT"
  static let userAgent = "skyframe-tests/1.0 tests@example.com"

  /// Answers forecasts with `Expires` `lifetime` seconds from now and a fixed `Last-Modified`,
  /// and 304 with no body when `If-Modified-Since` is that `Last-Modified` exactly.
  static func api(lifetime: Int64, status: Int = 200, clock: GatewayClock = .system)
    -> @Sendable (StubHTTPRequest) -> StubHTTPResponse
  {
    { request in
      guard request.path == METNorwayFixtures.path else {
        return ServiceFixtures.answer(request, places: GatewayHarness.places, temperature: 12.5)
      }
      let now = clock.unixTime()
      var headers = [
        ("Expires", METNorwayFixtures.httpDate(now + lifetime)),
        ("Last-Modified", lastModified),
      ]
      if request.header("If-Modified-Since") == lastModified {
        return StubHTTPResponse(status: 304, headers: headers)
      }
      headers.append(("Content-Type", "application/json"))
      let body = METNorwayFixtures.compact(
        latitude: Double(request.query["lat"] ?? "") ?? 0,
        longitude: Double(request.query["lon"] ?? "") ?? 0, temperature: 12.5, now: now)
      return StubHTTPResponse(status: status, body: Array(body.utf8), headers: headers)
    }
  }

  static func calls(_ harness: GatewayHarness) -> [StubHTTPRequest] {
    harness.http.requests.filter { $0.path == METNorwayFixtures.path }
  }

  @Test func noCallBeforeExpiresThenIfModifiedSinceWithTheLastModifiedVerbatim() async throws {
    // On a clock the test moves: the service's Expires and the cache's TTL are exact.
    let manual = ManualClock()
    let clock = GatewayClock(manual, unixTimeAtStart: 1_800_000_000)
    let harness = try await GatewayHarness.make(service: .metNorway, clock: clock) {
      $0.cache.ttlSeconds = 1
      $0.weather.batchWindowMilliseconds = 0
    }
    defer { Task { await harness.shutdown() } }
    harness.set(.answer(Self.api(lifetime: 4, clock: clock)))
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)

    try device.ask("#1 59.91,10.75")
    let first = try #require(try await device.frames(1).first)
    #expect(first.status == .ok)
    #expect(first.service == .metNorway)
    #expect(first.current.temperature == 125)
    #expect(first.current.weatherCode == 73)
    // The hint is the service's Expires, not the 1 s cache TTL.
    #expect(first.nextUpdateSeconds == 4)
    var calls = Self.calls(harness)
    #expect(calls.count == 1)
    #expect(calls.first?.header("User-Agent") == Self.userAgent)
    #expect(calls.first?.header("Accept-Encoding")?.contains("gzip") == true)
    #expect(calls.first?.header("If-Modified-Since") == nil)
    #expect(calls.first?.query["lat"] == "59.91")
    #expect(calls.first?.query["lon"] == "10.75")

    // Past the cache TTL, before Expires: no call.
    manual.advance(by: .milliseconds(1_500))
    try device.ask("#2 59.91,10.75")
    #expect(try await device.frames(1).first?.status == .ok)
    #expect(Self.calls(harness).count == 1)

    // Past Expires: one call, conditional; the 304 reuses the body.
    manual.advance(by: .milliseconds(3_500))
    try device.ask("#3 59.91,10.75")
    let third = try #require(try await device.frames(1).first)
    #expect(third.status == .ok)
    #expect(third.current.temperature == 125)
    calls = Self.calls(harness)
    #expect(calls.count == 2)
    #expect(calls.last?.header("If-Modified-Since") == Self.lastModified)
  }

  @Test func aPointForgottenByTheCacheIsNotAskedAgainBeforeExpiresAndCoordinatesHaveFourDecimals()
    async throws
  {
    let harness = try await GatewayHarness.make(service: .metNorway) {
      $0.cache.maximumCells = 1
      $0.cache.gridDegrees = 0.0001
      $0.weather.batchWindowMilliseconds = 0
    }
    defer { Task { await harness.shutdown() } }
    harness.set(.answer(Self.api(lifetime: 600)))
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 59.912341,10.752299")
    #expect(try await device.frames(1).first?.status == .ok)
    try device.ask("#2 -33.868823,151.209291")
    #expect(try await device.frames(1).first?.status == .ok)
    // The first cell left the one-cell cache; its answer has not expired.
    try device.ask("#3 59.912341,10.752299")
    let again = try #require(try await device.frames(1).first)
    #expect(again.status == .ok)
    #expect(again.service == .metNorway)
    let calls = Self.calls(harness)
    #expect(calls.count == 2)
    #expect(calls.map { $0.query["lat"] ?? "" } == ["59.9123", "-33.8688"])
    #expect(calls.map { $0.query["lon"] ?? "" } == ["10.7523", "151.2093"])
  }

  @Test func namesAreLookedUpAndA203IsUsedAndWarnedAboutOnce() async throws {
    let harness = try await GatewayHarness.make(service: .metNorway) {
      $0.weather.batchWindowMilliseconds = 0
    }
    defer { Task { await harness.shutdown() } }
    harness.set(.answer(Self.api(lifetime: 0, status: 203)))
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 Oslo,NO;Paris")
    let frames = try await device.frames(2)
    #expect(frames.map(\.status) == [.ok, .ok])
    #expect(frames.map { $0.name.string } == ["Oslo", "Paris"])
    #expect(frames.allSatisfy { $0.service == .metNorway })
    let warnings = harness.logs.all.filter { $0.contains("203") }
    #expect(warnings.count == 1, "\(warnings)")
  }

  @Test func theGatewayRefusesToStartWithoutAnIdentifyingUserAgent() async throws {
    func problems(_ yaml: String) async throws -> [String] {
      let file = FileManager.default.temporaryDirectory.appendingPathComponent(
        "skyframe-\(UUID().uuidString).yaml")
      try yaml.write(to: file, atomically: true, encoding: .utf8)
      defer { try? FileManager.default.removeItem(at: file) }
      do {
        _ = try await GatewayConfiguration.load(
          path: file.path, environment: [:], parts: PartKind.all)
        return []
      } catch {
        return error.errors.map(\.key)
      }
    }
    #expect(try await problems("weather:\n  service: met-norway\n") == ["met-norway.user-agent"])
    #expect(
      try await problems(
        "weather:\n  fallback: [met-norway]\nmet-norway:\n  user-agent: curl/8.5\n")
        == ["met-norway.user-agent"])
    #expect(
      try await problems(
        "weather:\n  service: met-norway\nmet-norway:\n  user-agent: acme/1.0 ops@example.com\n")
        == [])
    // Unused, the section needs nothing.
    #expect(try await problems("weather:\n  service: open-meteo\n") == [])
  }
}
