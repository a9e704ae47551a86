import Foundation
import SkyframeTestSupport
import Testing

/// `skyframe request` as a new user meets it: a broker that is not there is said at once, by
/// what the refusal was, and the gateway's own SKYFRAME_MQTT_* variables reach the broker too.
@Suite struct RequestCommandTests {
  @Test func aRefusedConnectionIsSaidAtOnceNotAfterTheWait() async throws {
    let port = try MosquittoBroker.freeLoopbackPort()
    let result = try await Tool.run([
      "request", "Berlin,DE", "--port", "\(port)", "--timeout", "30",
    ])
    #expect(result.status != 0)
    // The refusal itself, not the timeout's "no complete answer within 30 s".
    #expect(result.stderr.contains("127.0.0.1:\(port)"))
    #expect(result.stderr.contains("refused"), "\(result.stderr)")
    #expect(!result.stderr.contains("within 30 s"))
  }

  @Test func theGatewaysVariablesNameTheBroker() async throws {
    let port = try MosquittoBroker.freeLoopbackPort()
    var environment = ProcessInfo.processInfo.environment
    environment["SKYFRAME_MQTT_PORT"] = "\(port)"
    let result = try await Tool.run(["request", "Berlin,DE"], environment: environment)
    #expect(result.status != 0)
    #expect(result.stderr.contains("127.0.0.1:\(port)"), "\(result.stderr)")
    environment["SKYFRAME_MQTT_PORT"] = "99999"
    let bad = try await Tool.run(["request", "Berlin,DE"], environment: environment)
    #expect(bad.stderr.contains("SKYFRAME_MQTT_PORT"), "\(bad.stderr)")
  }

  @Test func rawBytesFedToDecodeAreToldAboutRaw() async throws {
    let result = try await Tool.run(["decode"], input: Data([0x53, 0x46, 0x01, 0x00, 0xFF]))
    #expect(result.status != 0)
    #expect(result.stderr.contains("--raw"), "\(result.stderr)")
  }
}
