import SkyframeProviders
import SkyframeWeather
import Synchronization

/// Collects the cells that miss the cache within a short window and fetches them together, for
/// services that take several points in one call (Open-Meteo): N cells cost ⌈N / batch size⌉
/// calls instead of N.
final class ForecastBatcher: Sendable {
  typealias Answer = Result<Forecast, ProviderError>

  private struct Waiter {
    var point: GeoPoint
    var priority: UpstreamPriority
    var continuation: CheckedContinuation<Answer, Never>
  }

  let provider: any WeatherProvider
  private let window: Duration
  private let pending = Mutex<[Waiter]>([])

  init(provider: any WeatherProvider, window: Duration) {
    self.provider = provider
    self.window = window
  }

  func forecast(at point: GeoPoint) async -> Answer {
    guard window > .zero, provider.maximumBatchSize > 1 else {
      return await Self.fetch([point], from: provider)[0]
    }
    return await withCheckedContinuation { continuation in
      let opensBatch = pending.withLock { pending in
        pending.append(
          Waiter(point: point, priority: UpstreamPriority.current, continuation: continuation))
        return pending.count == 1
      }
      if opensBatch {
        Task {
          try? await Task.sleep(for: window)
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
    let size = max(provider.maximumBatchSize, 1)
    await withDiscardingTaskGroup { group in
      for start in stride(from: 0, to: waiters.count, by: size) {
        let chunk = Array(waiters[start..<min(start + size, waiters.count)])
        // A batch that carries a scheduled refresh spends the budget as one.
        let priority: UpstreamPriority =
          chunk.contains { $0.priority == .scheduled } ? .scheduled : .device
        group.addTask {
          let answers = await UpstreamPriority.$current.withValue(priority) {
            await Self.fetch(chunk.map(\.point), from: self.provider)
          }
          for (waiter, answer) in zip(chunk, answers) {
            waiter.continuation.resume(returning: answer)
          }
        }
      }
    }
  }

  /// One answer per point, in order: the forecasts, or the one failure for all of them.
  private static func fetch(_ points: [GeoPoint], from provider: any WeatherProvider) async
    -> [Answer]
  {
    do throws(ProviderError) {
      let forecasts = try await provider.forecasts(for: points)
      guard forecasts.count == points.count else {
        let failure = ProviderError.malformed(
          "\(forecasts.count) forecasts for \(points.count) points")
        return points.map { _ in .failure(failure) }
      }
      return forecasts.map { .success($0) }
    } catch {
      return points.map { _ in .failure(error) }
    }
  }
}
