import Foundation
import SkyframeMQTT
import SkyframeTestSupport
import Testing

/// The `mqtt.tls.*` keys from the operator's side: `config check` and `run` read the files
/// before connecting, and a running gateway names a TLS mismatch in its log and in `/health`.
@Suite(.serialized) struct TLSConfigurationTests {
  func write(_ text: String, named name: String = "yaml") throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "skyframe-tls-\(UUID().uuidString).\(name)")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url.path
  }

  @Test func unusableTLSFilesAreRefusedBeforeConnecting() async throws {
    let certificates = try TestCertificates.make()
    // A CA file that holds a key and no certificate, a client certificate that has expired, a
    // key that belongs to another certificate.
    let noCertificate = try write(
      try String(contentsOfFile: certificates.client.key, encoding: .utf8), named: "pem")
    let file = try write(
      """
      mqtt:
        tls:
          ca-file: \(noCertificate)
          cert-file: \(certificates.expired.certificate)
          key-file: \(certificates.client.key)
      """)
    for arguments in [["config", "check", "--config", file], ["run", "--config", file]] {
      let result = try await Tool.run(arguments)
      #expect(result.status == 1)
      #expect(
        result.stderr.contains(
          "mqtt.tls.ca-file (env SKYFRAME_MQTT_TLS_CA_FILE): '\(noCertificate)' holds no "
            + "certificate"), "\(result.stderr)")
      #expect(
        result.stderr.contains(
          "mqtt.tls.cert-file (env SKYFRAME_MQTT_TLS_CERT_FILE): "
            + "'\(certificates.expired.certificate)' has expired"), "\(result.stderr)")
    }

    let mismatched = try write(
      """
      mqtt:
        tls:
          ca-file: \(certificates.ca)
          cert-file: \(certificates.client.certificate)
          key-file: \(certificates.server.key)
      """)
    let result = try await Tool.run(["config", "check", "--config", mismatched])
    #expect(result.status == 1)
    #expect(
      result.stderr.contains(
        "mqtt.tls.key-file (env SKYFRAME_MQTT_TLS_KEY_FILE): '\(certificates.server.key)' is "
          + "not the key of the certificate in '\(certificates.client.certificate)'"),
      "\(result.stderr)")
  }

  /// A missing certificate is named once, by its own key: the good key beside it is not blamed,
  /// and a key that cannot be read is not also "nothing".
  @Test func aMissingFileIsNamedOnceByItsOwnKey() async throws {
    let certificates = try TestCertificates.make()
    let file = try write(
      """
      mqtt:
        tls:
          ca-file: \(certificates.ca)
          cert-file: /nonexistent/client.pem
          key-file: \(certificates.client.key)
      """)
    let result = try await Tool.run(["config", "check", "--config", file])
    #expect(result.status == 1)
    let lines = result.stderr.split(separator: "\n").filter { $0.contains("mqtt.tls") }
    #expect(
      lines == [
        "skyframe: configuration: mqtt.tls.cert-file (env SKYFRAME_MQTT_TLS_CERT_FILE): '/nonexistent/client.pem' does not exist"
      ], "\(result.stderr)")
    let missingKey = try write(
      """
      mqtt:
        tls:
          ca-file: \(certificates.ca)
          cert-file: \(certificates.client.certificate)
          key-file: /nonexistent/client.key
      """)
    let second = try await Tool.run(["config", "check", "--config", missingKey])
    #expect(!second.stderr.contains("nothing is not allowed"), "\(second.stderr)")
    #expect(second.stderr.contains("'/nonexistent/client.key' does not exist"))
  }

  @Test func aClientCertificateWithoutACAFileIsRefused() async throws {
    let certificates = try TestCertificates.make()
    let file = try write(
      """
      mqtt:
        tls:
          cert-file: \(certificates.client.certificate)
          key-file: \(certificates.client.key)
      """)
    let result = try await Tool.run(["config", "check", "--config", file])
    #expect(result.status == 1)
    #expect(result.stderr.contains("mqtt.tls.ca-file (env SKYFRAME_MQTT_TLS_CA_FILE): nothing"))
  }

  @Test func goodTLSFilesPass() async throws {
    let certificates = try TestCertificates.make()
    let file = try write(
      """
      mqtt:
        port: 8883
        tls:
          ca-file: \(certificates.ca)
          cert-file: \(certificates.client.certificate)
          key-file: \(certificates.client.key)
      """)
    let result = try await Tool.run(["config", "check", "--config", file])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("ca-file: "))
    #expect(result.stdout.contains(certificates.ca), "\(result.stdout)")
  }

  /// The gateway against a TLS broker with a CA file that did not sign the broker's
  /// certificate: one error line with the key, no "not reachable", the same words in /health.
  @Test func aRunningGatewayNamesTheCAInItsLogAndHealth() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(certificates)
    defer { Task { await broker.stop() } }
    let metricsPort = try MosquittoBroker.freeLoopbackPort()
    let file = try write(
      """
      mqtt:
        port: \(broker.port)
        client-id: gw-tls
        tls:
          ca-file: \(certificates.otherCA)
      metrics:
        host: 127.0.0.1
        port: \(metricsPort)
      locations:
        names: []
      """)
    let errors = try write("", named: "log")
    let gateway = try ChildProcess(
      executable: Tool.binary.path, arguments: ["run", "--config", file], errors: errors)
    defer {
      gateway.signal(SIGKILL)
    }
    let expected =
      "TLS: mqtt.tls.ca-file ('\(certificates.otherCA)') does not verify the broker's certificate"
    var status: [String: Any] = [:]
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
      if let answer = try? await MosquittoBroker.httpGet(port: metricsPort, path: "/health"),
        let health = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8))
          as? [String: Any],
        let found = health["broker"] as? [String: Any], found["last_error"] != nil
      {
        status = found
        break
      }
      try await Task.sleep(for: .milliseconds(100))
    }
    #expect(status["connected"] as? Bool == false, "\(status)")
    #expect((status["last_error"] as? String)?.contains(expected) == true, "\(status)")
    // Retries (1 s, then 2 s apart) fail alike: still one line, and no timeout.
    try await Task.sleep(for: .seconds(3.5))
    let log = try String(contentsOfFile: errors, encoding: .utf8)
    #expect(log.components(separatedBy: expected).count == 2, "\(log)")
    #expect(!log.contains("not reachable"), "\(log)")
    #expect(!log.contains("timed out"), "\(log)")
  }
}
