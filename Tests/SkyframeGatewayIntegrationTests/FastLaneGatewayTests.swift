import Foundation
import Logging
import SkyframeCodec
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@testable import SkyframeGateway

/// The fast lane in a running gateway (its unit tests open it on the calling thread): a flood's
/// refusals, seen on the network thread, open it in the part's Service; a device that behaved
/// before the flood is taken on it and still answered.
@Suite(.serialized) struct FastLaneGatewayTests {
  @Test func aFloodOpensTheLaneInItsServiceForADeviceThatBehaved() async throws {
    let harness = try await GatewayHarness.make(clock: GatewayHarness.minuteAlignedClock()) {
      $0.mqtt.fastLaneDevices = 8
      $0.requests.perDevicePerMinute = 5
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start(logLevel: .info)
    let port = harness.broker.port

    // Known before the flood (more than `knownSeconds` before it), and within its limit.
    let calm = try await Device.frames(port: port, id: "calm-1")
    try calm.ask("52.52,13.41")
    #expect(try await calm.frames(1).first?.status == .ok)
    try await Task.sleep(for: .milliseconds(2_200))

    // One device far over its limit: every request past the fifth is a refusal.
    let flood = try await Device.connect(port: port, id: "flood-1")
    for _ in 0..<(FastLane.floodRefusals * 2) {
      try flood.client.publish(
        "skyframe/v1/req/flood-1", payload: Array("52.52,13.41".utf8), qos: 0)
    }
    var opened: String?
    for _ in 0..<250 where opened == nil {
      opened = harness.logs.all.first { $0.contains("fast lane open for") }
      if opened == nil { try await Task.sleep(for: .milliseconds(20)) }
    }
    #expect(opened?.contains("fast lane open for 1 devices that behave") == true, "\(opened ?? "")")

    // The device on the lane is answered once, though the broker delivers its request twice
    // (answered twice, both copies, before: the stream's came first while it was busy with the
    // flood's tail, and was not kept for its twin).
    try calm.ask("#7 52.52,13.41")
    let answer = try #require(try await calm.frames(1).first)
    #expect(answer.status == .ok && answer.requestID == 7, "\(answer.status) \(answer.requestID)")
    let again = try? await calm.next(timeout: .milliseconds(700)) {
      $0.topic == "skyframe/v1/frame/calm-1"
    }
    #expect(again == nil, "answered twice")
    await flood.client.disconnect()
    await calm.client.disconnect()
  }
}
