import Foundation
import SkyframeCodec
import SkyframeGateway
import SkyframeJSON
import SkyframeMQTT
import SkyframeTestSupport
import Synchronization
import Testing

/// The gateway end to end: a real mosquitto, real HTTP, frames decoded as a display would.
/// What the rooms do with no broker (coalescing, limits, refresh, profiles) is tested in
/// `AnswerPathTests`; here what a broker and a real service add.
@Suite(.serialized) struct GatewayTests {
  @Test func coordinatesAreAnsweredWithTheWeatherThere() async throws {
    let harness = try await GatewayHarness.make(adjust: GatewayHarness.waitForSupplements)
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#7 52.52,13.41")
    let frame = try #require(try await device.frames(1).first)
    #expect(frame.status == .ok)
    #expect(frame.requestID == 7)
    #expect(frame.service == .openMeteo)
    #expect(frame.current.temperature == 125)
    #expect(frame.name.string == "52.52,13.41")
    #expect(frame.latitude == 5_252_000)
    #expect(frame.utcOffsetMinutes == 60)
    #expect(frame.daily[0].maximum == 95)
    #expect(frame.fetchedAt != nil)
    let forecast = try #require(harness.http.requests.first { $0.path.hasSuffix("/forecast") })
    #expect(forecast.query["timezone"] == "auto")
    // v1.1: the stand-in service is dry for two quarter hours, then rain; the moon is computed;
    // the cache's 600 s say when newer data comes.
    let next = try #require(frame.precipitationNextHour)
    #expect(!next.precipitatingNow)
    #expect((15...30).contains(next.minutesUntilChange ?? 99))
    #expect(frame.moon != nil)
    #expect((599...600).contains(frame.nextUpdateSeconds ?? 0))
    #expect(frame.airQuality?.scale == .europeanAQI)
    #expect(frame.alerts == nil)
  }

  @Test func cityNamesAreResolvedAndSeveralPlacesComeInOrder() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#3 Rome;Atlantis;Berlin,DE;48.85,2.35")
    let frames = try await device.frames(4)
    #expect(frames.map(\.slotIndex) == [0, 1, 2, 3])
    #expect(frames.allSatisfy { $0.slotCount == 4 && $0.requestID == 3 })
    #expect(frames.map(\.status) == [.ok, .notFound, .ok, .ok])
    #expect(frames[0].name.string == "Rome")
    #expect(frames[0].country == CountryCode("IT"))
    #expect(frames[1].name.string == "Atlantis")
    #expect(frames[2].name.string == "Berlin")
    #expect(frames[2].latitude == 5_252_437)
    #expect(frames[3].name.string == "48.85,2.35")
  }

  @Test func aBadRequestIsAnsweredAndTheGatewayKeepsServing() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.client.publish("skyframe/v1/req/\(device.id)", payload: [0xFF, 0xFE, 0x00, 0x41])
    try device.ask("#12 91,0")
    try device.ask("#13 A;B;C;D;E;F;G;H")
    try device.ask("#14 52.52,13.41")
    let frames = try await device.frames(4)
    #expect(frames.map(\.status) == [.badRequest, .badRequest, .tooManyLocations, .ok])
    #expect(frames.map(\.requestID) == [0, 12, 13, 14])
    #expect(frames[1].name.string.contains("latitude"))
  }

  @Test func invalidDeviceIdsAreDropped() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let long = String(repeating: "x", count: 33)
    let device = try await Device.frames(port: harness.broker.port, id: long)
    try device.ask("52.52,13.41")
    #expect(try await device.expectSilence(for: .seconds(1)))
    let good = try await Device.frames(port: harness.broker.port)
    try good.ask("52.52,13.41")
    #expect(try await good.frames(1).first?.status == .ok)
  }

  @Test func theLastGoodFrameIsServedStaleWhenTheServiceFails() async throws {
    let harness = try await GatewayHarness.make { $0.cache.ttlSeconds = 1 }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("52.52,13.41")
    let fresh = try #require(try await device.frames(1).first)
    #expect(fresh.status == .ok)
    harness.set(.status(503, "<html>Service Unavailable</html>"))
    try await Task.sleep(for: .milliseconds(1_100))
    try device.ask("52.52,13.41;48.85,2.35")
    let frames = try await device.frames(2)
    #expect(frames[0].status == .stale)
    #expect(frames[0].fetchedAt == fresh.fetchedAt)
    #expect(frames[0].current.temperature == fresh.current.temperature)
    #expect(frames[1].status == .upstreamUnavailable)
  }

  @Test func everyServiceErrorHasItsStatus() async throws {
    // Every call is made: the breaker would otherwise pause the service after two failures.
    let harness = try await GatewayHarness.make { $0.upstream.breakerFailures = 1_000 }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    let cases: [(GatewayHarness.Mode, FrameStatus)] = [
      (.status(400, OpenMeteoFixtures.badRequest), .internalError),
      (.status(500, "oops"), .upstreamUnavailable),
      (.status(503, ""), .upstreamUnavailable),
      (.slow(.seconds(4)), .upstreamUnavailable),
      (.garbage, .upstreamUnavailable),
      (.drop, .upstreamUnavailable),
    ]
    for (index, (mode, status)) in cases.enumerated() {
      harness.set(mode)
      // A fresh cell each time, so nothing is cached.
      try device.ask("#\(index) \(10 + index).5,\(20 + index).5")
      let frame = try #require(try await device.frames(1, timeout: .seconds(15)).first)
      #expect(frame.status == status, "\(mode)")
      #expect(frame.requestID == UInt16(index))
    }
    harness.set(.status(400, OpenMeteoFixtures.badRequest))
    try device.ask("Gotham")
    #expect(try await device.frames(1).first?.status == .badRequest)
    harness.set(.status(503, ""))
    try device.ask("Metropolis")
    #expect(try await device.frames(1).first?.status == .upstreamUnavailable)
    // Last, as a 429 stops all calls for a while (the circuit breaker).
    harness.set(.status(429, OpenMeteoFixtures.rateLimited))
    try device.ask("#99 9.5,9.5")
    #expect(try await device.frames(1).first?.status == .rateLimited)
  }

  @Test func namedLocationsArePublishedRetained() async throws {
    let harness = try await GatewayHarness.make {
      $0.locations = [
        GatewayHarness.home,
        .init(name: "office", place: .named("Paris", countryCode: "FR"), refreshSeconds: 60),
      ]
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    try await Task.sleep(for: .milliseconds(500))
    // A display that wakes up later gets both at once.
    let display = try await Device.connect(
      port: harness.broker.port, id: "epaper-1", subscribe: ["skyframe/v1/loc/+"])
    let first = try await display.next(timeout: .seconds(30))
    let second = try await display.next(timeout: .seconds(30))
    let byTopic = Dictionary(uniqueKeysWithValues: [first, second].map { ($0.topic, $0) })
    let home = try WeatherFrame(decoding: try #require(byTopic["skyframe/v1/loc/home"]).payload)
    let office = try WeatherFrame(decoding: try #require(byTopic["skyframe/v1/loc/office"]).payload)
    #expect(first.retain && second.retain)
    #expect(home.status == .ok && home.name.string == "home")
    #expect(office.status == .ok && office.name.string == "Paris")
  }

  @Test func availabilityIsOnlineWhileRunningAndOfflineAfterAGracefulStop() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let watcher = try await Device.connect(
      port: harness.broker.port, id: "watcher", subscribe: ["skyframe/v1/gateway/state"])
    let online = try await watcher.next()
    #expect(String(decoding: online.payload, as: UTF8.self) == #"{"state":"online"}"#)
    #expect(online.retain)
    try await harness.stop()
    let offline = try await watcher.next()
    #expect(String(decoding: offline.payload, as: UTF8.self) == #"{"state":"offline"}"#)
  }

  @Test func aRequestSentWhileTheGatewayIsDownIsAnsweredWhenItIsBack() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    try await harness.stop()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#77 Berlin", qos: 1)
    #expect(try await device.expectSilence(for: .milliseconds(300)))
    try await harness.start()
    let frame = try #require(try await device.frames(1).first)
    #expect(frame.requestID == 77)
    #expect(frame.name.string == "Berlin")
  }

  @Test func debugJSONMirrorsEachAnswer() async throws {
    let harness = try await GatewayHarness.make { $0.topics.debugJSON = true }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.connect(
      port: harness.broker.port, id: "dbg",
      subscribe: ["skyframe/v1/frame/dbg/json", "skyframe/v1/frame/dbg"])
    try device.ask("#9 Rome")
    let json = try await device.next { $0.topic.hasSuffix("/json") }
    let object = try JSONSerialization.jsonObject(with: Data(json.payload)) as? [String: Any]
    #expect(object?["name"] as? String == "Rome")
    #expect(object?["request_id"] as? Int == 9)
    // The shape of `skyframe decode --json` (frame-profiles.md §8): the frame's own JSON, the
    // packed fields by what they mean (the moon, which the gateway computes, as an object).
    let frame = try await device.next { $0.topic == "skyframe/v1/frame/dbg" }
    let expected = try frame.payload.withUnsafeBytes { try ProfileDocument.json(of: $0) }
    #expect(json.payload == expected)
    let moon = object?["moon"] as? [String: Any]
    #expect(moon?["name"] is String && moon?["phase"] is NSNumber && moon?["lit"] is NSNumber)
    #expect(object?["sun"] is String || object?["sun"] is NSNull)
  }
}
