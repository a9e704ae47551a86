import ServiceLifecycle
import Synchronization

/// Work that outlives the call that starts it: an upstream fetch a request stopped waiting for at
/// its deadline, a fetch another cluster member asked for. It runs in this Service's task group,
/// not in loose tasks, so a graceful shutdown waits for it (each job is an upstream call, bounded
/// by its timeout). At most `limit` jobs are queued or running (`requests.queue-limit` at start); past it,
/// and once the service has stopped, `start` refuses and the caller does the work itself.
package final class BackgroundWork: Service, Sendable {
  package typealias Job = @Sendable () async -> Void

  private let jobs: AsyncStream<Job>
  private let intake: AsyncStream<Job>.Continuation
  private let limit: Int
  private let inFlight = Atomic<Int>(0)

  package init(limit: Int) {
    self.limit = max(limit, 1)
    (jobs, intake) = AsyncStream.makeStream()
  }

  /// Jobs queued or running now.
  package var count: Int { inFlight.load(ordering: .relaxed) }

  /// Starts `job` in the group (queued until the service runs); false when `limit` jobs are
  /// already under way or the service has stopped taking work, and the caller runs it itself.
  package func start(_ job: @escaping Job) -> Bool {
    guard inFlight.add(1, ordering: .relaxed).newValue <= limit else {
      inFlight.subtract(1, ordering: .relaxed)
      return false
    }
    let counted: Job = { [self] in
      await job()
      inFlight.subtract(1, ordering: .relaxed)
    }
    if case .enqueued = intake.yield(counted) { return true }
    inFlight.subtract(1, ordering: .relaxed)
    return false
  }

  package func run() async {
    await withGracefulShutdownHandler {
      await withDiscardingTaskGroup { group in
        // After `finish()` the stream still hands out what was queued before it ends.
        for await job in jobs { group.addTask { await job() } }
      }
    } onGracefulShutdown: {
      self.intake.finish()
    }
  }
}
