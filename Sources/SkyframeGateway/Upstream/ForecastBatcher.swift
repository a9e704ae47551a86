import SkyframeProviders
import SkyframeWeather
import Synchronization

/// Forecasts for cells that miss the cache within a short window, fetched together from services
/// that take several points in one call (Open-Meteo): N cells cost ⌈N / batch size⌉ calls
/// instead of N.
final class ForecastBatcher: Sendable {
  let provider: any WeatherProvider
  private let batcher: PointBatcher<Forecast>
  /// Whether the service's breaker refuses calls now: then no call can go out, and waiting for
  /// the batch window would only delay the refusal.
  private let refusingCalls: @Sendable () -> Bool

  init(
    provider: any WeatherProvider, window: Duration, clock: GatewayClock = .system,
    refusingCalls: @escaping @Sendable () -> Bool = { false }
  ) {
    self.provider = provider
    self.refusingCalls = refusingCalls
    batcher = PointBatcher(
      maximumBatchSize: provider.maximumBatchSize, window: window, clock: clock
    ) {
      points async throws(ProviderError) in try await provider.forecasts(for: points)
    }
  }

  func forecast(at point: GeoPoint) async -> Result<Forecast, ProviderError> {
    // While the service's breaker refuses calls no call goes out: its refusal now (and the
    // answer `stale` from the cache at once), not after the batch window.
    if refusingCalls() {
      do throws(ProviderError) {
        guard let forecast = try await provider.forecasts(for: [point]).first else {
          return .failure(.malformed("no forecast for the point asked"))
        }
        return .success(forecast)
      } catch {
        return .failure(error)
      }
    }
    return await batcher.value(at: point)
  }
}

/// Collects the points asked for within `window` and fetches them in calls of at most
/// `maximumBatchSize` points; each caller gets its own point's value (or the call's error). The
/// first caller of a window waits it out and makes the calls, in its own task: no task outlives
/// the callers.
final class PointBatcher<Value: Sendable>: Sendable {
  typealias Answer = Result<Value, ProviderError>
  typealias Fetch = @Sendable ([GeoPoint]) async throws(ProviderError) -> [Value]

  private struct Waiter {
    var point: GeoPoint
    var priority: UpstreamPriority
    /// nil for the caller who opened the window: its answer is returned, not resumed.
    var continuation: CheckedContinuation<Answer?, Never>?
  }

  private struct Window {
    var isOpen = false
    var waiters: [Waiter] = []
  }

  private let maximumBatchSize: Int
  private let window: Duration
  private let clock: GatewayClock
  private let fetch: Fetch
  private let pending = Mutex(Window())

  init(
    maximumBatchSize: Int, window: Duration, clock: GatewayClock = .system,
    fetch: @escaping Fetch
  ) {
    self.maximumBatchSize = max(maximumBatchSize, 1)
    self.window = window
    self.clock = clock
    self.fetch = fetch
  }

  /// The value for `point`, fetched alone when batching is off, else with whatever else is asked
  /// for within the window.
  func value(at point: GeoPoint) async -> Answer {
    guard window > .zero, maximumBatchSize > 1 else {
      return await Self.fetch([point], with: fetch)[0]
    }
    let priority = UpstreamPriority.current
    // A caller that finds a window open joins it and is resumed with its answer; the first one
    // (resumed at once with nil) opens it.
    let joined: Answer? = await withCheckedContinuation { continuation in
      let opens = pending.withLock { window in
        guard window.isOpen else {
          window.isOpen = true
          return true
        }
        window.waiters.append(
          Waiter(point: point, priority: priority, continuation: continuation))
        return false
      }
      if opens { continuation.resume(returning: nil) }
    }
    if let joined { return joined }
    try? await clock.sleep(for: window)
    let waiters = pending.withLock { window in
      defer { window = Window() }
      return window.waiters
    }
    let opener = Waiter(point: point, priority: priority, continuation: nil)
    return await flush([opener] + waiters)
  }

  /// Fetches `waiters`' points in calls of at most `maximumBatchSize`, resumes each waiter with
  /// its answer, and returns the opener's (the first waiter, without a continuation).
  private func flush(_ waiters: [Waiter]) async -> Answer {
    await withTaskGroup(of: Answer?.self) { group in
      for start in stride(from: 0, to: waiters.count, by: maximumBatchSize) {
        let chunk = Array(waiters[start..<min(start + maximumBatchSize, waiters.count)])
        // A batch that carries a scheduled refresh spends the budget as one.
        let priority: UpstreamPriority =
          chunk.contains { $0.priority == .scheduled } ? .scheduled : .device
        group.addTask {
          let answers = await UpstreamPriority.$current.withValue(priority) {
            await Self.fetch(chunk.map(\.point), with: self.fetch)
          }
          var own: Answer?
          for (waiter, answer) in zip(chunk, answers) {
            if let continuation = waiter.continuation {
              continuation.resume(returning: answer)
            } else {
              own = answer
            }
          }
          return own
        }
      }
      var own: Answer?
      for await answer in group where answer != nil { own = answer }
      // The opener's point is in the first chunk, so this is always set.
      return own ?? .failure(.malformed("no answer for the batch's first point"))
    }
  }

  private static func fetch(_ points: [GeoPoint], with fetch: Fetch) async -> [Answer] {
    do throws(ProviderError) {
      let values = try await fetch(points)
      guard values.count == points.count else {
        let failure = ProviderError.malformed("\(values.count) answers for \(points.count) points")
        return points.map { _ in .failure(failure) }
      }
      return values.map { .success($0) }
    } catch {
      return points.map { _ in .failure(error) }
    }
  }
}
