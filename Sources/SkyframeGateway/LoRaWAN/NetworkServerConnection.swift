import Logging
import ServiceLifecycle
import SkyframeMQTT
import Synchronization

/// One network server's MQTT integration as a service of the gateway's group: its own MQTT
/// client (3.1.1, clean session: an uplink's receive windows are long gone after a restart, so
/// nothing old is worth answering), subscribed to the application's uplinks. Each message is
/// answered by `LoRaWANIntake`; answers that wait for an upstream call run as child tasks and
/// are finished before the connection closes on shutdown.
final class NetworkServerConnection: Service, Sendable {
  let server: LoRaWANSettings.Server
  let dialect: any NetworkServerDialect
  let client: MQTTClient
  private let answers: LoRaWANIntake
  private let logger: Logger
  private let connected = Atomic<Bool>(false)

  /// What `/health` shows of this connection.
  var status: GatewayStatus.NetworkServer {
    let isConnected = connected.load(ordering: .relaxed)
    return GatewayStatus.NetworkServer(
      name: server.name, kind: server.kind.rawValue, connected: isConnected,
      lastError: isConnected ? nil : client.lastFailure?.description)
  }

  init(server: LoRaWANSettings.Server, answers: LoRaWANIntake, logger: Logger) throws(MQTTError) {
    self.server = server
    self.answers = answers
    dialect = server.dialect
    var logger = logger
    logger[metadataKey: "lorawan-server"] = "\(server.name)"
    self.logger = logger
    var mqtt = MQTTConfiguration(clientID: server.clientID, host: server.host, port: server.port)
    mqtt.username = server.username
    mqtt.password = server.password
    mqtt.protocolVersion = .v311
    mqtt.cleanSession = true
    if let caFile = server.caFile {
      mqtt.tls = .init(caFile: caFile, certFile: server.certFile, keyFile: server.keyFile)
    }
    let key = "lorawan.servers.\(server.name)"
    mqtt.settingNames.host = "\(key).host"
    mqtt.settingNames.port = "\(key).port"
    mqtt.settingNames.username = "\(key).username"
    mqtt.settingNames.password = "\(key).password"
    mqtt.settingNames.caFile = "\(key).tls.ca-file"
    mqtt.settingNames.certFile = "\(key).tls.cert-file"
    mqtt.settingNames.keyFile = "\(key).tls.key-file"
    client = try MQTTClient(configuration: mqtt, logger: logger)
  }

  func run() async {
    answers.metrics.connected(server.name, false)
    do {
      try client.subscribe(dialect.uplinkFilter, qos: dialect.qos)
      try await client.connect(timeout: .seconds(5))
    } catch {
      logger.warning(
        "network server \(server.name) (\(server.host):\(server.port)) not reachable yet, retrying in the background: \(error)"
      )
    }
    await withDiscardingTaskGroup { group in
      for await event in client.events.cancelOnGracefulShutdown() {
        switch event {
        case .connected:
          connected.store(true, ordering: .relaxed)
          answers.metrics.connected(server.name, true)
          logger.info(
            "connected to network server \(server.name)",
            metadata: ["subscribed": "\(dialect.uplinkFilter)"])
        case .disconnected(let code):
          connected.store(false, ordering: .relaxed)
          answers.metrics.connected(server.name, false)
          logger.warning(
            "disconnected from network server \(server.name), reconnecting",
            metadata: ["code": "\(code)"])
        case .message(let message):
          if let waiting = answers.receive(message, from: self) {
            group.addTask { await waiting() }
          }
        }
      }
    }
    await client.disconnect()
    answers.metrics.connected(server.name, false)
  }
}

/// The gateway's LoRaWAN part: what answers, and a connection per configured server.
final class LoRaWANGateway: Sendable {
  let answers: LoRaWANIntake
  let connections: [NetworkServerConnection]
  private let servers: [LoRaWANSettings.Server]
  private let logger: Logger

  /// Nil without `lorawan.servers`.
  static func make(
    configuration: GatewayConfiguration, resolver: Resolver, composer: Composer,
    metrics: GatewayMetrics, clock: GatewayClock, logger: Logger
  ) throws(MQTTError) -> LoRaWANGateway? {
    guard !configuration.lorawan.servers.isEmpty else { return nil }
    let answers = LoRaWANIntake(
      configuration: configuration, resolver: resolver, composer: composer, metrics: metrics,
      clock: clock, logger: logger)
    var connections: [NetworkServerConnection] = []
    for server in configuration.lorawan.servers {
      connections.append(
        try NetworkServerConnection(server: server, answers: answers, logger: logger))
    }
    return LoRaWANGateway(
      answers: answers, connections: connections, servers: configuration.lorawan.servers,
      logger: logger)
  }

  private init(
    answers: LoRaWANIntake, connections: [NetworkServerConnection],
    servers: [LoRaWANSettings.Server], logger: Logger
  ) {
    self.answers = answers
    self.connections = connections
    self.servers = servers
    self.logger = logger
  }

  /// Places, devices and limits follow a reload; the connections are bound at start.
  func update(_ configuration: GatewayConfiguration) {
    if configuration.lorawan.servers != servers {
      logger.warning("lorawan.servers changed: the connections change after a restart")
    }
    var configuration = configuration
    configuration.lorawan.servers = servers
    answers.update(configuration)
  }
}
