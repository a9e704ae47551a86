import Foundation
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeTestSupport
import Testing

/// The fast lane with a real broker: a flood of refused requests opens it for a device that
/// behaves, and each of that device's requests, delivered twice, is answered once.
@Suite(.serialized) struct FastLaneFloodTests {
  @Test func aDeviceThatBehavesIsAnsweredOnceForEachRequestWhileTheLaneIsOpen() async throws {
    try await ServiceTests.startEarlyInAMinute()
    let port = try MosquittoBroker.freeLoopbackPort()
    let harness = try await GatewayHarness.make {
      $0.metrics.port = port
      $0.upstream.newCellsPerMinute = 1
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    func metrics() async throws -> String {
      try await MosquittoBroker.httpGet(port: port, path: "/metrics").body
    }
    /// The value of the metric line `name` (with its labels, if any).
    func value(_ name: String) async throws -> Double? {
      try await metrics().split(separator: "\n").first { $0.hasPrefix(name + " ") }
        .flatMap { Double($0.dropFirst(name.count + 1)) }
    }
    let device = try await Device.frames(port: harness.broker.port, id: "kitchen")
    try device.ask("#1 52.52,13.41")
    #expect(try await device.frames(1).first?.status == .ok)
    #expect(try await value("skyframe_fast_lane_devices") ?? 0 == 0)

    // Known before the flood (more than `FastLane.knownSeconds`): one that came with it, here
    // the newcomer, is not taken, though it behaves as well.
    try await Task.sleep(for: .milliseconds(2_500))
    let newcomer = try await Device.frames(port: harness.broker.port, id: "newcomer")
    try newcomer.ask("#1 52.52,13.41")
    #expect(try await newcomer.frames(1).first?.status == .ok)
    // The flood: new cells from made-up ids, every one refused (the one new cell is spent).
    // 450 of them: however they fall over a second's turn, one second sees 200.
    let flooder = try await Device.connect(port: harness.broker.port, id: "flooder")
    for index in 0..<450 {
      let place = "\(10 + index / 30).\(index % 30 + 10),20.5"
      try flooder.client.publish(
        "skyframe/v1/req/flood-\(index)", payload: Array(place.utf8), qos: 0)
    }
    var opened = false
    for _ in 0..<100 where !opened {
      opened = try await value("skyframe_fast_lane_devices") == 1
      if !opened { try await Task.sleep(for: .milliseconds(100)) }
    }
    #expect(opened, "the flood did not open the fast lane for the device")
    // The SUBSCRIBE went out with the opening; give the broker a moment to take it.
    try await Task.sleep(for: .milliseconds(300))

    for id in 2...6 { try device.ask("#\(id) 52.52,13.41") }
    let frames = try await device.frames(5)
    #expect(frames.map(\.requestID).sorted() == [2, 3, 4, 5, 6])
    #expect(frames.allSatisfy { $0.status == .ok })
    #expect(try await device.expectSilence(for: .seconds(1)), "a second copy was answered")
    // Every one of the five came twice: the twin of each was dropped.
    #expect(try await value(#"skyframe_requests_unanswered_total{reason="second-copy"}"#) == 5)
    #expect(try await value("skyframe_fast_lane_devices") == 1, "the newcomer was taken")
  }
}
