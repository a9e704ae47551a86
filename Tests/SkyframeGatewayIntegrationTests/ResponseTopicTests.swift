import Foundation
import SkyframeCodec
import SkyframeMQTT
import SkyframeTestSupport
import Testing

/// MQTT v5 request/response, exercised with mosquitto_rr as a person would.
@Suite(.serialized) struct ResponseTopicTests {
  func mosquittoRR(_ arguments: [String]) async throws -> (status: Int32, output: String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "rr-\(UUID().uuidString)"
    ).path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let process = try ChildProcess(
      executable: "/usr/bin/mosquitto_rr", arguments: arguments, output: output)
    guard await process.waitForExit(upTo: .seconds(15)) else {
      process.signal(SIGKILL)
      return (-1, "")
    }
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    return (process.exitStatus ?? -1, text)
  }

  @Test func theAnswerGoesToTheResponseTopicWithTheCorrelationData() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let result = try await mosquittoRR([
      "-h", "127.0.0.1", "-p", "\(harness.broker.port)", "-t", "skyframe/v1/req/rr1",
      "-e", "skyframe/v1/resp/rr1", "-m", "#21 52.52,13.41", "-D", "publish", "correlation-data",
      "req-42",
      "-F", "%D %x", "-W", "10",
    ])
    #expect(result.status == 0)
    let words = result.output.split(separator: " ")
    #expect(words.first == "req-42")
    let hex = String(words.last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
      bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
      index = next
    }
    let frame = try WeatherFrame(decoding: bytes)
    #expect(frame.status == .ok)
    #expect(frame.requestID == 21)
  }

  @Test func anotherDevicesTopicIsRefusedAndItsOwnerHearsNothing() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let mallory = try await Device.frames(port: harness.broker.port, id: "mallory")
    let victim = try await Device.frames(port: harness.broker.port, id: "victim")
    try mallory.client.publish(
      "skyframe/v1/req/mallory", payload: Array("#5 52.52,13.41".utf8), qos: 1,
      responseTopic: "skyframe/v1/frame/victim")
    let frame = try #require(try await mallory.frames(1).first)
    #expect(frame.status == .badRequest)
    #expect(frame.requestID == 5)
    #expect(try await victim.expectSilence(for: .milliseconds(500)))
  }

  @Test func aResponseTopicOutsideThePrefixGetsBadRequestOnTheDeviceTopic() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port, id: "rr2")
    let result = try await mosquittoRR([
      "-h", "127.0.0.1", "-p", "\(harness.broker.port)", "-t", "skyframe/v1/req/rr2",
      "-e", "elsewhere/rr2", "-m", "#22 52.52,13.41", "-W", "2",
    ])
    #expect(result.status != 0)
    let frame = try #require(try await device.frames(1).first)
    #expect(frame.status == .badRequest)
    #expect(frame.requestID == 22)
  }
}
