import Logging
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@Suite("MQTTClient against mosquitto")
struct MQTTClientTests {
  @Test func roundTripKeepsBinaryPayloads() async throws {
    try await MosquittoBroker.with { broker in
      let base = uniqueTopic("roundtrip")
      let (subscriber, events) = try makeClient(broker, "sub")
      try subscriber.subscribe("\(base)/#", qos: 2)
      try await subscriber.connect(timeout: .seconds(30))
      try await waitUntilSubscribed(subscriber, events, probe: "\(base)/probe")
      let (publisher, _) = try makeClient(broker, "pub")
      try await publisher.connect(timeout: .seconds(30))

      let binary: [UInt8] = [0, 1, 0, 0xFF, 0, 0x80, 0x7F, 0]
      try publisher.publish("\(base)/qos1", payload: binary, qos: 1)
      try binary.withUnsafeBytes { try publisher.publish("\(base)/qos2", payload: $0, qos: 2) }
      try [UInt8]().withUnsafeBytes { try publisher.publish("\(base)/empty", payload: $0) }

      #expect(
        try await events.message(on: "\(base)/qos1")
          == MQTTMessage(topic: "\(base)/qos1", payload: binary, qos: 1, retain: false))
      #expect(
        try await events.message(on: "\(base)/qos2")
          == MQTTMessage(topic: "\(base)/qos2", payload: binary, qos: 2))
      #expect(
        try await events.message(on: "\(base)/empty")
          == MQTTMessage(topic: "\(base)/empty", payload: []))
      await publisher.disconnect()
      await subscriber.disconnect()
    }
  }

  @Test func retainedMessageReachesALaterSubscriber() async throws {
    try await MosquittoBroker.with { broker in
      let topic = uniqueTopic("retained")
      let (publisher, _) = try makeClient(broker, "pub")
      try await publisher.connect(timeout: .seconds(30))
      try publisher.publish(topic, payload: [1, 2, 3], qos: 1, retain: true)
      // A clean disconnect writes the PUBLISH before the DISCONNECT.
      await publisher.disconnect()

      let (subscriber, events) = try makeClient(broker, "sub")
      try subscriber.subscribe(topic, qos: 1)
      try await subscriber.connect(timeout: .seconds(30))
      #expect(
        try await events.message(on: topic)
          == MQTTMessage(topic: topic, payload: [1, 2, 3], qos: 1, retain: true))
      await subscriber.disconnect()
    }
  }

  @Test func v5ResponseTopicAndCorrelationDataArriveAsProperties() async throws {
    try await MosquittoBroker.with { broker in
      let base = uniqueTopic("v5")
      let (subscriber, events) = try makeClient(broker, "sub")
      try subscriber.subscribe("\(base)/#", qos: 1)
      try await subscriber.connect(timeout: .seconds(30))
      try await waitUntilSubscribed(subscriber, events, probe: "\(base)/probe")

      let correlation: [UInt8] = [0, 0xC0, 0xFF, 0xEE, 0]
      try subscriber.publish(
        "\(base)/request", payload: Array("req".utf8), qos: 1, responseTopic: "\(base)/reply",
        correlationData: correlation)
      try subscriber.publish("\(base)/response", payload: [], qos: 1, correlationData: correlation)
      try subscriber.publish("\(base)/plain", payload: [])

      let request = try await events.message(on: "\(base)/request")
      #expect(request.responseTopic == "\(base)/reply")
      #expect(request.correlationData == correlation)
      let response = try await events.message(on: "\(base)/response")
      #expect(response.responseTopic == nil)
      #expect(response.correlationData == correlation)
      let plain = try await events.message(on: "\(base)/plain")
      #expect(plain.responseTopic == nil && plain.correlationData == nil)
      await subscriber.disconnect()
    }
  }

  @Test func mqtt311WorksAndHasNoProperties() async throws {
    try await MosquittoBroker.with { broker in
      let base = uniqueTopic("v311")
      let (subscriber, events) = try makeClient(broker, "sub311") { $0.protocolVersion = .v311 }
      try subscriber.subscribe("\(base)/#", qos: 1)
      try await subscriber.connect(timeout: .seconds(30))
      try await waitUntilSubscribed(subscriber, events, probe: "\(base)/probe")
      let (publisher, _) = try makeClient(broker, "pub5")
      try await publisher.connect(timeout: .seconds(30))

      // Properties from an MQTT 5 publisher do not reach a 3.1.1 subscriber…
      try publisher.publish(
        "\(base)/from5", payload: [0, 5], qos: 1, responseTopic: "r", correlationData: [1])
      #expect(
        try await events.message(on: "\(base)/from5")
          == MQTTMessage(topic: "\(base)/from5", payload: [0, 5], qos: 1))
      // …and a 3.1.1 client drops them instead of failing.
      try subscriber.publish(
        "\(base)/from311", payload: [3], qos: 1, responseTopic: "r", correlationData: [1])
      #expect(
        try await events.message(on: "\(base)/from311")
          == MQTTMessage(topic: "\(base)/from311", payload: [3], qos: 1))
      await publisher.disconnect()
      await subscriber.disconnect()
    }
  }

  @Test func invalidArgumentsThrowErrorsNamingTheOperation() async throws {
    let client = try MQTTClient(
      configuration: MQTTConfiguration(clientID: "invalid", port: 1), logger: testLogger)
    let publish = #expect(throws: MQTTError.self) { try client.publish("a/#", payload: [1]) }
    #expect(publish?.operation == "publish to 'a/#'")
    #expect(publish?.code == 3)  // MOSQ_ERR_INVAL
    #expect(publish?.description == "publish to 'a/#' failed: Invalid function arguments provided.")
    let badQoS = #expect(throws: MQTTError.self) { try client.publish("a", payload: [1], qos: 3) }
    #expect(badQoS?.operation == "publish to 'a'")
    let filter = #expect(throws: MQTTError.self) { try client.subscribe("a/#/b", qos: 0) }
    #expect(filter?.operation == "subscribe to 'a/#/b'")
    #expect(throws: MQTTError.self) { try client.subscribe("a/+", qos: 3) }
    // Publishing needs a connection, whatever the QoS.
    for qos in 0...2 {
      let offline = #expect(throws: MQTTError.self) {
        try client.publish("a", payload: [1], qos: qos)
      }
      #expect(offline?.code == 4)  // MOSQ_ERR_NO_CONN
    }

    var short = MQTTConfiguration(clientID: "short")
    short.keepAlive = .seconds(2)
    let configure = #expect(throws: MQTTError.self) {
      try MQTTClient(configuration: short, logger: testLogger)
    }
    #expect(configure?.operation == "configure")
    var anonymous = MQTTConfiguration(clientID: "")
    anonymous.cleanSession = false
    #expect(throws: MQTTError.self) { try MQTTClient(configuration: anonymous, logger: testLogger) }
    await client.disconnect()
  }
}
