import AsyncHTTPClient
import Logging
import SkyframeMQTT
import SkyframeProviders

/// The gateway's request path with the network cut off at both ends: a request message in, its
/// frames handed to `sink`. What the bench suite measures for a cache hit: exactly what runs on
/// the MQTT network thread; a miss is answered by a worker's code, as in the gateway.
public final class RequestPath: Sendable {
  let intake: MQTTIntake
  private let router: Router
  private let queue: BoundedQueue<DeviceIntake.Job>

  /// - Parameter modelRun: with a run (its start and when it became available), the cells are
  ///   kept under the models' runs, one model having published that run, and their frames are
  ///   composed from the call's data (`runs`).
  public init(
    configuration: GatewayConfiguration, provider: any WeatherProvider, sink: any FrameSink,
    logger: Logger, clock: GatewayClock,
    modelRun: (initialisation: Int64, availability: Int64)? = nil
  ) {
    let metrics = GatewayMetrics()
    var runs: ModelRuns?
    if let modelRun {
      var runsSettings = configuration.runs
      runsSettings.models = ["bench"]
      let made = ModelRuns(
        settings: runsSettings, httpClient: .shared, clock: clock, logger: logger)
      let now = clock.unixTime()
      made.record(
        "bench",
        .success(
          OpenMeteoModelRun(
            initialisation: modelRun.initialisation, availability: modelRun.availability,
            updateInterval: 10_800)), at: now)
      made.recompute(at: now)
      runs = made
    }
    let rooms = AnswerRooms.standalone(
      configuration: configuration, provider: provider, clock: clock, metrics: metrics,
      runs: runs, logger: logger)
    queue = rooms.queue
    let outbox = MQTTOutbox(
      configuration: configuration, composer: rooms.composer, sinks: [sink], metrics: metrics)
    intake = MQTTIntake(configuration: configuration, rooms: rooms, outbox: outbox)
    router = Router(topics: configuration.topics)
  }

  public func handle(_ message: MQTTMessage) async {
    guard case .request(let device) = router.route(message.topic) else { return }
    MQTTIncoming.with(message) { intake.receive($0, from: device) }
    while queue.depth > 0, let job = await queue.next() {
      await job.intake.answer(job)
    }
  }
}
