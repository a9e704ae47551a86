import AsyncHTTPClient
import Foundation
import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Synchronization
import Testing

@testable import SkyframeGateway

/// A simulated day on the manual clock (issue 33's measure): 900 cells around one city, each
/// asked every 15 minutes, while three models publish runs on their schedules. Counts the
/// upstream calls per cell, with the run gate and with the time-to-live alone. Not timed.
@Suite struct ModelPaceTests {
  /// A forecast service that counts the cells it is asked for.
  final class CountingService: WeatherProvider {
    let service = WeatherService.openMeteo
    let maximumBatchSize = 50
    let cellsAsked = Atomic<Int>(0)
    let clock: GatewayClock

    init(clock: GatewayClock) { self.clock = clock }

    func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
      cellsAsked.add(points.count, ordering: .relaxed)
      let now = clock.unixTime()
      return points.map { point in
        Forecast(
          place: .init(
            name: "", countryCode: nil, latitude: point.latitude, longitude: point.longitude),
          utcOffsetSeconds: 3_600, current: .init(time: now, temperature: 5), hourly: [],
          daily: [])
      }
    }

    func geocode(name: String, countryCode: String?) async throws(ProviderError)
      -> Forecast.Place?
    { nil }
  }

  /// A model's schedule: a run every `every` hours from 00 UTC, available `delay` after its start.
  struct Schedule {
    var name: String
    var every: Int64
    var delay: Int64

    /// The latest run available at `time`.
    func latest(at time: Int64) -> OpenMeteoModelRun {
      var start = (time - delay) / (every * 3_600) * (every * 3_600)
      if start + delay > time { start -= every * 3_600 }
      return OpenMeteoModelRun(
        initialisation: start, availability: start + delay, updateInterval: every * 3_600)
    }
  }

  // ICON-D2 and ICON-EU every 3 hours, ECMWF IFS every 6: availability delays made up here.
  static let schedules = [
    Schedule(name: "dwd_icon_d2", every: 3, delay: 5_400),
    Schedule(name: "dwd_icon_eu", every: 3, delay: 9_000),
    Schedule(name: "ecmwf_ifs025", every: 6, delay: 25_200),
  ]

  /// Upstream calls per cell over the second of two simulated days (the first starts with an
  /// empty cache), for the models in `models` (none: the time-to-live alone).
  func day(models: [Schedule], cells: Int = 900) async -> Double {
    let manual = ManualClock()
    // 2027-01-15 00:00 UTC; Berlin, UTC+1.
    let start: Int64 = 1_800_000_000 / 86_400 * 86_400
    let clock = GatewayClock(manual, unixTimeAtStart: start)
    let service = CountingService(clock: clock)
    var cache = GatewayConfiguration.Cache()
    cache.ttlSeconds = 600
    cache.maximumCells = 2 * cells
    var settings = WeatherDesk.Settings(
      services: [ForecastBatcher(provider: service, window: .zero)], cache: cache)
    var runsSettings = GatewayConfiguration.Runs()
    runsSettings.models = models.map(\.name)
    let runs = ModelRuns(
      settings: runsSettings, httpClient: .shared, clock: clock, logger: Logger(label: "day"))
    if !models.isEmpty {
      settings.runs = runs
      settings.maximumAgeSeconds = 10_800
    }
    let desk = WeatherDesk(settings: settings, clock: clock, logger: Logger(label: "day"))
    // A 30 × 30 block of 0.01° cells around Berlin.
    let side = Int(Double(cells).squareRoot())
    let points = (0..<cells).map { index in
      GeoPoint(
        latitude: 52.40 + Double(index / side) * 0.01,
        longitude: 13.25 + Double(index % side) * 0.01)
    }
    var firstDay = 0
    for step in 0..<192 {
      if step == 96 { firstDay = service.cellsAsked.load(ordering: .relaxed) }
      let now = start + Int64(step) * 900
      if step > 0 { manual.advance(by: .seconds(900)) }
      for schedule in models {
        runs.record(schedule.name, .success(schedule.latest(at: now)), at: now)
      }
      runs.recompute(at: now)
      for point in points {
        _ = await desk.frame(at: point)
      }
    }
    return Double(service.cellsAsked.load(ordering: .relaxed) - firstDay) / Double(cells)
  }

  @Test func aCellIsFetchedOncePerRunNotOncePerTimeToLive() async {
    let ttlOnly = await day(models: [])
    let gated = await day(models: Self.schedules)
    let twoModels = await day(models: [Self.schedules[0], Self.schedules[2]])
    // The runs a day: 8 + 8 + 4; each makes every cell be fetched once more, and so does the
    // local midnight.
    print(
      "simulated day, 900 cells asked every 15 min: \(ttlOnly) calls per cell with the TTL (600 s)"
        + " alone; \(gated) under the runs of ICON-D2, ICON-EU and ECMWF IFS (20 runs);"
        + " \(twoModels) under ICON-D2 and ECMWF IFS (12 runs); free tiers (10,000 calls a day)"
        + " for 900 cells: \(ttlOnly * 9 / 100), \(gated * 9 / 100), \(twoModels * 9 / 100)")
    // Deterministic: exactly the runs, and the local midnight.
    #expect(ttlOnly == 96)
    #expect(gated == 20 + 1)
    #expect(twoModels == 12 + 1)
  }
}

/// The gate and the next-update hint, from what the metadata said.
@Suite struct ModelRunsTests {
  let start: Int64 = 1_800_000_000

  func runs(_ models: [String]) -> (ModelRuns, ManualClock) {
    let manual = ManualClock()
    var settings = GatewayConfiguration.Runs()
    settings.models = models
    return (
      ModelRuns(
        settings: settings, httpClient: .shared,
        clock: GatewayClock(manual, unixTimeAtStart: start), logger: Logger(label: "runs")),
      manual
    )
  }

  func run(_ initialisation: Int64, available: Int64) -> OpenMeteoModelRun {
    OpenMeteoModelRun(
      initialisation: initialisation, availability: available, updateInterval: 10_800)
  }

  @Test func aModelNeverReadDoesNotHideTheOthersRuns() {
    let (runs, _) = runs(["dwd_icon_d2", "no_such_model"])
    #expect(runs.gate() == ModelRuns.unknown)
    runs.record("dwd_icon_d2", .success(run(start - 7_200, available: start - 3_600)), at: start)
    runs.record("no_such_model", .failure(.unavailable("HTTP 404")), at: start)
    runs.recompute(at: start)
    #expect(runs.gate() == start - 3_600 + 600)
    // Three polls later without a read of either: the metadata is down.
    runs.recompute(at: start + 3 * 60 + 20 + 1)
    #expect(runs.gate() == ModelRuns.unknown)
  }

  @Test func anOlderRunIsNotTakenForANewOne() {
    let (runs, _) = runs(["dwd_icon_d2"])
    runs.record("dwd_icon_d2", .success(run(start - 3_600, available: start - 1_800)), at: start)
    let (older, _) = runs.record(
      "dwd_icon_d2", .success(run(start - 14_400, available: start - 12_600)), at: start + 60)
    #expect(older == nil)
    runs.recompute(at: start + 60)
    #expect(runs.gate() == start - 1_800 + 600)
  }

  @Test func aLateRunIsNotExpectedInThePast() {
    let (runs, _) = runs(["dwd_icon_d2"])
    // Usable since start - 1,200; the next one due at start - 1,200 + 10,800.
    runs.record("dwd_icon_d2", .success(run(start - 3_600, available: start - 1_800)), at: start)
    runs.recompute(at: start)
    #expect(runs.expectedNext() == start - 1_200 + 10_800)
    // Past that, with no newer run seen: nothing is expected at a known time.
    let late = start + 10_000
    runs.record("dwd_icon_d2", .success(run(start - 3_600, available: start - 1_800)), at: late)
    runs.recompute(at: late)
    #expect(runs.expectedNext() == nil)
  }

  @Test func theHintOfAFrameUnderTheRunsNeverSaysOneSecondForALateRun() {
    var frame = WeatherDesk.CachedFrame(bytes: [], fetchedAt: start)
    frame.fetchBegan = start
    frame.keepUntil = start + 10_800
    frame.expectedUntil = start + 3_000
    #expect(frame.secondsUntilNewer(ttl: 600, now: start + 1_000) == 2_000)
    // The expected run is late: ask again in a minute, within the frame's keep.
    #expect(frame.secondsUntilNewer(ttl: 600, now: start + 3_100) == 60)
    #expect(frame.secondsUntilNewer(ttl: 600, now: start + 10_780) == 20)
    // Times from a peer, however far off, give a number.
    frame.expectedUntil = .min
    frame.keepUntil = .min
    _ = frame.secondsUntilNewer(ttl: 600, now: start)
    var plain = WeatherDesk.CachedFrame(bytes: [], fetchedAt: .max)
    plain.validUntil = nil
    _ = plain.secondsUntilNewer(ttl: 600, now: .min)
  }
}
