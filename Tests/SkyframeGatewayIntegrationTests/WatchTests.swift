import Foundation
import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeProviders
import SkyframeTestSupport
import Testing

/// Saved places: retained watches in the broker, frames pushed on their interval.
@Suite(.serialized) struct WatchTests {
  @Test func aWatchPushesRetainedFramesAndAnEmptyMessageRemovesIt() async throws {
    let harness = try await GatewayHarness.make { $0.watches.minimumSeconds = 1 }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.connect(
      port: harness.broker.port, id: "pin-1", subscribe: ["skyframe/v1/frame/pin-1/#"])
    try device.client.publish(
      "skyframe/v1/watch/pin-1", payload: Array("Paris;52.52,13.41 @1".utf8), qos: 1, retain: true)
    let first = try await device.next { $0.topic == "skyframe/v1/frame/pin-1/0" }
    let second = try await device.next { $0.topic == "skyframe/v1/frame/pin-1/1" }
    #expect(try WeatherFrame(decoding: first.payload).name.string == "Paris")
    #expect(try WeatherFrame(decoding: second.payload).slotIndex == 1)
    // Pushed again on the interval.
    _ = try await device.next(timeout: .seconds(5)) { $0.topic == "skyframe/v1/frame/pin-1/0" }
    // A display waking later finds them retained.
    let sleeper = try await Device.connect(
      port: harness.broker.port, id: "pin-1-late", subscribe: ["skyframe/v1/frame/pin-1/#"])
    #expect(try await sleeper.next { $0.topic == "skyframe/v1/frame/pin-1/0" }.retain)

    try device.client.publish("skyframe/v1/watch/pin-1", payload: [], qos: 1, retain: true)
    // A push already past its check when the watch went may still publish both slots: drain
    // what is in flight (until 300 ms pass without a message), then nothing more may come.
    try await Task.sleep(for: .milliseconds(300))
    while (try? await device.next(timeout: .milliseconds(300)) { _ in true }) != nil {}
    let quiet =
      (try? await device.next(timeout: .seconds(2)) {
        $0.topic.hasPrefix("skyframe/v1/frame/pin-1/")
      }) == nil
    #expect(quiet)
  }

  /// A push that cannot get weather (the service fails, nothing cached to serve stale) leaves
  /// the retained good frame as it is: never an error frame over it.
  @Test func aFailedPushLeavesTheRetainedFrame() async throws {
    let harness = try await GatewayHarness.make {
      $0.watches.minimumSeconds = 1
      $0.cache.ttlSeconds = 1
      $0.cache.staleSeconds = 0
      $0.upstream.breakerFailures = 100
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.connect(
      port: harness.broker.port, id: "pin-f", subscribe: ["skyframe/v1/frame/pin-f"])
    try device.client.publish(
      "skyframe/v1/watch/pin-f", payload: Array("52.52,13.41 @1".utf8), qos: 1, retain: true)
    let first = try await device.next { $0.topic == "skyframe/v1/frame/pin-f" }
    #expect(try WeatherFrame(decoding: first.payload).status == .ok)
    harness.set(.status(503, #"{"error":true,"reason":"down"}"#))
    let calls = harness.forecastCalls
    // Three intervals of failed pushes: the service is asked, nothing is published.
    let during = try? await device.next(timeout: .seconds(3)) {
      $0.topic == "skyframe/v1/frame/pin-f"
        && (try? WeatherFrame(decoding: $0.payload).status) != .ok
    }
    #expect(during == nil)
    #expect(harness.forecastCalls > calls)
    let late = try await Device.connect(
      port: harness.broker.port, id: "pin-f-late", subscribe: ["skyframe/v1/frame/pin-f"])
    let retained = try await late.next { $0.topic == "skyframe/v1/frame/pin-f" }
    #expect(try WeatherFrame(decoding: retained.payload).status == .ok)
    try device.client.publish("skyframe/v1/watch/pin-f", payload: [], qos: 1, retain: true)
  }

  /// However many watches fall due at once, at most `watches.concurrency` pushes are resolved at
  /// a time: with the service holding every call, one fetch is out, not three.
  @Test func pushesAreResolvedAtMostConcurrencyAtATime() async throws {
    let harness = try await GatewayHarness.make {
      $0.watches.minimumSeconds = 10
      $0.watches.concurrency = 1
      $0.weather.batchWindowMilliseconds = 0
      // The held call must outlive the wait below: with the harness's 2 s timeout it could give
      // up first, and a failed push is not retried until the watch's next interval.
      $0.services[OpenMeteoService.self].timeoutSeconds = 30
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    harness.set(.held)
    let device = try await Device.connect(
      port: harness.broker.port, id: "pin-c", subscribe: ["skyframe/v1/frame/#"])
    for (index, place) in ["10.5,10.5", "20.5,20.5", "30.5,30.5"].enumerated() {
      try device.client.publish(
        "skyframe/v1/watch/pin-c\(index)", payload: Array("\(place) @600".utf8), qos: 1,
        retain: true)
    }
    // Wait for the first fetch to go out, then give the others time to (wrongly) follow it.
    let start = ContinuousClock.now
    while harness.forecastCalls == 0 && ContinuousClock.now - start < .seconds(10) {
      try await Task.sleep(for: .milliseconds(20))
    }
    try await Task.sleep(for: .seconds(1))
    #expect(harness.forecastCalls == 1)
    harness.release()
    for _ in 0..<3 {
      let frame = try await device.next { $0.topic.hasPrefix("skyframe/v1/frame/pin-c") }
      #expect(try WeatherFrame(decoding: frame.payload).status == .ok)
    }
    #expect(harness.forecastCalls == 3)
    for index in 0..<3 {
      try device.client.publish(
        "skyframe/v1/watch/pin-c\(index)", payload: [], qos: 1, retain: true)
    }
  }

  @Test func aBadWatchIsAnsweredWithAnErrorFrame() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port, id: "pin-2")
    try device.client.publish(
      "skyframe/v1/watch/pin-2", payload: Array("91,0 @600".utf8), qos: 1, retain: true)
    let frame = try #require(try await device.frames(1).first)
    #expect(frame.status == .badRequest)
    try device.client.publish("skyframe/v1/watch/pin-2", payload: [], qos: 1, retain: true)
  }

  @Test func watchesSurviveAGatewayRestart() async throws {
    let harness = try await GatewayHarness.make { $0.watches.minimumSeconds = 1 }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port, id: "pin-3")
    try device.client.publish(
      "skyframe/v1/watch/pin-3", payload: Array("Rome @1".utf8), qos: 1, retain: true)
    #expect(try await device.frames(1).first?.name.string == "Rome")
    try await harness.stop()
    try await Task.sleep(for: .milliseconds(1_500))
    // Drain whatever was pushed before the stop.
    while (try? await device.next(timeout: .milliseconds(50)) { _ in true }) != nil {}
    try await harness.start()
    let pushed = try #require(try await device.frames(1, timeout: .seconds(30)).first)
    #expect(pushed.name.string == "Rome")
    try device.client.publish("skyframe/v1/watch/pin-3", payload: [], qos: 1, retain: true)
  }

  /// Logs scale with changes, not with watches: the retained watches the gateway learns at start
  /// (or again at a reconnect) write no line each; a watch set or changed now writes one.
  @Test func retainedWatchesAtStartWriteNoLineEach() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    let device = try await Device.frames(port: harness.broker.port)
    for index in 0..<5 {
      try device.client.publish(
        "skyframe/v1/watch/pin-l\(index)", payload: Array("52.52,13.41 @600".utf8), qos: 1,
        retain: true)
    }
    // All five stored at the broker before the gateway subscribes (then it gets them retained).
    let stored = try await Device.connect(
      port: harness.broker.port, id: "stored-l", subscribe: ["skyframe/v1/watch/#"])
    for _ in 0..<5 { _ = try await stored.next { $0.topic.hasPrefix("skyframe/v1/watch/pin-l") } }
    try await harness.start(logLevel: .info)
    try device.client.publish(
      "skyframe/v1/watch/pin-lnew", payload: Array("48.85,2.35 @600".utf8), qos: 1, retain: true)
    for _ in 0..<300 where !harness.logs.all.contains(where: { $0.contains("watching") }) {
      try await Task.sleep(for: .milliseconds(10))
    }
    try await Task.sleep(for: .milliseconds(300))
    let lines = harness.logs.all.filter { $0.contains("watching") }
    #expect(lines.count == 1, "\(lines)")
    for index in 0..<5 {
      try device.client.publish(
        "skyframe/v1/watch/pin-l\(index)", payload: [], qos: 1, retain: true)
    }
    try device.client.publish("skyframe/v1/watch/pin-lnew", payload: [], qos: 1, retain: true)
  }

  /// A watch removed (or cut to fewer places) leaves no retained frame behind: a display that
  /// subscribes later never finds a frame of a watch that no longer exists.
  @Test func removingAWatchClearsItsRetainedFrames() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.connect(
      port: harness.broker.port, id: "pin-r", subscribe: ["skyframe/v1/frame/pin-r/#"])
    try device.client.publish(
      "skyframe/v1/watch/pin-r", payload: Array("Paris;52.52,13.41 @600".utf8), qos: 1, retain: true
    )
    _ = try await device.next { $0.topic == "skyframe/v1/frame/pin-r/1" && !$0.payload.isEmpty }
    // Cut to one place: the frames of slots 0 and 1 go, the single frame comes.
    try device.client.publish(
      "skyframe/v1/watch/pin-r", payload: Array("52.52,13.41 @600".utf8), qos: 1, retain: true)
    _ = try await device.next { $0.topic == "skyframe/v1/frame/pin-r" && !$0.payload.isEmpty }
    try device.client.publish("skyframe/v1/watch/pin-r", payload: [], qos: 1, retain: true)
    _ = try await device.next { $0.topic == "skyframe/v1/frame/pin-r" && $0.payload.isEmpty }
    let later = try await Device.connect(
      port: harness.broker.port, id: "late-r",
      subscribe: ["skyframe/v1/frame/pin-r/#"])
    let retained = try? await later.next(timeout: .milliseconds(800))
    #expect(retained == nil, "\(retained.map { $0.topic } ?? "")")
  }

  /// A broker that comes back with nothing (killed before it saved: no session, no retained
  /// messages) gets every watch's frame again soon, not only at the watch's next interval.
  @Test func aBrokerThatLostEverythingGetsTheWatchFramesAgain() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.connect(
      port: harness.broker.port, id: "pin-k", subscribe: ["skyframe/v1/frame/pin-k"])
    try device.client.publish(
      "skyframe/v1/watch/pin-k", payload: Array("52.52,13.41 @3600".utf8), qos: 1, retain: true)
    _ = try await device.next { $0.topic == "skyframe/v1/frame/pin-k" }
    await device.client.disconnect()
    await harness.broker.kill()
    try await harness.broker.restart()
    // The gateway still knows the watch (the broker lost its message with the rest) and pushes
    // it again when it finds the broker has kept nothing of it.
    let later = try await Device.connect(
      port: harness.broker.port, id: "late-k", subscribe: ["skyframe/v1/frame/pin-k"])
    let frame = try await later.next(timeout: .seconds(30)) {
      $0.topic == "skyframe/v1/frame/pin-k"
    }
    #expect(!frame.payload.isEmpty)
  }
}
