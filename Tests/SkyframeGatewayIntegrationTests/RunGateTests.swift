import Foundation
import SkyframeCodec
import SkyframeTestSupport
import Synchronization
import Testing

@testable import SkyframeGateway

/// A cell is fetched again when a model behind it has a newer run (plus the margin), not at every
/// time-to-live; at the maximum age while the metadata cannot be read. All on the manual clock.
@Suite(.serialized) struct RunGateTests {
  /// What the stand-in's metadata says of `dwd_icon_d2`: a run, or a failure.
  final class Metadata: Sendable {
    let run = Mutex<(initialisation: Int64, availability: Int64)?>(nil)

    func answer(_ request: StubHTTPRequest) -> StubHTTPResponse? {
      guard request.path.hasPrefix("/model-runs/") else { return nil }
      guard request.path == "/model-runs/dwd_icon_d2/static/meta.json" else {
        return .json(#"{"error":true,"reason":"no such model"}"#, status: 404)
      }
      guard let run = run.withLock({ $0 }) else {
        return .json(#"{"error":true,"reason":"down"}"#, status: 500)
      }
      // The shape of Open-Meteo's meta.json, with values made up here.
      return .json(
        """
        {"crs_wkt":"","last_run_initialisation_time":\(run.initialisation),\
        "last_run_modification_time":\(run.availability - 60),\
        "last_run_availability_time":\(run.availability),"temporal_resolution_seconds":3600,\
        "update_interval_seconds":10800}
        """)
    }
  }

  let start: Int64 = 1_800_000_000
  let ttl: Int64 = 60

  /// Waits (in real time) until the poller has read the metadata at `now` or later, or failed
  /// to: a call still out when the test moves the clock would time out.
  static func waitForPoll(port: Int, at now: Int64, failing: Bool = false) async throws {
    let key = failing ? "last_error_at" : "read_at"
    for _ in 0..<1_000 {
      let body = try await MosquittoBroker.httpGet(port: port, path: "/health").body
      let status = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
      let model = (status?["models"] as? [[String: Any]])?.first
      if let time = (model?[key] as? NSNumber)?.int64Value, time >= now { return }
      try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("no poll of the metadata at \(now) (\(key))")
  }

  /// The value of the Prometheus series `name` (with its labels) on `port`'s `/metrics`.
  static func metric(_ name: String, port: Int) async throws -> Int? {
    let text = try await MosquittoBroker.httpGet(port: port, path: "/metrics").body
    return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
      .flatMap { Int($0.split(separator: " ").last ?? "") }
  }

  /// `device`'s one frame for Berlin.
  static func ask(_ device: Device) async throws -> WeatherFrame {
    try device.ask("52.52,13.405")
    return try await device.frames(1)[0]
  }

  @Test func aCellIsFetchedAgainOnlyForANewerRunOrAtItsMaximumAge() async throws {
    let manual = ManualClock()
    let metadata = Metadata()
    // A run out for two hours: usable long ago.
    metadata.run.withLock { $0 = (start - 3 * 3_600, start - 2 * 3_600) }
    let metricsPort = try MosquittoBroker.freeLoopbackPort()
    let clock = GatewayClock(manual, unixTimeAtStart: start)
    let harness = try await GatewayHarness.make(clock: clock) {
      $0.cache.ttlSeconds = Int(ttl)
      $0.weather.batchWindowMilliseconds = 0
      $0.runs.models = ["dwd_icon_d2"]
      $0.runs.maximumAgeSeconds = 1_800
      $0.metrics.port = metricsPort
    }
    defer { Task { await harness.shutdown() } }
    harness.set(
      .answer { request in
        metadata.answer(request)
          ?? ServiceFixtures.answer(
            request, places: [], temperature: 4, now: Int(clock.unixTime()))
      })
    /// At the clock's present time.
    func waitForPoll(failing: Bool = false) async throws {
      try await Self.waitForPoll(
        port: metricsPort, at: start + Int64(manual.now.offset.components.seconds),
        failing: failing)
    }
    func skipped() async throws -> Int {
      try await Self.metric(
        #"skyframe_upstream_calls_skipped_total{reason="same-run"}"#, port: metricsPort) ?? -1
    }
    try await harness.start()
    try await waitForPoll()
    let device = try await Device.frames(port: harness.broker.port)
    func ask() async throws -> WeatherFrame { try await Self.ask(device) }

    let first = try await ask()
    #expect(first.status == .ok)
    #expect(harness.forecastCalls == 1)
    // The run behind the answer began three hours before it.
    func series(_ name: String) async throws -> Int? {
      try await Self.metric(name, port: metricsPort)
    }
    #expect(try await series("skyframe_answer_run_age_seconds_count") == 1)
    #expect(try await series(#"skyframe_answer_run_age_seconds_bucket{le="7200.0"}"#) == 0)
    #expect(try await series(#"skyframe_answer_run_age_seconds_bucket{le="10800.0"}"#) == 1)

    // Past the time-to-live, no newer run: the cached frame, and one call counted as saved.
    manual.advance(by: .seconds(2 * ttl))
    try await waitForPoll()
    let kept = try await ask()
    #expect(kept.fetchedAt == first.fetchedAt)
    #expect(harness.forecastCalls == 1)
    #expect(try await skipped() == 1)

    // A new run, available now: not asked for before the margin (600 s) has passed.
    let available = start + 2 * ttl
    metadata.run.withLock { $0 = (available - 3_600, available) }
    manual.advance(by: .seconds(599))
    try await waitForPoll()
    #expect(try await ask().fetchedAt == first.fetchedAt)
    #expect(harness.forecastCalls == 1)
    // At the margin's end the gate moves: fetched once for the new run, and never twice.
    manual.advance(by: .seconds(1))
    try await waitForPoll()
    let fresh = try await ask()
    let freshAt = Int64(try #require(fresh.fetchedAt))
    #expect(available + 600 <= freshAt)
    #expect(harness.forecastCalls == 2)
    // Its next update: when the run after it is expected (availability + 3 h + margin), or its
    // maximum age if that comes first.
    let expectedNext = min(available + 10_800 + 600, freshAt + 1_800) - freshAt
    #expect(Int64(fresh.nextUpdateSeconds ?? 0) == expectedNext)
    manual.advance(by: .seconds(3 * ttl))
    try await waitForPoll()
    #expect(try await ask().fetchedAt == fresh.fetchedAt)
    #expect(harness.forecastCalls == 2)

    // The metadata down: the frame is kept until its maximum age (1,800 s), then fetched.
    metadata.run.withLock { $0 = nil }
    manual.advance(by: .seconds(1_800 - 3 * Int(ttl) - 10))
    try await waitForPoll(failing: true)
    #expect(try await ask().fetchedAt == fresh.fetchedAt)
    #expect(harness.forecastCalls == 2)
    // (No poll falls in these 20 s.)
    manual.advance(by: .seconds(20))
    let aged = try await ask()
    #expect(Int64(try #require(aged.fetchedAt)) > freshAt)
    #expect(harness.forecastCalls == 3)
  }

  /// The whole gateway under `runs`, over MQTT, against a stand-in serving one run: the call asks
  /// for the current conditions in 15-minute steps, and answers between runs move with the clock
  /// (the current conditions, the hour, the day across the local midnight) with no further call;
  /// `fetched_at` stays the call's time.
  @Test func answersBetweenRunsMoveWithTheClock() async throws {
    let manual = ManualClock()
    // 21:50 UTC, 22:50 in Berlin (UTC+1): the local midnight is 70 minutes on.
    let start: Int64 = 1_800_000_000 / 86_400 * 86_400 + 21 * 3_600 + 3_000
    let metadata = Metadata()
    metadata.run.withLock { $0 = (start - 3 * 3_600, start - 2 * 3_600) }
    let metricsPort = try MosquittoBroker.freeLoopbackPort()
    let clock = GatewayClock(manual, unixTimeAtStart: start)
    let harness = try await GatewayHarness.make(clock: clock) {
      $0.weather.batchWindowMilliseconds = 0
      $0.runs.models = ["dwd_icon_d2"]
      $0.metrics.port = metricsPort
    }
    defer { Task { await harness.shutdown() } }
    let standIn = OneRunStandIn(run: 3)
    harness.set(
      .answer { request in
        metadata.answer(request)
          ?? (request.path == "/v1/forecast"
            ? .json(standIn.forecast(query: request.query, now: clock.unixTime()))
            : ServiceFixtures.answer(
              request, places: [], temperature: 4, now: Int(clock.unixTime())))
      })
    try await harness.start()
    try await Self.waitForPoll(port: metricsPort, at: start)
    let device = try await Device.frames(port: harness.broker.port)
    func ask() async throws -> WeatherFrame { try await Self.ask(device) }
    let first = try await ask()
    #expect(first.status == .ok)
    #expect(harness.forecastCalls == 1)
    let call = try #require(harness.http.requests.first { $0.path == "/v1/forecast" })
    #expect(call.query["current"] == nil)
    #expect(call.query["minutely_15"]?.contains("pressure_msl") == true)

    // 80 minutes on: past the local midnight, no call; a new day, a new hour, new conditions.
    manual.advance(by: .seconds(4_800))
    let later = try await ask()
    #expect(harness.forecastCalls == 1)
    #expect(later.fetchedAt == first.fetchedAt)
    #expect(later.observedAt == UInt32(start + 4_800 - (start + 4_800) % 900))
    #expect(later.hourlyStart == UInt32(start + 4_800 - (start + 4_800) % 3_600))
    #expect(later.dailyStart == (first.dailyStart ?? 0) + 1)
    #expect(later.current.temperature != nil)
  }

  @Test func theFirstLocalMidnightEndsAFramesDay() {
    // UTC+1 at 23:30 local: midnight is 30 minutes on; UTC-5 likewise.
    let utc = Int64(1_800_000_000) / 86_400 * 86_400
    #expect(
      WeatherDesk.localMidnight(after: utc - 3_600 + 1_800 - 3_600, offsetMinutes: 60) == utc
        - 3_600)
    #expect(
      WeatherDesk.localMidnight(after: utc + 5 * 3_600 - 1_800, offsetMinutes: -300) == utc + 5
        * 3_600)
    #expect(WeatherDesk.localMidnight(after: utc, offsetMinutes: nil) == .max)
  }
}
