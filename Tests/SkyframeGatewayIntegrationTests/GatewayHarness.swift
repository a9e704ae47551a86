import Foundation
import Logging
import ServiceLifecycle
import SkyframeAssembly
import SkyframeCodec
import SkyframeMQTT
import SkyframeProviders
import SkyframeTestSupport
import Synchronization
import Testing

@testable import SkyframeGateway

/// A gateway running in-process against a real mosquitto and a local HTTP server that answers in
/// Open-Meteo's shape. Tests switch how the "service" behaves through `mode`.
final class GatewayHarness: Sendable {
  enum Mode: Sendable {
    case normal
    case status(Int, String)
    case slow(Duration)
    case garbage
    case drop
    /// This answer, headers and all.
    case response(StubHTTPResponse)
    /// Every call waits until the test calls `release()`, then is answered normally.
    case held
    /// Whatever the closure answers to the request (it sees the headers too).
    case answer(@Sendable (StubHTTPRequest) -> StubHTTPResponse)
  }

  static let places = [
    OpenMeteoFixtures.Place(
      name: "Berlin", countryCode: "DE", latitude: 52.52437, longitude: 13.41053),
    OpenMeteoFixtures.Place(
      name: "Paris", countryCode: "FR", latitude: 48.85341, longitude: 2.3488),
    OpenMeteoFixtures.Place(
      name: "Rome", countryCode: "IT", latitude: 41.89193, longitude: 12.51133),
    OpenMeteoFixtures.Place(
      name: "Oslo", countryCode: "NO", latitude: 59.91273, longitude: 10.74609),
  ]

  /// How the stand-in weather service behaves, switchable while the gateway runs.
  final class Switch: Sendable {
    let mode = Mutex(Mode.normal)
    /// Which service `mode` applies to; nil: all of them.
    let failing = Mutex<ServiceFixtures.Service?>(nil)
    let temperature = Mutex(12.5)
    /// Calls waiting in `.held` mode, until `release()`; after it, none wait.
    let held = Mutex((released: false, waiting: [CheckedContinuation<Void, Never>]()))

    func hold() async {
      await withCheckedContinuation { continuation in
        let resumeNow = held.withLock { held in
          if !held.released { held.waiting.append(continuation) }
          return held.released
        }
        if resumeNow { continuation.resume() }
      }
    }

    func release() {
      let waiters = held.withLock { held in
        held.released = true
        defer { held.waiting = [] }
        return held.waiting
      }
      for waiter in waiters { waiter.resume() }
    }
  }

  /// Every log line the gateway writes at `logLevel` and above, as "level message metadata".
  final class LogLines: Sendable {
    let lines = Mutex<[String]>([])
    var all: [String] { lines.withLock { $0 } }
  }

  let logs = LogLines()

  let broker: MosquittoBroker
  let http: StubHTTPServer
  let service: Switch
  let group = Mutex<ServiceGroup?>(nil)
  let runner = Mutex<Task<Void, any Error>?>(nil)
  let clientID: String
  let configuration: GatewayConfiguration
  /// The gateway's clock: the system's, or a `ManualClock` a test advances.
  let clock: GatewayClock

  func set(_ mode: Mode, only failing: ServiceFixtures.Service? = nil) {
    service.failing.withLock { $0 = failing }
    service.mode.withLock { $0 = mode }
  }

  func calls(to service: ServiceFixtures.Service) -> Int {
    http.requests.filter { service.owns($0.path) }.count
  }

  /// The gateway asks `service` first, with keys and base URLs pointing at the stub.
  static func use(
    _ service: ServiceFixtures.Service, _ configuration: inout GatewayConfiguration, baseURL: String
  ) {
    configuration.services[OpenWeatherMapService.self].apiKey = "owm-test-key"
    configuration.services[OpenWeatherMapService.self].baseURL = baseURL
    configuration.services[WeatherAPIService.self].apiKey = "wapi-test-key"
    configuration.services[WeatherAPIService.self].baseURL = baseURL
    configuration.services[METNorwayService.self].userAgent = "skyframe-tests/1.0 tests@example.com"
    configuration.services[METNorwayService.self].baseURL = baseURL + METNorwayFixtures.basePath
    configuration.services[METNorwayService.self].geocodingURL = baseURL + "/v1/search"
    configuration.places.reverseGeocoding = .none
    // The fixtures' services are named as in the configuration.
    configuration.weather.service = service.rawValue
  }

  init(
    broker: MosquittoBroker, http: StubHTTPServer, service: Switch,
    configuration: GatewayConfiguration, clientID: String, clock: GatewayClock
  ) {
    self.clock = clock
    self.broker = broker
    self.http = http
    self.service = service
    self.configuration = configuration
    self.clientID = clientID
  }

  /// The system clock's pace from the start of a minute (the next one): a device's per-minute
  /// allowance then lasts a test's first 60 s however slow the machine, where the wall clock's
  /// minute can turn in the middle of a test that counts requests against it.
  static func minuteAlignedClock() -> GatewayClock {
    let next = Int64(Date().timeIntervalSince1970) / 60 * 60 + 60
    return GatewayClock(ContinuousClock(), unixTimeAtStart: next)
  }

  /// A frame waits this long for air quality and alerts in tests that expect them on the system
  /// clock: on a loaded machine (CI builds beside the tests) the stand-in's answer can take the
  /// 2 s default, and the field would be missing. The short wait itself is tested on the manual
  /// clock (`BreakerTests`); other tests keep the default, so their frames wait no longer.
  static func waitForSupplements(_ configuration: inout GatewayConfiguration) {
    configuration.airQuality.waitMilliseconds = 8_000
    configuration.alerts.nws.waitMilliseconds = 8_000
  }

  /// A named place at Berlin's coordinates, refreshed every minute.
  static let home = GatewayConfiguration.NamedLocation(
    name: "home", place: .coordinates(latitude: 52.52, longitude: 13.405), refreshSeconds: 60)

  /// Starts a broker and the stub service; the gateway starts with `start()`.
  static func make(
    broker existing: MosquittoBroker? = nil,
    service weatherService: ServiceFixtures.Service = .openMeteo, clock: GatewayClock = .system,
    adjust: (inout GatewayConfiguration) -> Void = { _ in }
  ) async throws -> GatewayHarness {
    let broker: MosquittoBroker
    if let existing { broker = existing } else { broker = try await MosquittoBroker.start() }
    let service = Switch()
    let http = try await StubHTTPServer.start { request in
      let scope = service.failing.withLock { $0 }
      let current =
        scope.map { $0.owns(request.path) } ?? true ? service.mode.withLock { $0 } : .normal
      switch current {
      case .normal: break
      case .status(let status, let body): return .json(body, status: status)
      case .slow(let delay):
        var response = StubHTTPResponse.json(
          OpenMeteoFixtures.forecast(
            query: request.query, temperature: 1, now: Int(clock.unixTime())))
        response.delay = delay
        return response
      case .garbage: return .json("<html>502 Bad Gateway</html>")
      case .drop: return StubHTTPResponse(status: 0, body: [], headers: [], delay: nil)
      case .response(let response): return response
      case .answer(let answer): return answer(request)
      case .held: await service.hold()
      }
      // Data as of the gateway's clock, which a test may have set apart from the wall clock: a
      // service's answer describes the present it is asked in.
      return ServiceFixtures.answer(
        request, places: places, temperature: service.temperature.withLock { $0 },
        now: Int(clock.unixTime()))
    }
    let clientID = "gw-\(UInt32.random(in: 0...UInt32.max))"
    var configuration = GatewayConfiguration()
    // The whole gateway, as `skyframe run` builds it.
    configuration.parts = PartKind.all
    configuration.mqtt.port = broker.port
    configuration.mqtt.clientID = clientID
    configuration.services[OpenMeteoService.self].forecastURL = http.baseURL + "/v1/forecast"
    configuration.services[OpenMeteoService.self].geocodingURL = http.baseURL + "/v1/search"
    configuration.airQuality.url = http.baseURL + "/v1/air-quality"
    // Read only when a test lists models (`runs.models`).
    configuration.runs.url = http.baseURL + "/model-runs"
    // Off until a test gives the NWS a User-Agent.
    configuration.alerts.nws.url = http.baseURL
    configuration.services[OpenMeteoService.self].timeoutSeconds = 2
    // Many gateways run in one test process: no metrics listener unless a test asks for one.
    configuration.metrics.port = 0
    use(weatherService, &configuration, baseURL: http.baseURL)
    adjust(&configuration)
    return GatewayHarness(
      broker: broker, http: http, service: service, configuration: configuration,
      clientID: clientID,
      clock: clock)
  }

  var forecastCalls: Int { http.requests.filter { $0.path.hasSuffix("/forecast") }.count }
  var airQualityCalls: Int { http.requests.filter { $0.path == "/v1/air-quality" }.count }
  var searchCalls: Int { http.requests.filter { $0.path.hasSuffix("/search") }.count }

  /// Releases the calls held in `.held` mode, and any made later.
  func release() { service.release() }

  func start(
    logLevel: Logger.Level = .warning,
    extraParts: [@Sendable (PartContext) -> (any GatewayPart)?] = []
  ) async throws {
    let logs = logs
    var logger = Logger(label: "gateway-test") { _ in CapturingLogHandler(lines: logs) }
    logger.logLevel = logLevel
    let configuration = configuration
    let clock = clock
    let task = Task {
      try await SkyframeApplication.run(
        configuration: configuration, configurationPath: nil, logger: logger, signals: false,
        clock: clock, extraParts: extraParts,
        started: { started in self.group.withLock { $0 = started } })
    }
    runner.withLock { $0 = task }
    // Online means subscribed: the gateway subscribes before it connects.
    let watcher = try await Device.connect(
      port: broker.port, id: "watch-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: [configuration.topics.state])
    _ = try await watcher.next(matching: {
      String(decoding: $0.payload, as: UTF8.self).contains("online")
    })
    await watcher.client.disconnect()
  }

  /// Graceful stop, as on SIGTERM.
  func stop() async throws {
    for _ in 0..<100 where group.withLock({ $0 }) == nil {
      try await Task.sleep(for: .milliseconds(20))
    }
    await group.withLock { $0 }?.triggerGracefulShutdown()
    try await runner.withLock { $0 }?.value
    group.withLock { $0 = nil }
  }

  func shutdown() async {
    try? await stop()
    try? await http.stop()
    await broker.stop()
  }
}

/// A display: subscribes to its frame topic and publishes requests. Messages collect in a
/// mailbox that `next` takes from, so waiting with a timeout never ends the subscription.
final class Device: Sendable {
  let id: String
  let mailbox: MQTTMailbox
  var client: MQTTClient { mailbox.client }

  private init(id: String, mailbox: MQTTMailbox) {
    self.id = id
    self.mailbox = mailbox
  }

  static func connect(
    port: Int, id: String, subscribe: [String] = [],
    version: MQTTConfiguration.ProtocolVersion = .v5
  ) async throws -> Device {
    Device(
      id: id,
      mailbox: try await MQTTMailbox.connect(
        port: port, id: id, subscribe: subscribe, version: version))
  }

  static func frames(port: Int, id: String = "dev-\(UInt32.random(in: 0...UInt32.max))")
    async throws -> Device
  {
    try await connect(port: port, id: id, subscribe: ["skyframe/v1/frame/\(id)"])
  }

  func ask(_ text: String, qos: Int = 1) throws {
    try client.publish("skyframe/v1/req/\(id)", payload: Array(text.utf8), qos: qos)
  }

  /// Takes the first message for which `matching` holds, waiting up to `timeout`. The default is
  /// long (30 s): it is spent only when a test fails, and a loaded machine has needed over 10 s
  /// for a member's start and first answer. A test that expects nothing says so with a bound.
  func next(
    timeout: Duration = .seconds(30), file: String = #fileID, line: Int = #line,
    matching: (MQTTMessage) -> Bool = { _ in true }
  ) async throws -> MQTTMessage {
    try await mailbox.next(timeout: timeout, file: file, line: line, matching: matching)
  }

  /// The next `count` frames on the device's own topic, decoded, in arrival order.
  func frames(
    _ count: Int, timeout: Duration = .seconds(30), file: String = #fileID, line: Int = #line
  ) async throws -> [WeatherFrame] {
    var frames: [WeatherFrame] = []
    while frames.count < count {
      let message = try await next(timeout: timeout, file: file, line: line) {
        $0.topic == "skyframe/v1/frame/\(self.id)"
      }
      frames.append(try WeatherFrame(decoding: message.payload))
    }
    return frames
  }

  /// Nothing more arrives on the device's own topic within `time`.
  func expectSilence(for time: Duration = .milliseconds(500)) async throws -> Bool {
    (try? await next(timeout: time) { $0.topic == "skyframe/v1/frame/\(self.id)" }) == nil
  }
}

/// Keeps each line in `lines` and, from warning up, also prints it, as the default handler would.
struct CapturingLogHandler: LogHandler {
  let lines: GatewayHarness.LogLines
  var logLevel: Logger.Level = .warning
  var metadata: Logger.Metadata = [:]

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let merged = metadata.merging(event.metadata ?? [:]) { $1 }
    let text =
      "\(event.level) \(event.message)"
      + merged.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
    lines.lines.withLock { $0.append(text) }
    if event.level >= .warning { print(text) }
  }
}
