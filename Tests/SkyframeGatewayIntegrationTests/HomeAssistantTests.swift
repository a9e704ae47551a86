import Foundation
import SkyframeCodec
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@testable import SkyframeGateway
@testable import SkyframeHomeAssistant

/// Home Assistant MQTT discovery as the gateway publishes it, read from a real mosquitto (the
/// real Home Assistant reads the same messages in `Tests/HomeAssistant/test.sh`).
@Suite(.serialized) struct HomeAssistantTests {
  private func json(_ message: MQTTMessage) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any])
  }

  /// Home Assistant's side of the broker: discovery, the places' state and the named place.
  private func listening(to harness: GatewayHarness) async throws -> Device {
    try await Device.connect(
      port: harness.broker.port, id: "ha-\(UInt32.random(in: 0...UInt32.max))",
      subscribe: ["homeassistant/#", "skyframe/v1/state/#", "skyframe/v1/loc/home"])
  }

  @Test func placesWatchesAndTheGatewayAppearAndGo() async throws {
    let harness = try await GatewayHarness.make {
      $0.homeAssistant.enabled = true
      $0.watches.minimumSeconds = 1
      $0.locations = [GatewayHarness.home]
    }
    defer { Task { await harness.shutdown() } }
    let listener = try await listening(to: harness)
    try await harness.start()

    let gatewayID = "skyframe_skyframe_gateway_" + HomeAssistantDiscovery.escaped(harness.clientID)
    let gateway = try json(
      try await listener.next { $0.topic == "homeassistant/device/\(gatewayID)/config" })
    let gatewayComponents = try #require(gateway["components"] as? [String: [String: Any]])
    #expect(gatewayComponents["broker"]?["platform"] as? String == "binary_sensor")
    #expect(
      gatewayComponents["breaker_open-meteo"]?["state_topic"] as? String
        == "skyframe/v1/gateway/stats")

    let place = try json(
      try await listener.next {
        $0.topic == "homeassistant/device/skyframe_skyframe_loc_home/config"
      })
    #expect(place["state_topic"] as? String == "skyframe/v1/state/loc/home")
    let components = try #require(place["components"] as? [String: [String: Any]])
    #expect(components.count == HomeAssistantDiscovery.weatherComponents.count)
    // Every component names the gateway's state as its availability.
    for (key, component) in components {
      let availability = try #require(component["availability"] as? [[String: Any]], "\(key)")
      #expect(availability.first?["topic"] as? String == "skyframe/v1/gateway/state", "\(key)")
    }
    let temperature = try #require(components["temperature"])
    #expect(temperature["device_class"] as? String == "temperature")
    #expect(temperature["unit_of_measurement"] as? String == "°C")
    #expect(temperature["unique_id"] as? String == "skyframe_skyframe_loc_home_temperature")
    let device = try #require(place["device"] as? [String: Any])
    #expect(device["identifiers"] as? [String] == ["skyframe_skyframe_loc_home"])
    #expect(device["via_device"] as? String == gatewayID)

    // The state is the retained frame's weather.
    let frame = try WeatherFrame(
      decoding: try await listener.next { $0.topic == "skyframe/v1/loc/home" }.payload)
    let state = try json(try await listener.next { $0.topic == "skyframe/v1/state/loc/home" })
    let tenths = try #require(frame.current.temperature)
    #expect(state["temperature"] as? Double == Double(tenths) / 10)
    #expect(state["status"] as? String == "ok")
    #expect(state["name"] as? String == "home")
    #expect(state.keys.contains("aqi"), "absent values are written as null")

    // A watch of two places: one device per place; removing the watch removes both.
    let pin = try await Device.connect(port: harness.broker.port, id: "pin.ha")
    try pin.client.publish(
      "skyframe/v1/watch/pin.ha", payload: Array("52.52,13.41;48.85,2.35 @1".utf8), qos: 1,
      retain: true)
    var slots: Set<String> = []
    while slots.count < 2 {
      let message = try await listener.next {
        $0.topic.hasPrefix("homeassistant/device/skyframe_skyframe_watch_pin_2eha_")
      }
      if !message.payload.isEmpty { slots.insert(message.topic) }
    }
    #expect(
      slots == [
        "homeassistant/device/skyframe_skyframe_watch_pin_2eha_0/config",
        "homeassistant/device/skyframe_skyframe_watch_pin_2eha_1/config",
      ])
    try pin.client.publish("skyframe/v1/watch/pin.ha", payload: [], qos: 1, retain: true)
    var removed: Set<String> = []
    while removed.count < 2 {
      let message = try await listener.next {
        $0.topic.hasPrefix("homeassistant/device/skyframe_skyframe_watch_pin_2eha_")
      }
      if message.payload.isEmpty { removed.insert(message.topic) }
    }
    #expect(removed == slots)

    // Home Assistant restarted: everything is announced again.
    try pin.client.publish("homeassistant/status", payload: Array("online".utf8), qos: 1)
    _ = try await listener.next {
      $0.topic == "homeassistant/device/skyframe_skyframe_loc_home/config" && !$0.payload.isEmpty
    }
    _ = try await listener.next { $0.topic == "homeassistant/device/\(gatewayID)/config" }
  }

  /// A watch that moves to another place gets its device renamed in Home Assistant: the
  /// discovery message follows the name (it showed Berlin's name over Paris's weather before).
  @Test func aWatchThatChangesItsPlaceIsAnnouncedWithTheNewName() async throws {
    let harness = try await GatewayHarness.make {
      $0.homeAssistant.enabled = true
      $0.watches.minimumSeconds = 1
    }
    defer { Task { await harness.shutdown() } }
    let listener = try await listening(to: harness)
    try await harness.start()
    let topic = "homeassistant/device/skyframe_skyframe_watch_pin-n/config"
    func deviceName() async throws -> String? {
      let message = try await listener.next { $0.topic == topic && !$0.payload.isEmpty }
      return (try json(message)["device"] as? [String: Any])?["name"] as? String
    }
    try listener.client.publish(
      "skyframe/v1/watch/pin-n", payload: Array("Berlin @600".utf8), qos: 1, retain: true)
    #expect(try await deviceName() == "Berlin")
    try listener.client.publish(
      "skyframe/v1/watch/pin-n", payload: Array("Paris @600".utf8), qos: 1, retain: true)
    #expect(try await deviceName() == "Paris")
    try listener.client.publish("skyframe/v1/watch/pin-n", payload: [], qos: 1, retain: true)
  }

  @Test func withoutTheSectionNothingIsAnnounced() async throws {
    let harness = try await GatewayHarness.make {
      $0.locations = [GatewayHarness.home]
    }
    defer { Task { await harness.shutdown() } }
    let listener = try await listening(to: harness)
    try await harness.start()
    _ = try await listener.next { $0.topic == "skyframe/v1/loc/home" }
    #expect(try await listener.expectSilence(for: .milliseconds(700)))
  }

  @Test func idsEscapeWhatHomeAssistantDoesNotAllow() {
    #expect(HomeAssistantDiscovery.escaped("berlin-1") == "berlin-1")
    #expect(HomeAssistantDiscovery.escaped("a_b.c/d") == "a_5fb_2ec_2fd")
    // "a.b" and "a_2eb" stay apart.
    #expect(HomeAssistantDiscovery.escaped("a_2eb") != HomeAssistantDiscovery.escaped("a.b"))
  }

  /// Entity ids are one-to-one with what they name, in a form Home Assistant's slugify leaves
  /// as it is: the pairs that met before (`Kitchen`/`kitchen`, `dev-0`/`dev` slot 0, `_x`/`5fx`,
  /// `a-`/`a`) stay apart, so no id depends on which Home Assistant heard of first.
  @Test func entityIDsAreOneToOne() {
    func id(_ key: DisplayBoard.Key) -> String {
      HomeAssistantDiscovery.entityID(
        HomeAssistantDiscovery.entityParts(for: key, base: "skyframe"), key: "temperature")
    }
    #expect(id(.place("berlin")) == "skyframe_skyframe_loc_berlin_temperature")
    #expect(
      id(.watch(device: "Pin.ha-1", slot: 0))
        == "skyframe_skyframe_watch_z50inz2ehaz2d1_0_temperature")
    let pairs: [(DisplayBoard.Key, DisplayBoard.Key)] = [
      (.watch(device: "Kitchen", slot: nil), .watch(device: "kitchen", slot: nil)),
      (.watch(device: "dev-0", slot: nil), .watch(device: "dev", slot: 0)),
      (.place("_x"), .place("5fx")),
      (.place("a-"), .place("a")),
      (.place("zurich"), .place("z7aurich")),
    ]
    for (one, other) in pairs {
      #expect(id(one) != id(other), "\(one) and \(other)")
    }
    // What Home Assistant's slugify keeps: a-z, 0-9 and single '_' inside.
    for key in pairs.flatMap({ [$0.0, $0.1] }) {
      let text = id(key)
      #expect(text.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
      #expect(!text.contains("__") && !text.hasPrefix("_") && !text.hasSuffix("_"))
    }
    // Both keys name the same entity, for Home Assistant before and after 2025.10.
    let message = HomeAssistantDiscovery.display(
      .place("Zürich"), name: "Zürich", topics: GatewayConfiguration.Topics(), gatewayID: "g")
    let wind = message.components["wind_gust"]!
    #expect(wind.defaultEntityId == "sensor." + wind.objectId)
    #expect(wind.suggestedDisplayPrecision == 1)
  }

  @Test func theStateCarriesEveryFieldOfAFullFrame() throws {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../schemas/vectors/frames/20-ok-v1-1-berlin-all-fields.json")
    let vector = try #require(
      JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    let hex = try #require(vector["hex"] as? String)
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex {
      let next = hex.index(index, offsetBy: 2)
      bytes.append(try #require(UInt8(hex[index..<next], radix: 16)))
      index = next
    }
    let state = DisplayState(frame: try WeatherFrame(decoding: bytes))
    let document = try #require(
      JSONSerialization.jsonObject(with: Data(state.json())) as? [String: Any])
    let expected = try #require(vector["frame"] as? [String: Any])
    // The frame's fields: the same keys and values as the vector (the one JSON shape).
    for field in DisplayState.fields {
      let key = "\(field.name)"
      let want = try #require(expected[key], "\(key) in the vector")
      let got = try #require(document[key], "\(key) in the state")
      #expect(
        (got as? NSObject) == (want as? NSObject),
        "\(key): \(got) in the state, \(want) in the vector")
    }
    // The words, from the wire values beside the frame object.
    let raw = try #require(vector["wire"] as? [String: Any])
    let airWire = try #require(raw["air_quality"] as? Int)
    let air = try #require(AirQuality(wire: UInt16(airWire)))
    #expect(document["aqi"] as? Int == Int(air.index))
    #expect(document["aqi_scale"] as? String == "\(air.scale.name)")
    let alertsWire = try #require(raw["alerts"] as? Int)
    let alerts = try #require(AlertSummary(wire: UInt8(alertsWire)))
    #expect(document["alert_count"] as? Int == Int(alerts.count))
    #expect(document["alert_severity"] as? String == "\(alerts.highest.name)")
    let moonWire = try #require(raw["moon"] as? Int)
    let moon = try #require(MoonPhase(wire: UInt8(moonWire)))
    #expect(document["moon_phase"] as? String == "\(moon.icon.name)")
    #expect(document["next_hour"] as? String == "precipitation in 30 min")
    #expect(document["next_hour_change_min"] as? Int == 30)
    #expect(document["condition"] as? String != nil)
  }

  @Test func theAnswerRateIsPerMinuteOverTheLastMinute() {
    let rate = AnswerRate()
    #expect(rate.perMinute(total: 0, at: 1_000) == nil)
    #expect(rate.perMinute(total: 30, at: 1_030) == 60)
    #expect(rate.perMinute(total: 60, at: 1_060) == 60)
    // From the newest sample at least a minute old (t=1030: 30): 90 answers in 60 s.
    #expect(rate.perMinute(total: 120, at: 1_090) == 90)
  }
}
