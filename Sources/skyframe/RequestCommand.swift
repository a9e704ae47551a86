import ArgumentParser
import Foundation
import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeJSON
import SkyframeMQTT

struct RequestCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "request",
    abstract:
      "Ask a running gateway for a place and print the answer: a one-line end-to-end check.",
    discussion: """
      Publishes LOCATION to {base}/v1/req/{device} as a device would and prints every frame that
      comes back on {base}/v1/frame/{device}, one per place. Exits 1 if no complete answer arrives
      in time. With --config it reaches the broker as the gateway does (its mqtt section: host,
      port, TLS, user name and password; its topics.base); the other options override it.
      """
  )

  @Argument(
    help: "What a device would publish: '52.52,13.41', 'Berlin,DE', 'Berlin;Paris', 'refresh'.")
  var location: String

  @Option(help: "The device id to ask as.") var device = "skyframe-cli"
  @Option(help: "The gateway's configuration file: reach the broker as the gateway does.")
  var config: String?
  @Option(help: "The broker's host (default 127.0.0.1).") var host: String?
  @Option(help: "The broker's port (default 1883, 8883 with --ca-file).") var port: Int?
  @Option(help: "The gateway's topic base (default skyframe).") var base: String?
  @Option(help: "The broker user name.") var username: String?
  @Option(help: "A file holding the broker password.") var passwordFile: String?
  @Option(help: "The CA certificate that signed the broker's (TLS).") var caFile: String?
  @Option(help: "A client certificate, for a broker that asks for one.") var certFile: String?
  @Option(help: "The client certificate's key.") var keyFile: String?
  @Option(help: "Seconds to wait for the answer.") var timeout = 15
  @Flag(help: "Print each frame as JSON.") var json = false

  /// The broker connection and topic base: the gateway's (`--config`), then the options.
  private func connection() async throws -> (MQTTConfiguration, String) {
    var gateway: GatewayConfiguration?
    if let config { gateway = try await ConfigLoading.load(config) }
    var configuration =
      gateway?.mqttConfiguration ?? MQTTConfiguration(clientID: "", host: "127.0.0.1", port: 1883)
    configuration.clientID = "skyframe-cli-\(UInt32.random(in: 0...UInt32.max))"
    configuration.cleanSession = true
    configuration.will = nil
    if gateway == nil {
      // Without --config, the gateway's own variables (SKYFRAME_MQTT_*), then the options.
      let environment = ProcessInfo.processInfo.environment
      func variable(_ name: String) -> String? {
        environment["SKYFRAME_MQTT_" + name].flatMap { $0.isEmpty ? nil : $0 }
      }
      if let value = variable("HOST") { configuration.host = value }
      if let value = variable("PORT") {
        guard let number = Int(value), (1...65_535).contains(number) else {
          Diagnostics.report("SKYFRAME_MQTT_PORT: '\(value)' is no TCP port (1-65535)")
          throw ExitCode.failure
        }
        configuration.port = number
      }
      if let value = variable("USERNAME") { configuration.username = value }
      if let value = variable("PASSWORD") { configuration.password = value }
    }
    if let host { configuration.host = host }
    if let username { configuration.username = username }
    if let passwordFile {
      do {
        configuration.password = try String(contentsOfFile: passwordFile, encoding: .utf8)
          .trimmingCharacters(in: .whitespacesAndNewlines)
      } catch {
        Diagnostics.report("--password-file: '\(passwordFile)' cannot be read")
        throw ExitCode.failure
      }
    }
    if let caFile {
      configuration.tls = MQTTConfiguration.TLS(
        caFile: caFile, certFile: certFile, keyFile: keyFile)
      if port == nil, gateway == nil { configuration.port = 8883 }
    }
    if let port { configuration.port = port }
    // A problem is named by the option that sets the value (or by the gateway's own key).
    guard gateway == nil else { return (configuration, base ?? gateway!.topics.base) }
    configuration.settingNames.host = "--host"
    configuration.settingNames.port = "--port"
    configuration.settingNames.username = "--username"
    configuration.settingNames.password = "--password-file"
    configuration.settingNames.caFile = "--ca-file"
    configuration.settingNames.certFile = "--cert-file"
    configuration.settingNames.keyFile = "--key-file"
    return (configuration, base ?? "skyframe")
  }

  func run() async throws {
    var logger = Logger(label: "skyframe-request")
    logger.logLevel = .warning
    let (configuration, topicBase) = try await connection()
    let (host, port) = (configuration.host, configuration.port)
    let client: MQTTClient
    do {
      client = try MQTTClient(configuration: configuration, logger: logger)
    } catch {
      Diagnostics.report("\(error)")
      throw ExitCode.failure
    }
    try client.subscribe("\(topicBase)/v1/frame/\(device)", qos: 1)
    // A refused connection is known at once: said now, not after the whole wait.
    if let refusal = Self.refusal(host: host, port: port) {
      await client.disconnect()
      Diagnostics.report("cannot reach the broker at \(host):\(port): \(refusal)")
      throw ExitCode.failure
    }
    do {
      try await client.connect(timeout: .seconds(timeout))
    } catch {
      await client.disconnect()
      Diagnostics.report("cannot reach the broker at \(host):\(port): \(error)")
      throw ExitCode.failure
    }
    let json = json
    let deadline = ContinuousClock.now + .seconds(timeout)
    let (base, device, location) = (topicBase, device, location)
    let received = await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        var output = FrameOutput(json: json, now: Int(Date().timeIntervalSince1970))
        var published = false
        var expected: Int?
        var seen = 0
        for await event in client.events {
          switch event {
          case .connected:
            guard !published else { continue }
            published = true
            try? client.publish("\(base)/v1/req/\(device)", payload: Array(location.utf8), qos: 1)
          case .message(let message):
            guard output.show(message.payload, label: nil, origin: message.topic) else { continue }
            if let frame = try? WeatherFrame(decoding: message.payload) {
              expected = Int(frame.slotCount)
            }
            seen += 1
            if let expected, seen >= expected { return true }
          case .disconnected:
            continue
          }
        }
        return false
      }
      group.addTask {
        try? await Task.sleep(until: deadline)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
    await client.disconnect()
    if !received {
      Diagnostics.report(
        "no complete answer within \(timeout) s: is `skyframe run` connected to \(host):\(port)?")
      throw ExitCode.failure
    }
  }

  /// Why a TCP connection to host:port fails at once (nothing listens: refused; the name is
  /// unknown), or nil when it connects or takes longer to say (the MQTT connect then decides).
  static func refusal(host: String, port: Int) -> String? {
    var hints = addrinfo()
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var found: UnsafeMutablePointer<addrinfo>?
    let status = getaddrinfo(host, String(port), &hints, &found)
    guard status == 0, let first = found else {
      return "the host name is not known (\(String(cString: gai_strerror(status))))"
    }
    defer { freeaddrinfo(found) }
    let socket = Foundation.socket(first.pointee.ai_family, first.pointee.ai_socktype, 0)
    guard socket >= 0 else { return nil }
    defer { close(socket) }
    // Non-blocking: a refusal on loopback or a LAN comes at once; anything slower is left to the
    // MQTT connect and its timeout.
    _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
    if connect(socket, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 { return nil }
    guard errno == EINPROGRESS else { return String(cString: strerror(errno)) }
    var poller = pollfd(fd: socket, events: Int16(POLLOUT), revents: 0)
    guard poll(&poller, 1, 1_000) == 1 else { return nil }
    var error: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &length)
    return error == 0 ? nil : "\(String(cString: strerror(error))) (is mosquitto running?)"
  }
}
