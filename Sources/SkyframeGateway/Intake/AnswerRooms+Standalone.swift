import Logging
import SkyframeProviders

extension AnswerRooms {
  /// The rooms on their own, around one weather service and no network: the cell cache and
  /// fetcher over `provider`, the resolver, the composer and the bounded queue, with no workers
  /// (`answerQueued` does their work). What the bench suite's request path and the testing
  /// module (`SkyframeGatewayTesting`) run.
  package static func standalone(
    configuration: GatewayConfiguration, provider: any WeatherProvider, clock: GatewayClock,
    metrics: GatewayMetrics = GatewayMetrics(), logger: Logger
  ) -> AnswerRooms {
    standalone(
      configuration: configuration, provider: provider, clock: clock, metrics: metrics,
      runs: nil, logger: logger)
  }

  /// The same, with the cells kept under the models' `runs` (the bench suite's request path).
  static func standalone(
    configuration: GatewayConfiguration, provider: any WeatherProvider, clock: GatewayClock,
    metrics: GatewayMetrics, runs: ModelRuns?, logger: Logger
  ) -> AnswerRooms {
    var settings = WeatherDesk.Settings(provider: provider, cache: configuration.cache)
    if let runs {
      settings.runs = runs
      settings.maximumAgeSeconds = Int64(configuration.runs.maximumAgeSeconds)
    }
    let desk = WeatherDesk(settings: settings, clock: clock, metrics: metrics, logger: logger)
    let resolver = Resolver(
      configuration: configuration, desk: desk, metrics: metrics, clock: clock,
      logLimiter: DeviceLogLimiter(capacity: configuration.requests.maximumDevices, clock: clock),
      logger: logger)
    return AnswerRooms(
      resolver: resolver, composer: Composer(configuration: configuration, clock: clock),
      queue: BoundedQueue(limit: configuration.requests.queueLimit), metrics: metrics,
      clock: clock, logger: logger)
  }

  /// Requests waiting for a worker.
  package var queued: Int { queue.depth }

  /// Answers every queued request as the workers would, each in a task of its own so that
  /// requests for one cell meet in its one fetch, and returns once all are answered and the
  /// queue is empty. For rooms without workers (`standalone`).
  package func answerQueued() async {
    while queue.depth > 0 {
      await withTaskGroup(of: Void.self) { group in
        while queue.depth > 0, let job = await queue.next() {
          group.addTask { await job.intake.answer(job) }
        }
      }
    }
  }

  /// A worker of the rooms: answers queued requests as they come, until its task is cancelled.
  package func work() async {
    while let job = await queue.next() { await job.intake.answer(job) }
  }
}
