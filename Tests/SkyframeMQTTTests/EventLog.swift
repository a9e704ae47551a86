import Foundation
import Logging
import SkyframeMQTT
import SkyframeTestSupport
import Synchronization

/// Collects a client's events so a test can wait for the next one it cares about.
final class EventLog: Sendable {
  private struct State {
    var events: [MQTTEvent] = []
    var taken: Set<Int> = []
    var finished = false
  }
  private let state = Mutex(State())

  init(_ client: MQTTClient) {
    let events = client.events
    Task { [self] in
      for await event in events { state.withLock { $0.events.append(event) } }
      state.withLock { $0.finished = true }
    }
  }

  var isFinished: Bool { state.withLock { $0.finished } }

  /// Takes the earliest event not taken yet that satisfies `match`, waiting for it if need be.
  /// Other events stay for later calls: messages on different topics may arrive in any order.
  func next<T>(
    _ what: String, within timeout: Duration = .seconds(5), _ match: (MQTTEvent) -> T?
  ) async throws -> T {
    let deadline = ContinuousClock.now + timeout
    while true {
      let found: T? = state.withLock { state in
        for (index, event) in state.events.enumerated() where !state.taken.contains(index) {
          if let value = match(event) {
            state.taken.insert(index)
            return value
          }
        }
        return nil
      }
      if let found { return found }
      guard ContinuousClock.now < deadline else {
        throw EventTimeout(
          description: "no \(what) within \(timeout); seen: \(state.withLock { $0.events })")
      }
      try await Task.sleep(for: .milliseconds(5))
    }
  }

  func message(on topic: String, within timeout: Duration = .seconds(5)) async throws -> MQTTMessage
  {
    try await next("message on \(topic)", within: timeout) { event in
      if case .message(let message) = event, message.topic == topic { return message }
      return nil
    }
  }

  @discardableResult
  func connected(within timeout: Duration = .seconds(5)) async throws -> Bool {
    try await next("connected", within: timeout) { event in
      if case .connected(let sessionPresent) = event { return sessionPresent }
      return nil
    }
  }

  @discardableResult
  func disconnected(within timeout: Duration = .seconds(5)) async throws -> Int32 {
    try await next("disconnected", within: timeout) { event in
      if case .disconnected(let code) = event { return code }
      return nil
    }
  }
}

struct EventTimeout: Error, CustomStringConvertible {
  var description: String
}

/// A topic no other test uses.
func uniqueTopic(_ name: String) -> String {
  "skyframe-test/\(name)/\(UUID().uuidString.prefix(8))"
}

let testLogger: Logger = {
  var logger = Logger(label: "skyframe.mqtt.test")
  logger.logLevel = .error
  return logger
}()

/// A client for `broker` with its event log; `configure` may change the configuration and
/// subscribe before it connects.
func makeClient(
  _ broker: MosquittoBroker, _ name: String,
  configure: (inout MQTTConfiguration) -> Void = { _ in }
) throws -> (MQTTClient, EventLog) {
  var configuration = broker.clientConfiguration(clientID: "\(name)-\(UUID().uuidString.prefix(8))")
  configure(&configuration)
  let client = try MQTTClient(configuration: configuration, logger: testLogger)
  return (client, EventLog(client))
}

/// Once the broker has routed a probe back on `topic`, every SUBSCRIBE this client sent earlier
/// has been processed: the broker handles one connection's packets in order.
func waitUntilSubscribed(_ client: MQTTClient, _ log: EventLog, probe topic: String) async throws {
  try client.publish(topic, payload: Array("probe".utf8), qos: 1)
  _ = try await log.message(on: topic)
}
