import ServiceLifecycle
import Synchronization

/// Work that outlives the call that starts it: an upstream fetch a request stopped waiting for at
/// its deadline, a fetch another cluster member asked for. It runs in this Service's task group,
/// not in loose tasks, so a graceful shutdown waits for it (each job is an upstream call, bounded
/// by its timeout). Bounded by its callers: the request workers and schedules (`Coalescer` starts
/// one job per key at a time) and `ClusterRole`'s limit on fetches asked for by other members.
final class BackgroundWork: Service, Sendable {
  typealias Job = @Sendable () async -> Void

  private let jobs: AsyncStream<Job>
  private let intake: AsyncStream<Job>.Continuation

  init() {
    (jobs, intake) = AsyncStream.makeStream()
  }

  /// Starts `job` in the group (queued until the service runs); false once the service has
  /// stopped taking work, and the caller runs it itself.
  func start(_ job: @escaping Job) -> Bool {
    if case .enqueued = intake.yield(job) { return true }
    return false
  }

  func run() async {
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
