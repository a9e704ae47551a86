import AsyncHTTPClient
import Foundation
import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Synchronization
import Testing

@testable import SkyframeCluster
@testable import SkyframeGateway

/// Frames composed between runs from the call's data equal, byte for byte but `fetched_at` and
/// the CRC, what a fresh call to the same run gives at that moment: across the local midnight, a
/// change of daylight saving time and a new run. Against a stand-in on real HTTP that serves one
/// run at a time and makes its `current` from its own series at the time asked; on the manual
/// clock, not timed.
@Suite struct ComposedFrameTests {
  // 2027-10-30 18:05:07 UTC, 20:05 in Berlin (UTC+2): the local midnight comes at 22:00 UTC,
  // summer time ends at 01:00 UTC.
  static let start: Int64 = 1_824_919_507

  /// `bytes` with `fetched_at` (bytes 24-27 in both profiles) and the CRC (the last four) zeroed.
  static func withoutFetchTime(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    var bytes = Array(bytes)
    bytes.replaceSubrange(24..<28, with: [0, 0, 0, 0])
    bytes.replaceSubrange((bytes.count - 4)..<bytes.count, with: [0, 0, 0, 0])
    return bytes
  }

  /// The offset of the first byte where `a` and `b` differ but for the fetch time and the CRC.
  static func firstDifference(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int? {
    let (a, b) = (withoutFetchTime(a), withoutFetchTime(b))
    guard a.count == b.count else { return -1 }
    return a.indices.first { a[$0] != b[$0] }
  }

  /// A desk under the runs of one model (`dwd_icon_d2`), as every test here starts from.
  struct RunDesk {
    let desk: WeatherDesk
    let runs: ModelRuns

    /// The model's run that began at `initialisation` is `available` then, as read at `now`.
    func publish(_ initialisation: Int64, available: Int64, at now: Int64) {
      runs.record(
        "dwd_icon_d2",
        .success(
          OpenMeteoModelRun(
            initialisation: initialisation, availability: available, updateInterval: 10_800)),
        at: now)
      runs.recompute(at: now)
    }
  }

  /// A desk fetching from `provider` under the runs, frames kept up to `maximumAge`.
  static func runDesk(
    _ provider: any WeatherProvider, clock: GatewayClock,
    cache: GatewayConfiguration.Cache = .init(), maximumAge: Int = 10_800
  ) -> RunDesk {
    let logger = Logger(label: "composed")
    var settings = WeatherDesk.Settings(
      services: [ForecastBatcher(provider: provider, window: .zero)], cache: cache)
    var runsSettings = GatewayConfiguration.Runs()
    runsSettings.models = ["dwd_icon_d2"]
    let runs = ModelRuns(settings: runsSettings, httpClient: .shared, clock: clock, logger: logger)
    settings.runs = runs
    settings.maximumAgeSeconds = Int64(maximumAge)
    return RunDesk(
      desk: WeatherDesk(settings: settings, clock: clock, logger: logger), runs: runs)
  }

  /// Open-Meteo at `url`, asked for the 15-minute data that `maximumAge` needs.
  static func seriesProvider(_ url: String, clock: GatewayClock, maximumAge: Int = 10_800)
    -> OpenMeteoProvider
  {
    var configuration = OpenMeteoConfiguration(forecastURL: url)
    configuration.seriesSteps = OpenMeteoService.seriesSteps(for: maximumAge)
    return OpenMeteoProvider(
      configuration: configuration, httpClient: .shared, logger: Logger(label: "series"),
      clock: clock.providerClock)
  }

  @Test func framesComposedBetweenRunsEqualFreshFetches() async throws {
    let manual = ManualClock()
    let clock = GatewayClock(manual, unixTimeAtStart: Self.start)
    let run = Mutex(OneRunStandIn(run: 1))
    let server = try await StubHTTPServer.start { request in
      .json(run.withLock { $0 }.forecast(query: request.query, now: clock.unixTime()))
    }
    defer { Task { try? await server.stop() } }
    let maximumAge = 12 * 3_600
    let fresh = OpenMeteoProvider(
      configuration: OpenMeteoConfiguration(forecastURL: server.baseURL + "/fresh/v1/forecast"),
      httpClient: .shared, logger: Logger(label: "fresh"), clock: clock.providerClock)
    var cache = GatewayConfiguration.Cache()
    cache.ttlSeconds = 600
    let gate = Self.runDesk(
      Self.seriesProvider(
        server.baseURL + "/gate/v1/forecast", clock: clock, maximumAge: maximumAge),
      clock: clock, cache: cache, maximumAge: maximumAge)
    let desk = gate.desk
    gate.publish(Self.start - 4 * 3_600, available: Self.start - 3_600, at: Self.start)

    let point = GeoPoint(latitude: 52.52, longitude: 13.40)
    let center = desk.center(of: desk.cell(of: point))
    var now = Self.start
    var compared = 0
    var minutesCounted = 0
    var offsets = Set<Int16>()
    var days = Set<UInt16>()
    // Every 7 min 13 s for eleven hours; the second run is out at 03:00 UTC.
    while now < Self.start + 11 * 3_600 {
      let elapsed = now - Self.start
      if now >= 1_824_951_600 + 600, run.withLock({ $0.run }) == 1 {
        run.withLock { $0 = OneRunStandIn(run: 2) }
        gate.publish(1_824_940_800, available: 1_824_951_600, at: now)
      }
      manual.advance(by: .seconds(elapsed) - manual.now.offset)
      guard case .fresh(let cached) = await desk.frame(at: point, needs: [.standard, .large])
      else {
        Issue.record("no fresh frame at \(now)")
        return
      }
      let forecast = try #require(try await fresh.forecasts(for: [center]).first)
      let standard = try forecast.frame(fetchedAt: now, service: .openMeteo).encoded()
      let large = try forecast.largeFrame(standard: standard, fetchedAt: now)
      #expect(cached.bytes.count == WeatherFrame.size + LargeLayout.size)
      #expect(
        Self.firstDifference(cached.bytes[0..<WeatherFrame.size], standard[...]) == nil,
        "standard frame at \(now)")
      #expect(
        Self.firstDifference(cached.bytes[WeatherFrame.size...], large[...]) == nil,
        "large frame at \(now)")
      let decoded = try WeatherFrame(decoding: standard)
      if decoded.precipitationNextHour?.minutesUntilChange != nil { minutesCounted += 1 }
      if let offset = decoded.utcOffsetMinutes { offsets.insert(offset) }
      if let day = decoded.dailyStart { days.insert(day) }
      compared += 1
      now += 433
    }
    let calls = server.requests.filter { $0.path.hasPrefix("/gate/") }.count
    print(
      "composed frames: \(compared) compared over 11 hours, \(calls) upstream calls"
        + " (one per run), \(minutesCounted) counting minutes to a change of rain")
    #expect(compared > 90)
    // What the stretch crossed: summer and winter time, two local dates, rain changing.
    #expect(offsets == [120, 60])
    #expect(days.count == 2)
    #expect(minutesCounted > 10)
    // One call for each run: none between them, none at the local midnight.
    #expect(calls == 2)
  }

  /// A new run, and the service fails: the answer is `stale`, composed from the last call's data
  /// as the clock reads now (its current conditions move on), not the bytes of the last answer.
  @Test func aStaleAnswerMovesWithTheClockToo() async throws {
    let manual = ManualClock()
    let clock = GatewayClock(manual, unixTimeAtStart: Self.start)
    let failing = Atomic<Bool>(false)
    let server = try await StubHTTPServer.start { request in
      failing.load(ordering: .relaxed)
        ? .json(#"{"error":true,"reason":"down"}"#, status: 503)
        : .json(OneRunStandIn(run: 1).forecast(query: request.query, now: clock.unixTime()))
    }
    defer { Task { try? await server.stop() } }
    var cache = GatewayConfiguration.Cache()
    cache.staleSeconds = 7_200
    let gate = Self.runDesk(
      Self.seriesProvider(server.baseURL + "/v1/forecast", clock: clock), clock: clock,
      cache: cache)
    let desk = gate.desk
    gate.publish(Self.start - 4 * 3_600, available: Self.start - 3_600, at: Self.start)
    let point = GeoPoint(latitude: 52.52, longitude: 13.40)
    guard case .fresh(let first) = await desk.frame(at: point) else {
      Issue.record("no first frame")
      return
    }
    // 50 minutes on a newer run is usable; the service is down.
    manual.advance(by: .seconds(3_000))
    let now = Self.start + 3_000
    gate.publish(now - 3_600 - 700, available: now - 700, at: now)
    failing.store(true, ordering: .relaxed)
    guard case .stale(let stale) = await desk.frame(at: point) else {
      Issue.record("not stale")
      return
    }
    let before = try WeatherFrame(decoding: first.bytes)
    let after = try WeatherFrame(decoding: stale.bytes)
    #expect(after.fetchedAt == before.fetchedAt)
    #expect(after.observedAt == UInt32(now - now % 900))
    #expect(before.observedAt == UInt32(Self.start - Self.start % 900))
  }

  /// The series of one call, fetched from the one-run stand-in at `now` over real HTTP.
  static func series(at now: Int64) async throws -> (Forecast, ForecastSeries) {
    let server = try await StubHTTPServer.start { request in
      .json(OneRunStandIn(run: 2).forecast(query: request.query, now: now))
    }
    defer { Task { try? await server.stop() } }
    let provider = Self.seriesProvider(
      server.baseURL + "/v1/forecast", clock: .system(unixTimeAtStart: now))
    var forecast = try #require(
      try await provider.forecasts(for: [GeoPoint(latitude: 52.52, longitude: 13.4)]).first)
    forecast.place.name = "Berlin"
    forecast.place.countryCode = "DE"
    forecast.alerts = [
      .init(severity: .moderate, start: now - 600, end: now + 5_000, event: "Sturmböen"),
      .init(severity: nil, start: nil, end: nil, event: nil),
    ]
    return (forecast, try #require(ForecastSeries(forecast, fetchedAt: now)))
  }

  /// A series as bytes (for another member) comes back composing the same forecasts; bytes cut
  /// short or altered anywhere read as no series or as another one, never as a trap.
  @Test func aSeriesSurvivesItsBytesAndJunkDoesNotTrap() async throws {
    let (_, series) = try await Self.series(at: Self.start)
    let bytes = series.encoded()
    let back = try #require(ForecastSeries(decoding: bytes[...]))
    #expect(back.coveredUntil == series.coveredUntil)
    for time in stride(from: Self.start, to: series.coveredUntil, by: 613) {
      #expect(back.forecast(at: time) == series.forecast(at: time), "at \(time)")
      #expect(back.nextChange(after: time) == series.nextChange(after: time))
    }
    for length in 0..<bytes.count {
      #expect(ForecastSeries(decoding: bytes[0..<length]) == nil)
    }
    // splitmix64, seeded: the same junk every run.
    var state: UInt64 = 33
    func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    for _ in 0..<2_000 {
      var junk = bytes
      junk[Int(next() % UInt64(junk.count))] = UInt8(truncatingIfNeeded: next())
      if let read = ForecastSeries(decoding: junk[...]) {
        _ = read.forecast(at: Self.start + 1_000)
        _ = read.nextChange(after: Self.start + 1_000)
      }
    }
  }

  /// In a fleet, a member that takes another's entry of a composed frame gets the data with it
  /// (version 3) and composes the frame as the clock moves, as the member that fetched it does.
  @Test func aSharedEntryCarriesTheDataAndTheTakerComposes() async throws {
    let (forecast, series) = try await Self.series(at: Self.start)
    let cache = SharedFrameCache(
      key: Array("a cluster key of 32 bytes, or so".utf8), topics: .init(), staleSeconds: 3_600)
    let cell = WeatherDesk.Cell(row: 5_252, column: 1_340)
    let composer = FrameSeries(
      series, service: .openMeteo, airQuality: AirQuality(index: 42, scale: .usAQI),
      fetchedAt: Self.start)
    var entry = WeatherDesk.CachedFrame(
      bytes: try forecast.frame(fetchedAt: Self.start, service: .openMeteo).encoded(),
      fetchedAt: Self.start)
    entry.fetchBegan = Self.start - 1
    entry.keepUntil = series.coveredUntil
    entry.runStartedAt = Self.start - 4 * 3_600
    let bytes = cache.entry(entry, for: cell, series: composer)
    #expect(bytes.first == 3)
    let shared = try cache.verify(bytes, cellText: "5252_1340").get()
    #expect(shared.frame.runStartedAt == Self.start - 4 * 3_600)
    let taken = try #require(shared.series)
    #expect(taken.airQuality == AirQuality(index: 42, scale: .usAQI))
    var altered = bytes
    altered[400] ^= 1
    #expect(throws: SharedFrameCache.RefusedEntry.self) {
      try cache.verify(altered, cellText: "5252_1340").get()
    }

    // The taker, 40 minutes on, answers what the fetcher's data composes then.
    let manual = ManualClock()
    let clock = GatewayClock(manual, unixTimeAtStart: Self.start + 60)
    var cacheSettings = GatewayConfiguration.Cache()
    cacheSettings.staleSeconds = 3_600
    let gate = Self.runDesk(NoService(), clock: clock, cache: cacheSettings)
    gate.publish(Self.start - 4 * 3_600, available: Self.start - 3_600, at: Self.start)
    let taker = gate.desk
    #expect(taker.adopt(shared.frame, for: cell, series: taken))
    manual.advance(by: .seconds(2_400))
    let now = Self.start + 2_460
    let answered = try #require(
      taker.cachedFrame(at: taker.center(of: cell), needs: .standard, time: now))
    var expected = try #require(series.forecast(at: now)).frame(
      fetchedAt: Self.start, at: now, service: .openMeteo)
    expected.airQuality = AirQuality(index: 42, scale: .usAQI)
    #expect(answered.bytes == (try expected.encoded()))
    #expect(
      try WeatherFrame(decoding: answered.bytes).observedAt == UInt32(now - now % 900))
  }

  /// The cells' data go with their frames: no more of it than `cache.max-cells` frames, and a
  /// composed frame whose data is gone is a miss when it should move on, never served frozen.
  @Test func aCellsDataGoesWithItsFrame() async throws {
    let manual = ManualClock()
    let clock = GatewayClock(manual, unixTimeAtStart: Self.start)
    let server = try await StubHTTPServer.start { request in
      .json(OneRunStandIn(run: 1).forecast(query: request.query, now: clock.unixTime()))
    }
    defer { Task { try? await server.stop() } }
    var cache = GatewayConfiguration.Cache()
    cache.maximumCells = 2
    let gate = Self.runDesk(
      Self.seriesProvider(server.baseURL + "/v1/forecast", clock: clock), clock: clock,
      cache: cache)
    gate.publish(Self.start - 4 * 3_600, available: Self.start - 3_600, at: Self.start)
    let desk = gate.desk
    let points = (0..<5).map { GeoPoint(latitude: 52.5 + Double($0) * 0.01, longitude: 13.4) }
    for point in points {
      guard case .fresh = await desk.frame(at: point) else {
        Issue.record("no frame")
        return
      }
    }
    #expect(desk.entries.frames == 2)
    #expect(desk.cache.series.withLock { $0.count } == 2)
    let kept = desk.cell(of: points[4])
    #expect(desk.cache.series.withLock { $0[kept] } != nil)
    #expect(desk.cache.series.withLock { $0[desk.cell(of: points[0])] } == nil)

    // Its data lost: 20 minutes on, the frame would have to move on; it is no hit.
    _ = desk.cache.series.withLock { $0.removeValue(forKey: kept) }
    #expect(desk.cachedFrame(at: points[4], time: Self.start) != nil)
    manual.advance(by: .seconds(1_200))
    #expect(desk.cachedFrame(at: points[4], time: Self.start + 1_200) == nil)
  }

  /// A frame another member fetched comes without the data it is composed from: it is kept no
  /// later than the place's local midnight, whatever keep the member that fetched it gave it.
  @Test func anAdoptedFrameEndsAtTheLocalMidnight() throws {
    // 22:30 UTC, 23:30 at UTC+1: the local midnight is 30 minutes on.
    let fetchedAt: Int64 = 1_800_000_000 / 86_400 * 86_400 + 22 * 3_600 + 1_800
    let clock = GatewayClock(ManualClock(), unixTimeAtStart: fetchedAt + 60)
    var cache = GatewayConfiguration.Cache()
    cache.staleSeconds = 3_600
    let desk = WeatherDesk(
      settings: WeatherDesk.Settings(
        services: [ForecastBatcher(provider: NoService(), window: .zero)], cache: cache),
      clock: clock, logger: Logger(label: "adopt"))
    var frame = WeatherFrame(status: .ok)
    frame.utcOffsetMinutes = 60
    frame.fetchedAt = UInt32(fetchedAt)
    var entry = WeatherDesk.CachedFrame(bytes: try frame.encoded(), fetchedAt: fetchedAt)
    entry.fetchBegan = fetchedAt - 1
    entry.keepUntil = fetchedAt + 10_800
    let cell = WeatherDesk.Cell(row: 5_252, column: 1_340)
    #expect(desk.adopt(entry, for: cell))
    let kept = try #require(desk.cache.frames.withLock { $0.peek(cell) })
    #expect(kept.keepUntil == fetchedAt + 1_800)
  }

  struct NoService: WeatherProvider {
    let service = WeatherService.openMeteo
    let maximumBatchSize = 1
    func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
      throw .unavailable("none")
    }
    func geocode(name: String, countryCode: String?) async throws(ProviderError)
      -> Forecast.Place?
    { nil }
  }
}
