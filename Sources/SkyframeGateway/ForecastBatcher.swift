import SkyframeProviders
import SkyframeWeather
import Synchronization

/// Forecasts for cells that miss the cache within a short window, fetched together from services
/// that take several points in one call (Open-Meteo): N cells cost ⌈N / batch size⌉ calls
/// instead of N.
final class ForecastBatcher: Sendable {
  let provider: any WeatherProvider
  private let batcher: PointBatcher<Forecast>

  init(provider: any WeatherProvider, window: Duration, clock: GatewayClock = .system) {
    self.provider = provider
    batcher = PointBatcher(
      maximumBatchSize: provider.maximumBatchSize, window: window, clock: clock
    ) {
      points async throws(ProviderError) in try await provider.forecasts(for: points)
    }
  }

  func forecast(at point: GeoPoint) async -> Result<Forecast, ProviderError> {
    await batcher.value(at: point)
  }
}

/// Collects the points asked for within `window` and fetches them in calls of at most
/// `maximumBatchSize` points; each caller gets its own point's value (or the call's error).
final class PointBatcher<Value: Sendable>: Sendable {
  typealias Answer = Result<Value, ProviderError>
  typealias Fetch = @Sendable ([GeoPoint]) async throws(ProviderError) -> [Value]

  private struct Waiter {
    var point: GeoPoint
    var priority: UpstreamPriority
    var continuation: CheckedContinuation<Answer, Never>
  }

  private let maximumBatchSize: Int
  private let window: Duration
  private let clock: GatewayClock
  private let fetch: Fetch
  private let pending = Mutex<[Waiter]>([])

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
    return await withCheckedContinuation { continuation in
      let opensBatch = pending.withLock { pending in
        pending.append(
          Waiter(point: point, priority: UpstreamPriority.current, continuation: continuation))
        return pending.count == 1
      }
      if opensBatch {
        Task {
          try? await clock.sleep(for: window)
          await flush()
        }
      }
    }
  }

  private func flush() async {
    let waiters = pending.withLock { pending in
      defer { pending.removeAll() }
      return pending
    }
    await withDiscardingTaskGroup { group in
      for start in stride(from: 0, to: waiters.count, by: maximumBatchSize) {
        let chunk = Array(waiters[start..<min(start + maximumBatchSize, waiters.count)])
        // A batch that carries a scheduled refresh spends the budget as one.
        let priority: UpstreamPriority =
          chunk.contains { $0.priority == .scheduled } ? .scheduled : .device
        group.addTask {
          let answers = await UpstreamPriority.$current.withValue(priority) {
            await Self.fetch(chunk.map(\.point), with: self.fetch)
          }
          for (waiter, answer) in zip(chunk, answers) {
            waiter.continuation.resume(returning: answer)
          }
        }
      }
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
