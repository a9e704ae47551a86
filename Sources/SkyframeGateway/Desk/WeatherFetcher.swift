import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather

/// Fetches a cell upstream: the weather services in fallback order, the supplements beside the
/// forecast, and, for Open-Meteo under the models' runs, the data its frames are composed from as
/// the clock moves. What it fetched goes into the cell cache before it returns.
struct WeatherFetcher: Sendable {
  let cache: CellCache
  let clock: GatewayClock
  let logger: Logger

  /// The cell's entry with every frame `needs` names. The next service is tried when one is
  /// unavailable, rate limited, over its budget or refuses the key; the first service's error is
  /// the one reported.
  func fetch(_ cell: WeatherDesk.Cell, needs: ProfileSet, with settings: WeatherDesk.Settings)
    async -> Result<FetchedCell, ProviderError>
  {
    let freshness = settings.freshness
    let center = settings.center(of: cell)
    // Under the models' runs, a frame holds every run usable when its call went out.
    let began = clock.unixTime()
    let newestRun = settings.runs?.newestRun()
    // Another caller may have filled the cell while this one waited to start.
    let previous = cache.peek(cell)
    if let previous, previous.isFresh(at: began, freshness),
      let current = cache.current(previous, in: cell, at: began, needs: needs)
    {
      return .success(FetchedCell(entry: current, series: nil, isNew: false))
    }
    // Once a cell was asked for in the large profile, every later fetch keeps its large frame.
    let holds = needs.union(previous?.holds ?? .standard)
    // Side by side with the forecast, each from its own cache, budget and breaker.
    async let amendments = SupplementRegistry.amendments(
      of: settings.supplements, for: cell, at: center)
    var firstError: ProviderError?
    for batcher in settings.services {
      // Failed calls are logged where they are made (`UpstreamGuard`), once per call.
      switch await batcher.forecast(at: center) {
      case .success(let forecast):
        var supplemented = SupplementedForecast(forecast: forecast)
        for amend in await amendments { amend(&supplemented) }
        return compose(
          supplemented, service: batcher.provider.service, cell: cell, holds: holds,
          began: began, newestRun: newestRun, settings)
      case .failure(let error):
        if firstError == nil { firstError = error }
        if case .rejected = error { return .failure(firstError ?? error) }
      }
    }
    return .failure(firstError ?? .unavailable("no weather service configured"))
  }

  /// The cell's entry compacted from `supplemented`, stored in the cache.
  private func compose(
    _ supplemented: SupplementedForecast, service: WeatherService, cell: WeatherDesk.Cell,
    holds: ProfileSet, began: Int64, newestRun: Int64?, _ settings: WeatherDesk.Settings
  ) -> Result<FetchedCell, ProviderError> {
    let forecast = supplemented.forecast
    let fetchedAt = clock.unixTime()
    var frame = forecast.frame(fetchedAt: fetchedAt, service: service)
    frame.airQuality = supplemented.airQuality
    // Compaction clamps every value into range, so this only fails on a bug: say so loudly.
    guard let bytes = try? frame.encoded() else {
      logger.error(
        "a compacted forecast did not encode", metadata: ["cell": "\(cell.row),\(cell.column)"])
      return .failure(.malformed("the forecast could not be encoded"))
    }
    let largeFrame =
      holds.contains(.large)
      ? (try? forecast.largeFrame(standard: bytes, fetchedAt: fetchedAt)) ?? [] : []
    var entry = WeatherDesk.CachedFrame(
      bytes: bytes + largeFrame, fetchedAt: fetchedAt, validUntil: forecast.validUntil)
    var composer: FrameSeries?
    // Open-Meteo's cells follow the models' runs when they are configured (a run that became
    // usable during the call makes the frame old at once: the conservative side).
    let freshness = settings.freshness
    if let runs = settings.runs, service == .openMeteo, freshness.gate != ModelRuns.off {
      entry.fetchBegan = began
      entry.runStartedAt = newestRun ?? 0
      // With the call's data in 15-minute steps the frames move with the clock, across the local
      // midnight, as long as the data reaches; without, they are as at the call and kept no later
      // than the local midnight (day 0 would be yesterday).
      let series = ForecastSeries(forecast, fetchedAt: fetchedAt)
      if let series {
        entry.recomposeAt = series.nextChange(after: fetchedAt)
        entry.seriesGeneration = cache.nextSeriesGeneration()
        composer = FrameSeries(
          series, service: service, airQuality: frame.airQuality, fetchedAt: fetchedAt,
          generation: entry.seriesGeneration)
      }
      entry.keepUntil = min(
        fetchedAt + settings.maximumAgeSeconds,
        series?.coveredUntil
          ?? WeatherDesk.localMidnight(after: fetchedAt, offsetMinutes: frame.utcOffsetMinutes))
      entry.expectedUntil = min(entry.keepUntil, runs.expectedNext() ?? entry.keepUntil)
      entry.savedFrom = fetchedAt + freshness.ttl
    }
    cache.store(entry, series: composer, for: cell)
    return .success(FetchedCell(entry: entry, series: composer, isNew: true))
  }
}
