import Foundation
import Logging
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@Suite("MQTTClient sessions, reconnects and last will")
struct MQTTSessionTests {
  @Test(arguments: [MQTTConfiguration.ProtocolVersion.v5, .v311])
  func persistentSessionReceivesQoS1PublishedWhileAway(version: MQTTConfiguration.ProtocolVersion)
    async throws
  {
    try await MosquittoBroker.with { broker in
      let topic = uniqueTopic("persistent")
      let id = "persistent-\(UUID().uuidString.prefix(8))"
      let (first, firstEvents) = try makeClient(broker, id) {
        $0.clientID = id
        $0.protocolVersion = version
      }
      try first.subscribe(topic, qos: 1)
      try await first.connect(timeout: .seconds(30))
      #expect(try await firstEvents.connected() == false)
      try await waitUntilSubscribed(first, firstEvents, probe: topic)
      await first.disconnect()

      try await publishWhileObserved(broker, topic: topic, payload: [0xAB, 0])

      // Same client id, no subscribe call: the broker kept the subscription and the message.
      let (second, secondEvents) = try makeClient(broker, id) {
        $0.clientID = id
        $0.protocolVersion = version
      }
      try await second.connect(timeout: .seconds(30))
      #expect(try await secondEvents.connected() == true)
      #expect(
        try await secondEvents.message(on: topic)
          == MQTTMessage(topic: topic, payload: [0xAB, 0], qos: 1))
      await second.disconnect()
    }
  }

  @Test func aDroppedFilterIsUnsubscribedFromAPresentSession() async throws {
    try await MosquittoBroker.with { broker in
      let (old, kept) = (uniqueTopic("old-filter"), uniqueTopic("kept-filter"))
      let id = "drop-\(UUID().uuidString.prefix(8))"
      let (first, firstEvents) = try makeClient(broker, id) { $0.clientID = id }
      try first.subscribe(old, qos: 1)
      try first.subscribe(kept, qos: 1)
      try await first.connect(timeout: .seconds(30))
      try await firstEvents.connected()
      try await waitUntilSubscribed(first, firstEvents, probe: old)
      await first.disconnect()

      // The same client id, now wanting only `kept`: `old` goes from the session at connect.
      let (second, secondEvents) = try makeClient(broker, id) { $0.clientID = id }
      second.dropFromSession(old)
      try second.subscribe(kept, qos: 1)
      try await second.connect(timeout: .seconds(30))
      #expect(try await secondEvents.connected() == true)
      try await waitUntilSubscribed(second, secondEvents, probe: kept)
      try second.publish(old, payload: [1], qos: 1)
      try second.publish(kept, payload: [2], qos: 1)
      // Both went out in order on one connection: once `kept` is here, `old` would have been.
      #expect(try await secondEvents.message(on: kept).payload == [2])
      #expect((try? await secondEvents.message(on: old, within: .milliseconds(300))) == nil)
      await second.disconnect()
    }
  }

  @Test func reconnectsAndResubscribesAfterTheBrokerIsKilledAndRestarted() async throws {
    try await MosquittoBroker.with { broker in
      let topic = uniqueTopic("restart")
      // A clean session: after the restart only our re-subscription brings the messages back.
      let (client, events) = try makeClient(broker, "restart") { $0.cleanSession = true }
      try client.subscribe(topic, qos: 1)
      try await client.connect(timeout: .seconds(30))
      try await events.connected()
      try await waitUntilSubscribed(client, events, probe: topic)

      await broker.kill()
      #expect(try await events.disconnected() != 0)
      try await broker.restart()
      #expect(try await events.connected() == false)

      try await publishWhileObserved(broker, topic: topic, payload: [42])
      #expect(try await events.message(on: topic).payload == [42])
      await client.disconnect()
    }
  }

  /// After a broker that was there went away for several seconds, the client is back within
  /// about a second of its return (it tries every second while the port refuses), not after a
  /// backoff that doubled through the outage (1, 2, 4 s: 7 s later in this test).
  @Test func aReturningBrokerIsReconnectedWithinASecond() async throws {
    try await MosquittoBroker.with { broker in
      // The gateway's own delays (the test default is 100 ms to 500 ms).
      let (client, events) = try makeClient(broker, "return") {
        $0.reconnectDelay = .seconds(1)
        $0.reconnectDelayMax = .seconds(30)
      }
      try await client.connect(timeout: .seconds(30))
      try await events.connected()
      await broker.kill()
      #expect(try await events.disconnected() != 0)
      try await Task.sleep(for: .seconds(8))
      try await broker.restart()
      #expect(try await events.connected(within: .seconds(2.5)) == false)
      await client.disconnect()
    }
  }

  @Test func persistentSessionSurvivesBrokerRestartAndLaterReconnects() async throws {
    try await MosquittoBroker.with { broker in
      let topic = uniqueTopic("expiry")
      let id = "expiry-\(UUID().uuidString.prefix(8))"
      let (client, events) = try makeClient(broker, id) { $0.clientID = id }
      try client.subscribe(topic, qos: 1)
      try await client.connect(timeout: .seconds(30))
      try await events.connected()
      try await waitUntilSubscribed(client, events, probe: topic)

      try await broker.restart()  // SIGTERM: mosquitto saves the session
      try await events.disconnected()
      #expect(try await events.connected() == true)

      // The automatic reconnect sent the session expiry again: otherwise an MQTT 5 session ends
      // with this clean disconnect, and the message below would be lost.
      await client.disconnect()
      try await publishWhileObserved(broker, topic: topic, payload: [7])
      let (again, againEvents) = try makeClient(broker, id) { $0.clientID = id }
      try await again.connect(timeout: .seconds(30))
      #expect(try await againEvents.connected() == true)
      #expect(try await againEvents.message(on: topic).payload == [7])
      await again.disconnect()
    }
  }

  @Test func lastWillIsPublishedWhenTheConnectionEndsUncleanly() async throws {
    try await MosquittoBroker.with { broker in
      let willTopic = uniqueTopic("will")
      let (observer, observed) = try makeClient(broker, "observer")
      try observer.subscribe(willTopic, qos: 1)
      try await observer.connect(timeout: .seconds(30))
      try await waitUntilSubscribed(observer, observed, probe: willTopic)

      let id = "will-\(UUID().uuidString.prefix(8))"
      func withWill(_ configuration: inout MQTTConfiguration) {
        configuration.clientID = id
        configuration.cleanSession = true
        configuration.will = .init(
          topic: willTopic, payload: Array("offline".utf8), qos: 1, retain: false)
        configuration.reconnectDelay = .seconds(30)  // no tug of war over the client id
        configuration.reconnectDelayMax = .seconds(30)
      }
      // A clean disconnect discards the will: the observer's own marker is the next message.
      let (polite, _) = try makeClient(broker, id, configure: withWill)
      try await polite.connect(timeout: .seconds(30))
      await polite.disconnect()
      try observer.publish(willTopic, payload: Array("marker".utf8), qos: 1)
      #expect(try await observed.message(on: willTopic).payload == Array("marker".utf8))

      // A second connection with the same id makes the broker drop the first one without a
      // DISCONNECT from it, as if its process had died: the broker sends that client's will.
      let (victim, victimEvents) = try makeClient(broker, id, configure: withWill)
      try await victim.connect(timeout: .seconds(30))
      let (intruder, _) = try makeClient(broker, id) {
        $0.clientID = id
        $0.cleanSession = true
      }
      try await intruder.connect(timeout: .seconds(30))
      #expect(
        try await observed.message(on: willTopic)
          == MQTTMessage(topic: willTopic, payload: Array("offline".utf8), qos: 1))
      #expect(try await victimEvents.disconnected() != 0)
      await victim.disconnect()
      await intruder.disconnect()
      await observer.disconnect()
    }
  }

  @Test func connectTimesOutWhileTheBrokerIsDownAndSucceedsOnceItIsUp() async throws {
    try await MosquittoBroker.with { broker in
      await broker.stop()
      let topic = uniqueTopic("late")
      let (client, events) = try makeClient(broker, "late")
      try client.subscribe(topic, qos: 1)
      let error = await #expect(throws: MQTTError.self) {
        try await client.connect(timeout: .milliseconds(300))
      }
      #expect(error?.operation == "connect to 127.0.0.1:\(broker.port)")
      #expect(
        error?.description.contains("Connection refused") == true, "\(String(describing: error))")

      try await broker.restart()
      try await client.connect(timeout: .seconds(30))  // the thread kept retrying
      try await events.connected()
      try await waitUntilSubscribed(client, events, probe: topic)
      await client.disconnect()
      await client.disconnect()  // idempotent
      try await events.disconnected()
      while !events.isFinished { try await Task.sleep(for: .milliseconds(5)) }
    }
  }

  @Test func disconnectWhileRetryingReturnsPromptlyAndFinishesEvents() async throws {
    var configuration = MQTTConfiguration(clientID: "nobody-home", port: 1)
    configuration.reconnectDelay = .seconds(30)
    configuration.reconnectDelayMax = .seconds(30)
    let client = try MQTTClient(configuration: configuration, logger: testLogger)
    await #expect(throws: MQTTError.self) { try await client.connect(timeout: .milliseconds(100)) }
    let started = ContinuousClock.now
    await client.disconnect()
    // Far below the 30 s retry delay it would otherwise sit out.
    #expect(ContinuousClock.now - started < .seconds(10))
    for await event in client.events { Issue.record("unexpected \(event)") }
    await #expect(throws: MQTTError.self) { try await client.connect(timeout: .seconds(1)) }
  }
}

/// Publishes a QoS 1 message on `topic` and waits until a separate observer has received it, so
/// the broker has certainly processed it before the test goes on.
func publishWhileObserved(_ broker: MosquittoBroker, topic: String, payload: [UInt8]) async throws {
  let (observer, observed) = try makeClient(broker, "observer")
  // `topic/#` also matches `topic`; the probe goes elsewhere so that only `payload` reaches
  // clients subscribed to `topic` itself.
  try observer.subscribe("\(topic)/#", qos: 1)
  try await observer.connect(timeout: .seconds(30))
  try await waitUntilSubscribed(observer, observed, probe: "\(topic)/probe")
  let (publisher, _) = try makeClient(broker, "publisher")
  try await publisher.connect(timeout: .seconds(30))
  try publisher.publish(topic, payload: payload, qos: 1)
  _ = try await observed.next("message \(payload)") { event in
    if case .message(let message) = event, message.payload == payload { return message }
    return nil
  }
  await publisher.disconnect()
  await observer.disconnect()
}
