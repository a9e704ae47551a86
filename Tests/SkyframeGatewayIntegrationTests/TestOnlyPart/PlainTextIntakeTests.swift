import Foundation
import SkyframeCodec
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@testable import SkyframeGateway

/// A new way in touches its own folder and one registration line: `PlainTextIntake` answers
/// through the shared rooms, weather and errors alike in the profile asked for.
@Suite(.serialized) struct PlainTextIntakeTests {
  @Test func aTestOnlyWayInAnswersThroughTheSharedRooms() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start(extraParts: [{ PlainTextIntake($0) }])
    let device = try await Device.connect(
      port: harness.broker.port, id: "plain-1", subscribe: ["test/answer/plain-1"])
    try device.client.publish(
      "test/ask/plain-1", payload: Array("#9 ~tiny 52.52,13.41".utf8), qos: 1)
    let tiny = try await device.next { $0.topic == "test/answer/plain-1" }
    #expect(tiny.payload.count == MessageKind.tiny.size)
    try tiny.payload.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      #expect(view.wire(TinyLayout.status) == Int64(FrameStatus.ok.rawValue))
      #expect(view.wire(TinyLayout.requestID) == 9)
    }
    // An error in the profile asked for, from the same composer.
    try device.client.publish(
      "test/ask/plain-1", payload: Array("#10 ~large 999,13".utf8), qos: 1)
    let large = try await device.next { $0.topic == "test/answer/plain-1" }
    #expect(large.payload.count == MessageKind.large.size)
    try large.payload.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      #expect(view.wire(LargeLayout.status) == Int64(FrameStatus.badRequest.rawValue))
      #expect(view.wire(LargeLayout.requestID) == 10)
    }
    // The MQTT intake is untouched by it: a device request still goes its own way.
    let other = try await Device.frames(port: harness.broker.port, id: "plain-2")
    try other.ask("#11 52.52,13.41")
    #expect(try await other.frames(1).first?.requestID == 11)
    await device.client.disconnect()
    await other.client.disconnect()
  }
}
