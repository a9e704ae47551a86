import Foundation
import Logging
import SkyframeCodec
import SkyframeMQTT
import SkyframeTestSupport
import Synchronization
import Testing

/// `skyframe run` and friends as separate processes: configuration from a file and the
/// environment, signals, and the last will when the process dies.
@Suite(.serialized) struct GatewayProcessTests {
  static let badConfiguration = """
    mqtt:
      port: 70000
      protocol: "4"
    cache:
      ttl-seconds: soon
    open-meteo:
      forecast-url: ftp://example.org/forecast
    locations:
      names: [Berlin, ok-place]
      ok-place:
        latitude: 52.5
    """

  func write(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-\(UUID().uuidString).yaml")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  @Test func configCheckPrintsTheResolvedConfigurationWithSecretsRedacted() async throws {
    let example = Tool.root.appendingPathComponent("config/skyframe.example.yaml").path
    var environment = ProcessInfo.processInfo.environment
    environment["SKYFRAME_MQTT_PASSWORD"] = "hunter2"
    environment["SKYFRAME_MQTT_PORT"] = "1999"
    environment["SKYFRAME_LOCATIONS_BERLIN_REFRESH_SECONDS"] = "120"
    let result = try await Tool.run(
      ["config", "check", "--config", example], environment: environment)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("port: 1999"))
    #expect(result.stdout.hasSuffix("is valid: the gateway would run with the values above\n"))
    #expect(result.stdout.contains("password: <redacted>"))
    #expect(!result.stdout.contains("hunter2"))
    #expect(result.stdout.contains("refresh-seconds: 120"))
    #expect(result.stdout.contains("names: [berlin, sydney]"))
  }

  @Test func configErrorsNameTheKeyTheVariableTheValueAndWhatIsAllowed() async throws {
    let file = try write(Self.badConfiguration)
    for arguments in [["config", "check", "--config", file.path], ["run", "--config", file.path]] {
      let result = try await Tool.run(arguments)
      #expect(result.status == 1)
      #expect(
        result.stderr.contains(
          "mqtt.port (env SKYFRAME_MQTT_PORT): '70000' is not allowed; expected a TCP port 1-65535")
      )
      #expect(
        result.stderr.contains(
          "mqtt.protocol (env SKYFRAME_MQTT_PROTOCOL): '4' is not allowed; expected one of 5, 3.1.1"
        ))
      #expect(result.stderr.contains("cache.ttl-seconds (env SKYFRAME_CACHE_TTL_SECONDS): 'soon'"))
      #expect(result.stderr.contains("open-meteo.forecast-url"))
      #expect(result.stderr.contains("locations.names (env SKYFRAME_LOCATIONS_NAMES): 'Berlin'"))
      #expect(result.stderr.contains("locations.ok-place"))
    }
    let missing = try await Tool.run(["config", "check", "--config", "/nonexistent/skyframe.yaml"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("--config"))
    #expect(!missing.stderr.contains("SKYFRAME_"))
  }

  @Test func misspeltKeysAreRefusedWithTheirLineAndTheKeyMeant() async throws {
    let file = try write(
      """
      mqtt:
        prot: 1884
      cache:
        ttl-second: 5
      """)
    var environment = ProcessInfo.processInfo.environment
    environment["SKYFRAME_MQTT_HOTS"] = "broker.local"
    for arguments in [["config", "check", "--config", file.path], ["run", "--config", file.path]] {
      let result = try await Tool.run(arguments, environment: environment)
      #expect(result.status == 1)
      #expect(
        result.stderr.contains(
          "mqtt.prot: unknown key; did you mean mqtt.port? (\(file.path), line 2)"),
        "\(result.stderr)")
      #expect(
        result.stderr.contains(
          "cache.ttl-second: unknown key; did you mean cache.ttl-seconds? (\(file.path), line 4)"))
    }
    // A variable that stands for no key is a warning: the file itself is fine.
    let fine = try write("mqtt:\n  port: 1884\n")
    let checked = try await Tool.run(
      ["config", "check", "--config", fine.path], environment: environment)
    #expect(checked.status == 0)
    #expect(
      checked.stderr.contains(
        "SKYFRAME_MQTT_HOTS is set but is no configuration variable; ignored; did you mean SKYFRAME_MQTT_HOST?"
      ), "\(checked.stderr)")
  }

  /// A metrics port that is taken stops `skyframe run` before it connects to the broker, with
  /// an error that names the key, the port and what to do.
  @Test func aTakenMetricsPortIsNamedBeforeTheBrokerConnection() async throws {
    let broker = try await MosquittoBroker.start()
    // Another process listens on the port: a second mosquitto.
    let squatter = try await MosquittoBroker.start()
    defer {
      Task {
        await broker.stop()
        await squatter.stop()
      }
    }
    let watcher = try await Watcher.start(port: broker.port, topics: ["skyframe/v1/gateway/#"])
    defer { Task { await watcher.stop() } }
    let file = try write(
      """
      mqtt:
        port: \(broker.port)
        client-id: gw-taken-port
      metrics:
        host: 127.0.0.1
        port: \(squatter.port)
      """)
    let result = try await Tool.run(["run", "--config", file.path])
    #expect(result.status != 0)
    #expect(
      result.stderr.contains(
        "metrics.port \(squatter.port) on 127.0.0.1 is in use: set metrics.port to another port, "
          + "or 0 to turn the listener off"), "\(result.stderr)")
    // It never came online: no availability message on the broker.
    let state = try? await watcher.message(on: "skyframe/v1/gateway/state", timeout: .seconds(1))
    #expect(state == nil)
  }

  /// Open-Meteo's forecast, geocoding (Oslo) and air quality, as a local stand-in.
  static func osloService() async throws -> StubHTTPServer {
    try await StubHTTPServer.start { request in
      if request.path == "/v1/air-quality" {
        return .json(OpenMeteoFixtures.airQuality(query: request.query))
      }
      if request.path.hasSuffix("/search") {
        return .json(
          OpenMeteoFixtures.search(
            name: request.query["name"] ?? "",
            in: [.init(name: "Oslo", countryCode: "NO", latitude: 59.91273, longitude: 10.74609)]))
      }
      return .json(OpenMeteoFixtures.forecast(query: request.query, temperature: -4.5))
    }
  }

  @Test func theGatewayProcessEndToEnd() async throws {
    let broker = try await MosquittoBroker.start()
    let http = try await Self.osloService()
    defer {
      Task {
        try? await http.stop()
        await broker.stop()
      }
    }
    let file = try write(
      """
      mqtt:
        client-id: gw-process
      open-meteo:
        timeout-seconds: 2
      log:
        level: debug
      locations:
        names: []
      """)
    var environment = ProcessInfo.processInfo.environment
    environment["SKYFRAME_MQTT_PORT"] = "\(broker.port)"
    environment["SKYFRAME_OPEN_METEO_FORECAST_URL"] = http.baseURL + "/v1/forecast"
    environment["SKYFRAME_OPEN_METEO_GEOCODING_URL"] = http.baseURL + "/v1/search"
    environment["SKYFRAME_AIR_QUALITY_URL"] = http.baseURL + "/v1/air-quality"
    let metricsPort = try MosquittoBroker.freeLoopbackPort()
    environment["SKYFRAME_METRICS_PORT"] = "\(metricsPort)"

    let watcher = try await Watcher.start(
      port: broker.port, topics: ["skyframe/v1/gateway/state", "skyframe/v1/loc/+"])
    let gateway = try GatewayProcess.start(config: file.path, environment: environment)
    defer { Task { await gateway.kill() } }
    #expect(try await watcher.text(on: "skyframe/v1/gateway/state") == #"{"state":"online"}"#)

    // The one-line end-to-end check.
    let asked = try await Tool.run([
      "request", "Oslo,NO", "--port", "\(broker.port)", "--device", "cli-1",
    ])
    #expect(asked.status == 0, "\(asked.stderr)")
    #expect(asked.stdout.contains("Oslo, NO"))
    #expect(asked.stdout.contains("-4.5 °C"))
    // Frame v1.1 from the gateway: air quality from its own API, the moon, when to ask again.
    #expect(asked.stdout.contains("air    European AQI 60"), "\(asked.stdout)")
    #expect(asked.stdout.contains("moon   "))
    #expect(asked.stdout.contains("update newer data expected in"))

    // What an operator scrapes: the request counted by status, the upstream call by service.
    let metrics = try await MosquittoBroker.httpGet(port: metricsPort, path: "/metrics")
    #expect(metrics.status == 200)
    #expect(metrics.body.contains(#"skyframe_requests_total{status="ok"} 1"#))
    #expect(
      metrics.body.contains(#"skyframe_upstream_calls_total{service="open-meteo",result="ok"}"#))
    #expect(metrics.body.contains("skyframe_broker_connected 1"))
    #expect(
      metrics.body.contains(
        #"skyframe_upstream_calls_total{service="open-meteo-air-quality",result="ok"} 1"#))
    #expect(metrics.body.contains("skyframe_request_duration_seconds_bucket"))
    let health = try await MosquittoBroker.httpGet(port: metricsPort, path: "/health")
    #expect(health.status == 200)
    #expect(health.body.contains(#""connected":true"#))
    #expect(health.body.contains(#""name":"open-meteo""#))
    // Half a request, then nothing: the listener closes the connection within its idle timeout
    // (5 s) instead of keeping it open. The wait blocks a thread of its own.
    let half = try await withCheckedThrowingContinuation { continuation in
      Thread.detachNewThread {
        continuation.resume(
          with: Result {
            try MosquittoBroker.httpExchange(
              port: metricsPort, request: "GET / HTTP/1.1\r\nHost: x\r\n", timeout: 9)
          })
      }
    }
    #expect(half.closed)

    // SIGHUP: a new named location appears, the connection stays.
    try """
    mqtt:
      client-id: gw-process
    locations:
      names: [harbour]
      harbour:
        latitude: 59.9
        longitude: 10.7
        refresh-seconds: 60
    """.write(to: file, atomically: true, encoding: .utf8)
    gateway.signal(SIGHUP)
    let harbour = try await watcher.message(on: "skyframe/v1/loc/harbour")
    #expect(try WeatherFrame(decoding: harbour.payload).name.string == "harbour")
    // Retained: a display subscribing later gets it at once.
    let late = try await Watcher.start(port: broker.port, topics: ["skyframe/v1/loc/harbour"])
    #expect(try await late.message(on: "skyframe/v1/loc/harbour").retain)
    await late.stop()
    #expect(gateway.isRunning)

    // SIGHUP again without the place: its retained frame goes (an empty retained message), so a
    // display that subscribes later finds nothing for a place that no longer exists.
    try """
    mqtt:
      client-id: gw-process
    locations:
      names: []
    """.write(to: file, atomically: true, encoding: .utf8)
    gateway.signal(SIGHUP)
    let cleared = try await watcher.message(on: "skyframe/v1/loc/harbour")
    #expect(cleared.payload.isEmpty)
    let later = try await Watcher.start(port: broker.port, topics: ["skyframe/v1/loc/harbour"])
    await #expect(throws: (any Error).self) {
      _ = try await later.message(on: "skyframe/v1/loc/harbour", timeout: .milliseconds(800))
    }
    await later.stop()

    // kill -9: the broker publishes the last will.
    await gateway.kill()
    #expect(try await watcher.text(on: "skyframe/v1/gateway/state") == #"{"state":"offline"}"#)
    await watcher.stop()
  }

  /// The README's one-line check where its TLS section is followed: `skyframe request --config`
  /// reaches a TLS broker that wants a user name and password as the gateway does.
  @Test func requestWithTheGatewaysConfigReachesATLSBrokerWithAPassword() async throws {
    let certificates = try TestCertificates.make()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let passwords = directory.appendingPathComponent("passwd").path
    let created = try await Tool.runProgram(
      "/usr/bin/mosquitto_passwd", ["-c", "-b", passwords, "skyframe", "s3cret-pass"])
    #expect(created == 0)
    let secret = directory.appendingPathComponent("password")
    try "s3cret-pass\n".write(to: secret, atomically: true, encoding: .utf8)
    let broker = try await MosquittoBroker.startTLS(
      certificates,
      extraConfiguration: "allow_anonymous false\npassword_file \(passwords)")
    let http = try await Self.osloService()
    defer {
      Task {
        try? await http.stop()
        await broker.stop()
      }
    }
    let file = try write(
      """
      mqtt:
        client-id: gw-tls
        port: \(broker.port)
        username: skyframe
        password-file: \(secret.path)
        tls:
          ca-file: \(certificates.ca)
      open-meteo:
        forecast-url: \(http.baseURL)/v1/forecast
        geocoding-url: \(http.baseURL)/v1/search
      air-quality:
        url: \(http.baseURL)/v1/air-quality
      metrics:
        port: 0
      """)
    let gateway = try GatewayProcess.start(
      config: file.path, environment: ProcessInfo.processInfo.environment)
    defer { Task { await gateway.kill() } }
    let ask = ["request", "Oslo,NO", "--config", file.path, "--timeout", "4"]
    var answered = try await Tool.run(ask)
    for _ in 0..<4 where answered.status != 0 {
      // The gateway may still be connecting: a request before its subscription is not answered.
      answered = try await Tool.run(ask)
    }
    #expect(answered.status == 0, "\(answered.stderr)")
    #expect(answered.stdout.contains("Oslo, NO"))
    // Without the gateway's settings the broker refuses, and the error names the option.
    let refused = try await Tool.run([
      "request", "Oslo,NO", "--port", "\(broker.port)", "--ca-file", certificates.otherCA,
      "--timeout", "3",
    ])
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("--ca-file"), "\(refused.stderr)")
  }

  /// A wrong broker password is one error line, however often the gateway retries: the retries
  /// that fail the same way add none, and no "not reachable yet" is added to it.
  @Test func aWrongPasswordIsLoggedOnce() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-pw-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let passwords = directory.appendingPathComponent("passwd").path
    #expect(
      try await Tool.runProgram(
        "/usr/bin/mosquitto_passwd", ["-c", "-b", passwords, "skyframe", "right-pass"]) == 0)
    let broker = try await MosquittoBroker.start(
      extraConfiguration: "allow_anonymous false\npassword_file \(passwords)")
    defer { Task { await broker.stop() } }
    let file = try write(
      """
      mqtt:
        client-id: gw-pw
        port: \(broker.port)
        username: skyframe
        password: wrong-pass
      metrics:
        port: 0
      """)
    let errors = directory.appendingPathComponent("stderr")
    let gateway = try GatewayProcess.start(
      config: file.path, environment: ProcessInfo.processInfo.environment, errors: errors.path)
    // Attempts at about 0, 1, 3 and 7 s: four refusals.
    try await Task.sleep(for: .seconds(8))
    await gateway.kill()
    let text = try String(contentsOf: errors, encoding: .utf8)
    let refusals = text.split(separator: "\n").filter { $0.contains("refused the connection") }
    #expect(refusals.count == 1, "\(text)")
    #expect(refusals.first?.contains("check mqtt.username and mqtt.password") == true)
    #expect(!text.contains("not reachable yet"), "\(text)")
  }

  /// SIGHUP: a new log.level takes effect at once; a changed cluster section is named as needing
  /// a restart.
  @Test func aReloadChangesTheLogLevelAndNamesWhatNeedsARestart() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let file = try write(
      """
      mqtt:
        port: \(broker.port)
        client-id: gw-reload
      log:
        level: warning
      metrics:
        port: 0
      """)
    let errors = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-reload-\(UUID().uuidString).log")
    defer { try? FileManager.default.removeItem(at: errors) }
    let watcher = try await Watcher.start(port: broker.port, topics: ["skyframe/v1/gateway/state"])
    let gateway = try GatewayProcess.start(
      config: file.path, environment: ProcessInfo.processInfo.environment, errors: errors.path)
    #expect(try await watcher.text(on: "skyframe/v1/gateway/state") == #"{"state":"online"}"#)
    func log() -> String { (try? String(contentsOf: errors, encoding: .utf8)) ?? "" }
    // At warning, the info line "starting" is not written.
    #expect(!log().contains("starting"))
    try """
    mqtt:
      port: \(broker.port)
      client-id: gw-reload
    log:
      level: info
    metrics:
      port: 0
    cluster:
      group: lobby
    """.write(to: file, atomically: true, encoding: .utf8)
    gateway.signal(SIGHUP)
    var text = ""
    for _ in 0..<50 where !text.contains("configuration reloaded") {
      try await Task.sleep(for: .milliseconds(100))
      text = log()
    }
    #expect(text.contains("cluster changed: takes effect after a restart"), "\(text)")
    #expect(text.contains("log.level changed to info"), "\(text)")
    // An info line, written only because the level is now info.
    #expect(text.contains("configuration reloaded"), "\(text)")
    gateway.signal(SIGTERM)
    #expect(await gateway.waitForExit() == 0)
    await watcher.stop()
  }

  @Test func sigtermStopsGracefullyAndSaysOffline() async throws {
    let broker = try await MosquittoBroker.start()
    defer { Task { await broker.stop() } }
    let file = try write("mqtt:\n  client-id: gw-term\n")
    var environment = ProcessInfo.processInfo.environment
    environment["SKYFRAME_MQTT_PORT"] = "\(broker.port)"
    environment["SKYFRAME_METRICS_PORT"] = "0"
    let watcher = try await Watcher.start(port: broker.port, topics: ["skyframe/v1/gateway/state"])
    let gateway = try GatewayProcess.start(config: file.path, environment: environment)
    #expect(try await watcher.text(on: "skyframe/v1/gateway/state") == #"{"state":"online"}"#)
    gateway.signal(SIGTERM)
    #expect(try await watcher.text(on: "skyframe/v1/gateway/state") == #"{"state":"offline"}"#)
    #expect(await gateway.waitForExit() == 0)
    await watcher.stop()
  }
}

/// `skyframe run` in its own process.
final class GatewayProcess: Sendable {
  let process: ChildProcess

  private init(process: ChildProcess) { self.process = process }

  static func start(config: String, environment: [String: String], errors: String? = nil) throws
    -> GatewayProcess
  {
    GatewayProcess(
      process: try ChildProcess(
        executable: Tool.binary.path, arguments: ["run", "--config", config], errors: errors,
        environment: environment))
  }

  var isRunning: Bool { process.isRunning }

  func signal(_ signal: Int32) { process.signal(signal) }

  func kill() async {
    guard process.isRunning else { return }
    process.signal(SIGKILL)
    _ = await process.waitForExit(upTo: .seconds(5))
  }

  func waitForExit() async -> Int32? {
    _ = await process.waitForExit(upTo: .seconds(15))
    return process.exitStatus
  }
}

/// An MQTT client that collects what arrives on some topics.
struct Watcher {
  let mailbox: MQTTMailbox

  static func start(port: Int, topics: [String]) async throws -> Watcher {
    Watcher(
      mailbox: try await MQTTMailbox.connect(
        port: port, id: "watch-\(UInt32.random(in: 0...UInt32.max))", subscribe: topics))
  }

  /// 30 s: a debug build's process start on a loaded machine has taken over 15.
  func message(on topic: String, timeout: Duration = .seconds(30)) async throws -> MQTTMessage {
    try await mailbox.next(timeout: timeout) { $0.topic == topic }
  }

  func text(on topic: String) async throws -> String {
    String(decoding: try await message(on: topic).payload, as: UTF8.self)
  }

  func stop() async { await mailbox.disconnect() }
}
