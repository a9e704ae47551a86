import Logging
import SkyframeMQTT
import Synchronization

/// An MQTT client for tests that collects every message it receives; `next` takes them out with a
/// timeout, so waiting never ends the subscription.
public final class MQTTMailbox: Sendable {
  public let client: MQTTClient
  /// The client id, for what a timeout says.
  public let id: String
  private let messages = Mutex<[MQTTMessage]>([])

  private init(client: MQTTClient, id: String) {
    self.client = client
    self.id = id
  }

  /// Connects with a clean session to the broker on `port`, subscribed to `topics` at QoS 1.
  public static func connect(
    port: Int, id: String, subscribe topics: [String] = [],
    version: MQTTConfiguration.ProtocolVersion = .v5, username: String? = nil,
    password: String? = nil
  ) async throws -> MQTTMailbox {
    var configuration = MQTTConfiguration(clientID: id, host: "127.0.0.1", port: port)
    configuration.username = username
    configuration.password = password
    configuration.cleanSession = true
    configuration.protocolVersion = version
    var logger = Logger(label: "test-client")
    logger.logLevel = .warning
    let client = try MQTTClient(configuration: configuration, logger: logger)
    for topic in topics { try client.subscribe(topic, qos: 1) }
    let mailbox = MQTTMailbox(client: client, id: id)
    Task {
      for await event in client.events {
        if case .message(let message) = event { mailbox.messages.withLock { $0.append(message) } }
      }
    }
    try await client.connect(timeout: .seconds(30))
    return mailbox
  }

  /// Takes the first message for which `matching` holds, waiting up to `timeout`; the error
  /// names the caller's line (`file`, `line`), so a failed test says which wait ran out.
  public func next(
    timeout: Duration = .seconds(30), file: String = #fileID, line: Int = #line,
    matching: (MQTTMessage) -> Bool = { _ in true }
  ) async throws -> MQTTMessage {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      let found = messages.withLock { messages -> MQTTMessage? in
        guard let index = messages.firstIndex(where: matching) else { return nil }
        return messages.remove(at: index)
      }
      if let found { return found }
      try await Task.sleep(for: .milliseconds(10))
    }
    throw TimeoutError(waited: timeout, at: "\(file):\(line)", client: id)
  }

  public func disconnect() async { await client.disconnect() }

  public struct TimeoutError: Error, CustomStringConvertible {
    public var waited: Duration
    public var at: String
    public var client: String

    public var description: String {
      "no message for \(client) within \(waited) (the wait at \(at))"
    }
  }
}
