import Foundation
import Logging

/// An MQTT client over libmosquitto, with its own network thread.
///
/// Connects, keeps the connection (reconnecting with exponential backoff and subscribing again
/// after every connect) and reports what happens through `events` until `disconnect()`.
public final class MQTTClient: Sendable {
  /// Every connect, disconnect and message, in order. Meant for one consumer; finishes after
  /// `disconnect()`.
  public let events: AsyncStream<MQTTEvent>
  private let handle: MosquittoHandle

  /// Validates the configuration and sets up the handle, the last will included; connects only
  /// with `connect(timeout:)`.
  public init(configuration: MQTTConfiguration, logger: Logger) throws(MQTTError) {
    let (events, continuation) = AsyncStream.makeStream(of: MQTTEvent.self)
    var logger = logger
    let endpoint = "\(configuration.host):\(configuration.port)"
    logger[metadataKey: "mqtt.client_id"] = "\(configuration.clientID)"
    logger[metadataKey: "mqtt.broker"] = "\(endpoint)"
    let state = ConnectionState(
      endpoint: endpoint,
      protocolVersion: configuration.protocolVersion,
      settingNames: configuration.settingNames,
      continuation: continuation, logger: logger)
    self.handle = try MosquittoHandle(configuration: configuration, state: state)
    self.events = events
  }

  deinit {
    // Without `disconnect()`: the thread still says goodbye cleanly and then frees the handle.
    handle.requestStop()
    handle.state.finish()
  }

  /// Hands every message to `receiver` on the network thread, as it arrives, instead of as an
  /// `.message` event: no thread hop and no copy unless the receiver makes one. Set it before
  /// `connect(timeout:)`.
  public func deliverMessages(to receiver: any MQTTMessageReceiver) {
    handle.state.deliver(to: receiver)
  }

  /// Why the last connection attempt failed, while there is no connection (nil once connected
  /// or before any attempt). `problem` is set when the cause is in the configuration.
  public var lastFailure: MQTTError? { handle.state.lastFailure }

  /// Remembered and (re)subscribed on every connect, also after reconnects. Subscribing again
  /// to the same filter replaces its QoS.
  public func subscribe(_ filter: String, qos: Int) throws(MQTTError) {
    try handle.subscribe(filter, qos: qos)
  }

  /// Forgets `filter` (it is not subscribed again on reconnect) and sends an UNSUBSCRIBE now if
  /// connected. A filter never subscribed is not an error.
  public func unsubscribe(_ filter: String) {
    handle.unsubscribe(filter)
  }

  /// A filter an earlier run with this client id may have left in its persistent session and
  /// this one does not want: unsubscribed after every connect that finds the session present.
  /// Set it before `connect(timeout:)`.
  public func dropFromSession(_ filter: String) {
    handle.state.drop(filter)
  }

  /// Starts the network thread and connects; returns once the first CONNACK succeeded or throws
  /// after `timeout` (at once if the broker refuses the connection). Either way the thread keeps
  /// trying in the background, with backoff, until `disconnect()`.
  public func connect(timeout: Duration) async throws(MQTTError) {
    if handle.state.startIfIdle() {
      let thread = Thread { [handle] in handle.runNetworkLoop() }
      thread.name = "mqtt \(handle.configuration.clientID)"
      thread.start()
    }
    try await handle.state.waitUntilConnected(timeout: timeout).get()
  }

  /// Queues a publish (thread-safe; success means queued, not delivered). Throws code 4
  /// (`MOSQ_ERR_NO_CONN`) while there is no connection, whatever the QoS.
  /// On MQTT 3.1.1 the correlation data is dropped.
  public func publish(
    _ topic: String, payload: UnsafeRawBufferPointer, qos: Int = 0, retain: Bool = false,
    correlationData: [UInt8]? = nil
  ) throws(MQTTError) {
    try handle.publish(
      topic, payload: payload, qos: qos, retain: retain, responseTopic: nil,
      correlationData: correlationData)
  }

  public func publish(
    _ topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false,
    correlationData: [UInt8]? = nil
  ) throws(MQTTError) {
    try payload.withBytes { bytes throws(MQTTError) in
      try handle.publish(
        topic, payload: bytes, qos: qos, retain: retain, responseTopic: nil,
        correlationData: correlationData)
    }
  }

  /// A message the broker drops (retained copy included) after `expirySeconds`: the MQTT 5
  /// message expiry interval (on 3.1.1 it is dropped and the message never expires).
  public func publish(
    _ topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false, expirySeconds: UInt32
  ) throws(MQTTError) {
    try payload.withBytes { bytes throws(MQTTError) in
      try handle.publish(
        topic, payload: bytes, qos: qos, retain: retain, responseTopic: nil,
        correlationData: nil, expirySeconds: expirySeconds)
    }
  }

  /// A request in MQTT 5 style: `responseTopic` and `correlationData` travel as properties
  /// (on 3.1.1 both are dropped).
  public func publish(
    _ topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false, responseTopic: String?,
    correlationData: [UInt8]? = nil
  ) throws(MQTTError) {
    try payload.withBytes { bytes throws(MQTTError) in
      try handle.publish(
        topic, payload: bytes, qos: qos, retain: retain, responseTopic: responseTopic,
        correlationData: correlationData)
    }
  }

  /// Clean disconnect (the broker discards the last will), stops the network thread and finishes
  /// `events`. Idempotent. Never hangs: if the thread is stuck in a blocking TCP connect it is
  /// left to finish on its own and free the handle afterwards.
  public func disconnect() async {
    handle.requestStop()
    if await !handle.state.waitForNetworkThread(upTo: .seconds(2)) {
      handle.state.logger.warning(
        "MQTT network thread still busy after disconnect; leaving it to finish")
    }
    handle.state.finish()
  }
}
