import Logging
import ServiceLifecycle
import SkyframeGateway
import SkyframeMQTT
import Synchronization

/// One network server's MQTT integration as a service of the gateway's group: its own MQTT
/// client (3.1.1, clean session: an uplink's receive windows are long gone after a restart, so
/// nothing old is worth answering), subscribed to the application's uplinks. Each message is
/// answered by `LoRaWANIntake`; answers that wait for an upstream call run as child tasks and
/// are finished before the connection closes on shutdown.
///
/// In a cluster the connection is a lease of the fleet: exactly one live member holds it, the
/// one the cells' rendezvous picks for `lorawan:{name}`, under a client id of its own
/// (`{client-id}-{member}`), so members never throw each other off the network server and each
/// uplink reaches one of them. When the live set changes, the member that lost the lease
/// disconnects and the one that won it connects.
final class NetworkServerConnection: Service, Sendable {
  let server: LoRaWANSettings.Server
  let dialect: any NetworkServerDialect
  private let mqtt: MQTTConfiguration
  /// The client of the current holding; the first is made (and the settings checked) at start.
  private let session: Mutex<MQTTClient?>
  private let members: ClusterMembers?
  private let answers: LoRaWANIntake
  private let clock: GatewayClock
  private let logger: Logger
  private let connected = Atomic<Bool>(false)

  /// How often a member that does not hold the lease looks again (a live set that changed).
  static let leaseCheck = Duration.milliseconds(250)

  /// The key of the rendezvous that picks the member holding the connection.
  var leaseKey: String { "lorawan:\(server.name)" }

  /// Whether this member holds the connection: always alone; in a cluster once its live set has
  /// settled after the first connect, if the rendezvous picks it.
  var isHeldHere: Bool {
    guard let members else { return true }
    return members.isSettled(at: clock.now) && members.owns(leaseKey)
  }

  /// What `/health` shows of this connection.
  var status: GatewayStatus.NetworkServer {
    let isConnected = connected.load(ordering: .relaxed)
    return GatewayStatus.NetworkServer(
      name: server.name, kind: server.kind.rawValue, connected: isConnected,
      lastError: isConnected ? nil : session.withLock { $0 }?.lastFailure?.description,
      heldBy: members?.owner(of: leaseKey))
  }

  init(
    server: LoRaWANSettings.Server, answers: LoRaWANIntake, members: ClusterMembers?,
    clock: GatewayClock, logger: Logger
  ) throws(MQTTError) {
    self.server = server
    self.answers = answers
    self.members = members
    self.clock = clock
    dialect = server.dialect
    var logger = logger
    logger[metadataKey: "lorawan-server"] = "\(server.name)"
    self.logger = logger
    var mqtt = MQTTConfiguration(
      clientID: Self.clientID(server.clientID, member: members?.own), host: server.host,
      port: server.port)
    mqtt.username = server.username
    mqtt.password = server.password
    mqtt.protocolVersion = .v311
    mqtt.cleanSession = true
    if let caFile = server.caFile {
      mqtt.tls = .init(caFile: caFile, certFile: server.certFile, keyFile: server.keyFile)
    }
    mqtt.settingNames = MQTTConfiguration.SettingNames(section: "lorawan.servers.\(server.name)")
    self.mqtt = mqtt
    session = Mutex(try MQTTClient(configuration: mqtt, logger: logger))
  }

  /// The configured client id alone; in a cluster, its first 14 characters and 8 hex digits of
  /// a hash of the whole id and the member's (MQTT 3.1.1's 23 characters at most): distinct per
  /// member and per connection.
  static func clientID(_ configured: String, member: String?) -> String {
    guard let member else { return configured }
    var hash: UInt32 = 0x811C_9DC5  // FNV-1a
    for byte in configured.utf8 + [0] + member.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
    let digits = String(hash, radix: 16)
    return String(configured.prefix(14)) + "-" + String(repeating: "0", count: 8 - digits.count)
      + digits
  }

  func run() async {
    answers.metrics.connected(server.name, false)
    while !Task.isShuttingDownGracefully, !Task.isCancelled {
      guard isHeldHere else {
        // Another member holds it: look again when the live set may have changed.
        do {
          try await cancelWhenGracefulShutdown { try await self.clock.sleep(for: Self.leaseCheck) }
        } catch { break }
        continue
      }
      if members != nil {
        // Won: the member that held it lets go within one look (`leaseCheck`); take it after
        // that, so that no uplink is answered by both.
        do {
          try await cancelWhenGracefulShutdown { try await self.clock.sleep(for: Self.leaseCheck) }
        } catch { break }
        guard isHeldHere else { continue }
      }
      let made: Result<MQTTClient, MQTTError> = session.withLock { current in
        if let current { return .success(current) }
        do throws(MQTTError) {
          let client = try MQTTClient(configuration: mqtt, logger: logger)
          current = client
          return .success(client)
        } catch {
          return .failure(error)
        }
      }
      guard case .success(let client) = made else {
        // A TLS file unreadable for a moment (rotated), say: said, and tried again. Returning
        // would end the gateway's whole service group.
        if case .failure(let error) = made {
          logger.error(
            "network server \(server.name): no connection can be made, retrying: \(error)")
        }
        do {
          try await cancelWhenGracefulShutdown { try await self.clock.sleep(for: .seconds(5)) }
        } catch { break }
        continue
      }
      await hold(client)
      session.withLock { $0 = nil }
      if members != nil, !Task.isShuttingDownGracefully {
        logger.info("network server \(server.name) now held by another member")
      }
    }
    answers.metrics.connected(server.name, false)
  }

  /// Connects `client` and answers its uplinks until graceful shutdown or, in a cluster, until
  /// this member no longer holds the lease; then disconnects it.
  private func hold(_ client: MQTTClient) async {
    do {
      try client.subscribe(dialect.uplinkFilter, qos: dialect.qos)
      try await client.connect(timeout: .seconds(5))
    } catch {
      logger.warning(
        "network server \(server.name) (\(server.host):\(server.port)) not reachable yet, retrying in the background: \(error)"
      )
    }
    await withDiscardingTaskGroup { group in
      if members != nil {
        group.addTask { [self] in
          // The lease watch: a member that loses it lets go, which ends the events below.
          while isHeldHere {
            do {
              try await cancelWhenGracefulShutdown {
                try await self.clock.sleep(for: Self.leaseCheck)
              }
            } catch { return }  // Stopping: the events end by themselves.
          }
          await client.disconnect()
        }
      }
      for await event in client.events.cancelOnGracefulShutdown() {
        switch event {
        case .connected:
          connected.store(true, ordering: .relaxed)
          answers.metrics.connected(server.name, true)
          logger.info(
            "connected to network server \(server.name)",
            metadata: ["subscribed": "\(dialect.uplinkFilter)", "client-id": "\(mqtt.clientID)"])
        case .disconnected(let code):
          connected.store(false, ordering: .relaxed)
          answers.metrics.connected(server.name, false)
          guard code != 0 else { break }  // Let go on purpose.
          logger.warning(
            "disconnected from network server \(server.name), reconnecting",
            metadata: ["code": "\(code)"])
        case .message(let message):
          answers.receive(message, from: self, client: client)
        }
      }
    }
    await client.disconnect()
    connected.store(false, ordering: .relaxed)
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
    configuration: GatewayConfiguration, rooms: AnswerRooms, members: ClusterMembers?,
    clock: GatewayClock, logger: Logger
  ) throws(MQTTError) -> LoRaWANGateway? {
    guard !configuration.lorawan.servers.isEmpty else { return nil }
    let answers = LoRaWANIntake(configuration: configuration, rooms: rooms)
    var connections: [NetworkServerConnection] = []
    for server in configuration.lorawan.servers {
      connections.append(
        try NetworkServerConnection(
          server: server, answers: answers, members: members, clock: clock, logger: logger))
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
