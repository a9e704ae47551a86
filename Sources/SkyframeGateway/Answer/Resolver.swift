import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// Who a place is resolved for: a device, whose new cells count against the limits of the way it
/// came in by, or a schedule (watches, named places), which may always fetch.
package enum Requester: Sendable {
  case device(String, any NewCellAccount)
  case scheduled
}

/// Where a way in keeps its devices' new-cell allowance (`upstream.new-cells-per-device-per-
/// minute`) and hears of a device refused for it.
package protocol NewCellAccount: Sendable {
  func takeNewCell(_ device: String, minute: Int64, perMinute: Int) -> Bool
  func hasSpentNewCells(_ device: String, minute: Int64, perMinute: Int) -> Bool
  /// A device's request was refused for a new cell past the limits.
  func refusedNewCell(_ device: String)
}

/// Places to outcomes: from the caches alone on the network thread (`resolveNow`), or through
/// the desk's bounded fetches (`resolve`). It knows nothing of transports: every way in (MQTT
/// requests, LoRaWAN uplinks, schedules) shares the one resolver and its limits.
package final class Resolver: Sendable {
  private struct Settings: Sendable {
    var newCellsPerMinute: Int
    var newCellsPerDevicePerMinute: Int

    init(_ configuration: GatewayConfiguration) {
      newCellsPerMinute = configuration.upstream.newCellsPerMinute
      newCellsPerDevicePerMinute = configuration.upstream.newCellsPerDevicePerMinute
    }
  }

  let desk: WeatherDesk
  private let settings: Mutex<Settings>
  /// The gateway-wide new-cell allowance, shared by every way in.
  private let newCells = NewCellAdmission()
  private let metrics: GatewayMetrics
  private let clock: GatewayClock
  private let logger: Logger
  package let logLimiter: DeviceLogLimiter

  init(
    configuration: GatewayConfiguration, desk: WeatherDesk, metrics: GatewayMetrics,
    clock: GatewayClock, logLimiter: DeviceLogLimiter, logger: Logger
  ) {
    self.desk = desk
    settings = Mutex(Settings(configuration))
    self.metrics = metrics
    self.clock = clock
    self.logLimiter = logLimiter
    self.logger = logger
  }

  func update(_ configuration: GatewayConfiguration) {
    settings.withLock { $0 = Settings(configuration) }
  }

  /// Every place at once; the outcomes keep the request's order. A place whose fetch is still
  /// running at `deadline` is answered `stale` if the cache has a frame for it. With `needs` naming
  /// `large`, the weather outcomes hold the large frame (`WeatherDesk.frame(at:answerBy:needs:)`).
  func resolve(
    _ places: LocationList, for requester: Requester,
    answerBy deadline: Duration? = nil, needs: ProfileSet = .standard
  ) async -> [Outcome] {
    if places.count == 1 {
      return [await resolve(places[0], for: requester, answerBy: deadline, needs: needs)]
    }
    return await withTaskGroup(of: (Int, Outcome).self) { group in
      for (index, query) in places.enumerated() {
        group.addTask {
          (index, await self.resolve(query, for: requester, answerBy: deadline, needs: needs))
        }
      }
      var outcomes = [Outcome?](repeating: nil, count: places.count)
      for await (index, outcome) in group { outcomes[index] = outcome }
      return outcomes.map { $0! }
    }
  }

  /// The outcome from the caches alone, without waiting; nil when a place or its weather is not
  /// cached (or is expired).
  package func resolveNow(_ query: LocationQuery, needs: ProfileSet = .standard, time: Int64? = nil)
    -> Outcome?
  {
    let place: ResolvedPlace
    switch query {
    case .coordinates(let coordinates):
      // The common case: name and frame with one read of the desk's settings.
      let cached = desk.cachedPosition(at: coordinates.point, needs: needs, time: time)
      guard case .known(let named) = cached.name, let frame = cached.frame else { return nil }
      return .weather(
        frame, stale: false, place: ResolvedPlace(coordinates: coordinates, named: named))
    case .place(let name, let country):
      guard
        case .known(let found) = desk.cachedPlace(named: name.string, countryCode: country?.string)
      else { return nil }
      guard let found else { return .failure(.notFound, name: FrameName(truncating: name.string)) }
      place = ResolvedPlace(found: found)
    }
    guard let frame = desk.cachedFrame(at: place.point, needs: needs, time: time) else {
      return nil
    }
    return .weather(frame, stale: false, place: place)
  }

  package func resolve(
    _ query: LocationQuery, for requester: Requester,
    answerBy deadline: Duration? = nil, needs: ProfileSet = .standard
  ) async -> Outcome {
    if let outcome = resolveNow(query, needs: needs) {
      metrics.cacheHit()
      return outcome
    }
    // Whoever it is for decides which part of the budget its upstream calls may spend.
    let priority: UpstreamPriority = if case .scheduled = requester { .scheduled } else { .device }
    return await UpstreamPriority.$current.withValue(priority) {
      await fetch(query, for: requester, answerBy: deadline, needs: needs)
    }
  }

  /// The part of `resolve` that may call upstream: names, then weather.
  private func fetch(
    _ query: LocationQuery, for requester: Requester, answerBy deadline: Duration?,
    needs: ProfileSet
  ) async -> Outcome {
    let place: ResolvedPlace
    switch query {
    case .coordinates(let coordinates):
      place = ResolvedPlace(
        coordinates: coordinates, named: await desk.placeName(at: coordinates.point))
    case .place(let name, let country):
      let cached = desk.cachedPlace(named: name.string, countryCode: country?.string)
      if case .unknown = cached, !admitNew(for: requester) {
        return .failure(.rateLimited, name: FrameName(truncating: name.string))
      }
      switch await desk.place(named: name.string, countryCode: country?.string) {
      case .success(let found?):
        place = ResolvedPlace(found: found)
      case .success(nil):
        return .failure(.notFound, name: FrameName(truncating: name.string))
      case .failure(let error):
        return .failure(
          Self.status(of: error, geocoding: true), name: FrameName(truncating: name.string),
          retryAfter: Self.retryAfter(error))
      }
    }
    if !desk.hasFrame(at: place.point), !admitNew(for: requester) {
      return .failure(.rateLimited, name: place.name)
    }
    metrics.cacheMiss()
    switch await desk.frame(at: place.point, answerBy: deadline, needs: needs) {
    case .fresh(let frame): return .weather(frame, stale: false, place: place)
    case .stale(let frame):
      metrics.servedStale()
      return .weather(frame, stale: true, place: place)
    case .failed(let error):
      return .failure(
        Self.status(of: error, geocoding: false), name: place.name,
        retryAfter: Self.retryAfter(error))
    }
  }

  /// A request for one position in a cell the gateway has never fetched, while the new-cell
  /// limits (everyone's or the device's) are spent for this minute: a worker would answer it
  /// `rate_limited` without a call, so it is answered now, on the network thread, without a hop.
  /// Spent stays spent until the minute turns, so the answer is the one the worker would give.
  func refusedAsNew(
    _ places: borrowing LocationList, from device: String, account: some NewCellAccount
  ) -> Outcome? {
    guard places.count == 1, case .coordinates(let coordinates) = places[0],
      !desk.hasFrame(at: coordinates.point)
    else { return nil }
    let minute = clock.unixTime() / 60
    let (perDevice, perMinute) = settings.withLock {
      ($0.newCellsPerDevicePerMinute, $0.newCellsPerMinute)
    }
    guard
      newCells.isSpent(minute: minute, perMinute: perMinute)
        || account.hasSpentNewCells(device, minute: minute, perMinute: perDevice)
    else { return nil }
    metrics.refusedNewCell()
    DeviceLog(logger: logger, device: device, limiter: logLimiter).info(
      "new-cell limit reached: rate_limited, nothing sent upstream")
    let named: Forecast.Place? =
      if case .known(let place) = desk.cachedPlaceName(at: coordinates.point) { place } else { nil }
    return .failure(
      .rateLimited, name: ResolvedPlace(coordinates: coordinates, named: named).name)
  }

  /// Whether `requester` may make the gateway fetch something it has never fetched: always for a
  /// schedule; for a device within the new-cell limits (its own and everyone's).
  private func admitNew(for requester: Requester) -> Bool {
    guard case .device(let device, let account) = requester else { return true }
    let settings = settings.withLock { $0 }
    let minute = clock.unixTime() / 60
    guard
      account.takeNewCell(device, minute: minute, perMinute: settings.newCellsPerDevicePerMinute),
      newCells.take(minute: minute, perMinute: settings.newCellsPerMinute)
    else {
      metrics.refusedNewCell()
      account.refusedNewCell(device)
      DeviceLog(logger: logger, device: device, limiter: logLimiter).info(
        "new-cell limit reached: rate_limited, nothing sent upstream")
      return false
    }
    return true
  }

  /// How a failing weather service shows on the device.
  static func status(of error: ProviderError, geocoding: Bool) -> FrameStatus {
    switch error {
    case .rateLimited, .paused(_, .rateLimited, _): .rateLimited
    case .paused(_, .unauthorized, _): .internalError
    case .unavailable, .malformed, .outdated, .paused: .upstreamUnavailable
    // The device's request was valid; a refused upstream call is the gateway's (or its
    // configuration's) fault, except a geocoding refusal, which is about the name asked for.
    case .rejected: geocoding ? .badRequest : .internalError
    case .unauthorized: .internalError
    }
  }

  /// Seconds until the service may be asked again, when the error says: the rest of a pause, or
  /// a 429's `Retry-After`.
  static func retryAfter(_ error: ProviderError) -> Int? {
    switch error {
    case .paused(_, _, let seconds): seconds
    case .rateLimited(_, let seconds): seconds
    default: nil
    }
  }
}
