import ServiceLifecycle

/// A fixed number of workers answering the requests that wait in the bounded queue, oldest first:
/// those whose places need an upstream call or a name look-up. On graceful shutdown the queue
/// takes no more requests, and the workers finish the ones already in it before they stop.
final class RequestWorkers: Service, Sendable {
  private let queue: BoundedQueue<MQTTIntake.Job>
  private let intake: MQTTIntake
  private let count: Int

  init(queue: BoundedQueue<MQTTIntake.Job>, intake: MQTTIntake, count: Int) {
    self.queue = queue
    self.intake = intake
    self.count = max(count, 1)
  }

  func run() async {
    await withGracefulShutdownHandler {
      await withDiscardingTaskGroup { group in
        for _ in 0..<count {
          group.addTask { [queue, intake] in
            while let job = await queue.next() { await intake.answer(job) }
          }
        }
      }
    } onGracefulShutdown: {
      self.queue.finish()
    }
  }
}
