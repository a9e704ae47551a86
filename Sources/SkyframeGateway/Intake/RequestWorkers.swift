import ServiceLifecycle

/// A fixed number of workers answering the requests that wait in the bounded queue, oldest first:
/// those whose places need an upstream call or a name look-up. On graceful shutdown the queue
/// takes no more requests, and the workers finish the ones already in it before they stop.
final class RequestWorkers: Service, Sendable {
  private let queue: BoundedQueue<DeviceIntake.Job>
  private let count: Int

  /// Every way in's requests wait in the one queue; each job names its intake.
  init(queue: BoundedQueue<DeviceIntake.Job>, count: Int) {
    self.queue = queue
    self.count = max(count, 1)
  }

  func run() async {
    await withGracefulShutdownHandler {
      await withDiscardingTaskGroup { group in
        for _ in 0..<count {
          group.addTask { [queue] in
            while let job = await queue.next() { await job.intake.answer(job) }
          }
        }
      }
    } onGracefulShutdown: {
      self.queue.finish()
    }
  }
}
