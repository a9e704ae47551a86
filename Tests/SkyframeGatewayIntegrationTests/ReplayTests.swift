import Foundation
import SkyframeCodec
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@testable import SkyframeGateway

/// After a broker restart, mosquitto delivers what its last saved database held: QoS 1 requests
/// the gateway answered since may come again. One with an id that comes again in the time after
/// a reconnect that found the session is not answered twice (`requests.replay-window-seconds`).
@Suite(.serialized) struct ReplayTests {
  @Test func theMemoryFindsWhatItNotedWithinTheWindowAndNeverGrows() {
    let memory = AnsweredMemory(capacity: 100)
    let first = AnsweredMemory.fingerprint(
      device: "d1", payload: UnsafeRawBufferPointer(start: nil, count: 0), correlation: nil)
    #expect(!memory.seenElseNote(first, since: 900, now: 1_000))
    #expect(memory.seenElseNote(first, since: 900, now: 1_010))
    #expect(!memory.seenElseNote(first, since: 1_001, now: 1_010), "older than the window")
    // Far more fingerprints than room: the oldest give way, the table stays its size.
    for index in 0..<10_000 {
      let bytes = Array("#\(index) Berlin".utf8)
      let print = bytes.withUnsafeBytes {
        AnsweredMemory.fingerprint(device: "flood", payload: $0, correlation: nil)
      }
      _ = memory.seenElseNote(print, since: 0, now: 2_000 + Int64(index))
    }
    let recent = Array("#9999 Berlin".utf8).withUnsafeBytes {
      AnsweredMemory.fingerprint(device: "flood", payload: $0, correlation: nil)
    }
    #expect(memory.seenElseNote(recent, since: 0, now: 20_000))
    // Another device, the same payload: another request.
    let other = Array("#9999 Berlin".utf8).withUnsafeBytes {
      AnsweredMemory.fingerprint(device: "floods", payload: $0, correlation: nil)
    }
    #expect(!memory.seenElseNote(other, since: 0, now: 20_000))
  }

  @Test func aRequestDeliveredAgainAfterAReconnectIsAnsweredOnce() async throws {
    let metricsPort = try MosquittoBroker.freeLoopbackPort()
    let harness = try await GatewayHarness.make { $0.metrics.port = metricsPort }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let port = harness.broker.port
    let device = try await Device.frames(port: port, id: "replay-1")
    try device.ask("#41 52.52,13.41")
    #expect(try await device.frames(1).first?.requestID == 41)
    // Before any reconnect a repeat is the device asking again (its retry): answered.
    try device.ask("#41 52.52,13.41")
    #expect(try await device.frames(1).first?.requestID == 41)

    await device.client.disconnect()
    try await harness.broker.restart()
    let state = try await Device.connect(
      port: port, id: "state-replay", subscribe: ["skyframe/v1/gateway/state"])
    _ = try await state.next(timeout: .seconds(30)) {
      String(decoding: $0.payload, as: UTF8.self).contains("online")
    }
    // The gateway is back with its session: the same QoS 1 request now is what the broker's
    // replay would bring. Not answered; another id is, and so is a QoS 0 copy.
    let again = try await Device.frames(port: port, id: "replay-1")
    try again.ask("#41 52.52,13.41")
    #expect(try await again.expectSilence(for: .milliseconds(800)), "answered twice")
    try again.ask("#42 52.52,13.41")
    #expect(try await again.frames(1).first?.requestID == 42)
    try again.ask("#41 52.52,13.41", qos: 0)
    #expect(try await again.frames(1).first?.requestID == 41)
    let metrics = try await MosquittoBroker.httpGet(port: metricsPort, path: "/metrics").body
    #expect(metrics.contains(#"skyframe_requests_unanswered_total{reason="replayed"} 1"#))
    await again.client.disconnect()
    await state.client.disconnect()
  }
}
