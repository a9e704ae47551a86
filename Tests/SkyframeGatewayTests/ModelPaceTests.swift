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
/// upstream calls per cell, with the run gate and with the time-to-live alone, and compares
/// frames of sampled cells with what a fresh call would give at that moment. Not timed.
@Suite struct ModelPaceTests {
  /// A forecast service that serves the newest run of `schedules` (each from its availability
  /// plus the margin, as Open-Meteo's servers are eventually consistent) and counts the cells
  /// it is asked for. Its answers are those of Open-Meteo asked for every current variable in
  /// 15-minute steps (`current` is the series at the present step), hourly and daily rows from
  /// the local midnight; values are made up from the run, the cell and the time. With the
  /// time-to-live alone, which keeps no series, the current conditions are all it says.
  final class CountingService: WeatherProvider {
    let service = WeatherService.openMeteo
    let maximumBatchSize = 50
    let cellsAsked = Atomic<Int>(0)
    let clock: GatewayClock
    let schedules: [Schedule]
    let series: Bool
    /// Steps per call: what the gateway asks for under a maximum age of 3 hours.
    let steps = OpenMeteoService.seriesSteps(for: 10_800)

    init(clock: GatewayClock, schedules: [Schedule], series: Bool) {
      self.clock = clock
      self.schedules = schedules
      self.series = series
    }

    func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
      cellsAsked.add(points.count, ordering: .relaxed)
      let now = clock.unixTime()
      guard series else {
        return points.map { point in
          Forecast(
            place: .init(
              name: "", countryCode: nil, latitude: point.latitude, longitude: point.longitude),
            utcOffsetSeconds: 3_600, current: .init(time: now, temperature: 5), hourly: [],
            daily: [])
        }
      }
      return points.map { forecast(at: $0, now: now) }
    }

    /// The run served at `now`: a number that changes with every run of every model.
    func run(at now: Int64) -> Double {
      schedules.reduce(0) { $0 + Double($1.latest(at: now - 600).initialisation % 86_400) / 3_600 }
    }

    /// What a call at `now` for `point` answers.
    func forecast(at point: GeoPoint, now: Int64) -> Forecast {
      let run = Int64(run(at: now) * 4)
      let seed = Int64((point.latitude * 300 + point.longitude * 500).rounded())
      /// A made-up value in -scale...scale: cheap, so that 350,000 calls take little time.
      func wave(_ time: Int64, _ scale: Double) -> Double {
        let mixed = (time / 60 &+ seed &* 7_919 &+ run &* 104_729) &* 2_654_435_761
        return scale * (Double((mixed >> 16) & 0xFFFF) / 32_767.5 - 1)
      }
      let present = now - now % 900
      let steps = (0..<Int64(steps)).map { index -> Forecast.Current in
        let time = present + index * 900
        return Forecast.Current(
          time: time, temperature: 2 + wave(time, 4), apparentTemperature: wave(time, 6) - 1,
          relativeHumidity: 75 + wave(time, 20), pressure: 1_012 + wave(time, 9),
          windSpeed: 4 + wave(time, 3), windGusts: 9 + wave(time, 6),
          windDirection: 180 + wave(time, 170), weatherCode: [0, 2, 3, 61][Int(time / 900 % 4)],
          isDay: (time + 3_600) % 86_400 >= 28_800 && (time + 3_600) % 86_400 < 59_400,
          cloudCover: 50 + wave(time, 50), precipitation: max(0, wave(time, 0.6)),
          uvIndex: max(0, wave(time, 1.5)), visibility: 20_000 + wave(time, 9_000),
          dewPoint: wave(time, 3) - 2)
      }
      // Berlin in January: UTC+1 all day.
      let midnight = (now + 3_600) / 86_400 * 86_400 - 3_600
      // Four days of hours: all that frames composed within the maximum age show.
      let hourly = (0..<Int64(4 * 24)).map { index -> Forecast.Hour in
        let time = midnight + index * 3_600
        return Forecast.Hour(
          time: time, temperature: 1 + wave(time, 5), weatherCode: [3, 61, 2][Int(index % 3)],
          precipitationProbability: 50 + wave(time, 50), precipitation: max(0, wave(time, 2)),
          windSpeed: 5 + wave(time, 4), windGusts: 10 + wave(time, 7))
      }
      let daily = (0..<Int64(9)).map { index -> Forecast.Day in
        // A function of the date, not of the call's day.
        let date = (midnight + 3_600) / 86_400 + index
        let start = midnight + index * 86_400
        return Forecast.Day(
          date: Int(date), minimum: wave(date * 997, 5) - 3, maximum: wave(date * 997, 5) + 4,
          weatherCode: [61, 3, 71][Int(date % 3)],
          precipitationProbability: 40 + wave(date * 59, 40),
          sunrise: start + 29_000, sunset: start + 57_000, daylightSeconds: 28_000,
          precipitationSum: max(0, wave(date * 7, 6)), uvIndexMaximum: 1.2,
          windSpeedMaximum: 7 + wave(date * 3, 3))
      }
      var forecast = Forecast(
        place: .init(
          name: "", countryCode: nil, latitude: point.latitude, longitude: point.longitude),
        utcOffsetSeconds: 3_600, current: steps[0], hourly: hourly, daily: daily,
        precipitationSteps: steps.map {
          // Each step's precipitation is the 15 minutes before its time.
          .init(start: $0.time! - 900, seconds: 900, millimetres: $0.precipitation)
        })
      forecast.currentSteps = steps
      forecast.timeZone = "Europe/Berlin"
      return forecast
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

  /// What a simulated day measured: upstream calls per cell over the second of two days (the
  /// first starts with an empty cache), sampled frames compared and how many differed, and the
  /// largest series a cell kept.
  struct Day {
    var callsPerCell: Double
    var sampled = 0
    var differing = 0
    var largestSeries = 0
  }

  /// A simulated day for the models in `models` (none: the time-to-live alone); with `sample`,
  /// every 10th cell's standard and large frames are compared with a fresh call's at each step
  /// of the second day. Calls are counted per cell, so 100 cells say what a city's 900 need.
  func day(models: [Schedule], cells: Int = 100, sample: Bool = false) async -> Day {
    let manual = ManualClock()
    // 2027-01-15 00:00 UTC; Berlin, UTC+1.
    let start: Int64 = 1_800_000_000 / 86_400 * 86_400
    let clock = GatewayClock(manual, unixTimeAtStart: start)
    let service = CountingService(
      clock: clock, schedules: Self.schedules, series: !models.isEmpty)
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
    // A square block of 0.01° cells around Berlin.
    let side = Int(Double(cells).squareRoot())
    let points = (0..<cells).map { index in
      GeoPoint(
        latitude: 52.40 + Double(index / side) * 0.01,
        longitude: 13.25 + Double(index % side) * 0.01)
    }
    var firstDay = 0
    var result = Day(callsPerCell: 0)
    for step in 0..<192 {
      if step == 96 { firstDay = service.cellsAsked.load(ordering: .relaxed) }
      let now = start + Int64(step) * 900
      if step > 0 { manual.advance(by: .seconds(900)) }
      for schedule in models {
        runs.record(schedule.name, .success(schedule.latest(at: now)), at: now)
      }
      runs.recompute(at: now)
      for (index, point) in points.enumerated() {
        let sampled = sample && step >= 96 && index % 10 == 0
        let lookup = await desk.frame(at: point, needs: sampled ? [.standard, .large] : .standard)
        guard sampled else { continue }
        result.sampled += 1
        guard case .fresh(let cached) = lookup,
          let standard = try? service.forecast(at: desk.center(of: desk.cell(of: point)), now: now)
            .frame(fetchedAt: now, service: .openMeteo).encoded(),
          let large = try? service.forecast(at: desk.center(of: desk.cell(of: point)), now: now)
            .largeFrame(standard: standard, fetchedAt: now)
        else {
          result.differing += 1
          continue
        }
        if ComposedFrameTests.firstDifference(cached.bytes[..<WeatherFrame.size], standard[...])
          != nil
          || ComposedFrameTests.firstDifference(cached.bytes[WeatherFrame.size...], large[...])
            != nil
        {
          result.differing += 1
        }
        result.largestSeries = max(
          result.largestSeries,
          desk.cache.series.withLock { $0[desk.cell(of: point)] }?.series.storedBytes ?? 0)
      }
    }
    result.callsPerCell =
      Double(service.cellsAsked.load(ordering: .relaxed) - firstDay) / Double(cells)
    return result
  }

  @Test func aCellIsFetchedOncePerRunNotOncePerTimeToLive() async {
    let ttlOnly = await day(models: []).callsPerCell
    let gated = await day(models: Self.schedules, sample: true)
    let twoModels = await day(models: [Self.schedules[0], Self.schedules[2]]).callsPerCell
    print(
      "simulated day, 100 cells asked every 15 min: \(ttlOnly) calls per cell with the TTL (600 s)"
        + " alone; \(gated.callsPerCell) under the runs of ICON-D2, ICON-EU and ECMWF IFS"
        + " (20 runs); \(twoModels) under ICON-D2 and ECMWF IFS (12 runs); free tiers (10,000"
        + " calls a day) for 900 cells: \(ttlOnly * 9 / 100), \(gated.callsPerCell * 9 / 100),"
        + " \(twoModels * 9 / 100); \(gated.sampled) sampled frames (standard and large),"
        + " \(gated.differing) differing from a fresh call's; largest series a cell kept:"
        + " \(gated.largestSeries) bytes")
    // Deterministic: exactly the runs; the frames move across the local midnight without a call.
    #expect(ttlOnly == 96)
    #expect(gated.callsPerCell == 20)
    #expect(twoModels == 12)
    #expect(gated.sampled == 96 * 10)
    #expect(gated.differing == 0)
    #expect(gated.largestSeries > 0 && gated.largestSeries <= 4_096)
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
