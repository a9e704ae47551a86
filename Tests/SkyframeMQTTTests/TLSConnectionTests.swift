import Foundation
import SkyframeMQTT
import SkyframeTestSupport
import Testing

/// A real mosquitto with a TLS listener whose certificates `TestCertificates` makes with the
/// openssl tool: every TLS failure is named, with the setting to change, and told apart from a
/// broker that is down.
@Suite("MQTTClient over TLS")
struct TLSConnectionTests {
  @Test func aCAThatDidNotSignTheBrokerIsNamed() async throws {
    let certificates = try TestCertificates.make()
    let failure = try await connectionFailure(to: try await .startTLS(certificates)) {
      $0.tls = .init(caFile: certificates.otherCA)
    }
    guard case .unknownCA = failure.problem else {
      Issue.record("expected an unknown CA, got \(failure)")
      return
    }
    #expect(failure.description.contains("mqtt.tls.ca-file ('\(certificates.otherCA)')"))
    #expect(failure.description.contains("does not verify the broker's certificate"))
  }

  @Test func aCertificateForAnotherHostIsAHostNameMismatch() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(certificates, server: certificates.wrongName)
    let failure = try await connectionFailure(to: broker) {
      $0.tls = .init(caFile: certificates.ca)
    }
    #expect(failure.problem == .hostNameMismatch)
    #expect(failure.description.contains("not issued for '127.0.0.1': set mqtt.host"))
  }

  @Test func anExpiredBrokerCertificateIsNamed() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(certificates, server: certificates.expired)
    let failure = try await connectionFailure(to: broker) {
      $0.tls = .init(caFile: certificates.ca)
    }
    #expect(failure.problem == .certificateExpired)
    #expect(failure.description.contains("has expired"))
  }

  @Test func aBrokerCertificateNotValidYetIsNamed() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(
      certificates, server: certificates.notYetValid)
    let failure = try await connectionFailure(to: broker) {
      $0.tls = .init(caFile: certificates.ca)
    }
    #expect(failure.problem == .certificateNotYetValid)
  }

  @Test func tlsAgainstAPlainListenerIsNamed() async throws {
    let certificates = try TestCertificates.make()
    let failure = try await connectionFailure(to: try await .start()) {
      $0.tls = .init(caFile: certificates.ca)
    }
    #expect(failure.problem == .tlsAgainstPlainListener)
    #expect(failure.description.contains("answers plain MQTT: set mqtt.port"))
  }

  @Test func plainAgainstATLSListenerIsNamed() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(certificates)
    let failure = try await connectionFailure(to: broker) { $0.tls = nil }
    #expect(failure.problem == .plainAgainstTLSListener)
    #expect(
      failure.description.contains(
        "port \(broker.port) is a TLS listener but no TLS is configured: set mqtt.tls.ca-file"))
  }

  @Test func aBrokerThatIsDownIsNoConfigurationProblem() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(certificates)
    await broker.stop()
    let failure = try await connectionFailure(to: broker, within: .seconds(1)) {
      $0.tls = .init(caFile: certificates.ca)
    }
    #expect(failure.problem == nil)
    #expect(failure.description.contains("timed out"))
    #expect(failure.description.contains("Connection refused"))
  }

  @Test func passwordsTravelOverTLS() async throws {
    let certificates = try TestCertificates.make()
    let passwords = certificates.directory.appendingPathComponent(
      "passwd-\(UUID().uuidString)"
    ).path
    let made = try ChildProcess(
      executable: "/usr/bin/mosquitto_passwd",
      arguments: ["-b", "-c", passwords, "skyframe-gateway", "gateway-secret"])
    _ = await made.waitForExit(upTo: .seconds(10))
    #expect(made.exitStatus == 0)
    let broker = try await MosquittoBroker.startTLS(
      certificates, extraConfiguration: "password_file \(passwords)\nallow_anonymous false")
    defer { Task { await broker.stop() } }

    let (client, events) = try makeClient(broker, "tls-password") {
      $0.tls = .init(caFile: certificates.ca)
      $0.username = "skyframe-gateway"
      $0.password = "gateway-secret"
    }
    let topic = uniqueTopic("tls")
    try client.subscribe(topic, qos: 1)
    try await client.connect(timeout: .seconds(30))
    try await waitUntilSubscribed(client, events, probe: topic)
    await client.disconnect()

    let failure = try await connectionFailure(to: broker, stop: false) {
      $0.tls = .init(caFile: certificates.ca)
      $0.username = "skyframe-gateway"
      $0.password = "wrong"
    }
    // Not a TLS problem: the broker's refusal, with the settings to check.
    #expect(
      failure.problem
        == .refused("refused by the broker: Not authorized: check mqtt.username and mqtt.password"))
    #expect(failure.description.contains("refused by the broker"))
    #expect(failure.description.contains("check mqtt.username and mqtt.password"))
  }

  @Test func aTrustedClientCertificateIsAccepted() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(certificates, requireClientCertificate: true)
    defer { Task { await broker.stop() } }
    let (client, _) = try makeClient(broker, "tls-client") {
      $0.tls = .init(
        caFile: certificates.ca, certFile: certificates.client.certificate,
        keyFile: certificates.client.key)
    }
    try await client.connect(timeout: .seconds(30))
    #expect(client.lastFailure == nil)
    await client.disconnect()
  }

  @Test func aClientCertificateTheBrokerDoesNotTrustIsRefused() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(certificates, requireClientCertificate: true)
    let failure = try await connectionFailure(to: broker) {
      $0.tls = .init(
        caFile: certificates.ca, certFile: certificates.strangerClient.certificate,
        keyFile: certificates.strangerClient.key)
    }
    #expect(failure.problem == .clientCertificateRefused)
    #expect(failure.description.contains("refused the client certificate mqtt.tls.cert-file"))
  }

  @Test func aMissingClientCertificateIsNamed() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(certificates, requireClientCertificate: true)
    let failure = try await connectionFailure(to: broker) {
      $0.tls = .init(caFile: certificates.ca)
    }
    #expect(failure.problem == .clientCertificateRequired)
    #expect(
      failure.description.contains("set mqtt.tls.cert-file and mqtt.tls.key-file"))
  }

  @Test func theProblemStaysWhileTheClientRetries() async throws {
    let certificates = try TestCertificates.make()
    let broker = try await MosquittoBroker.startTLS(certificates)
    defer { Task { await broker.stop() } }
    let (client, _) = try makeClient(broker, "tls-retry") {
      $0.settingNames = gatewayNames
      $0.tls = .init(caFile: certificates.otherCA)
    }
    await #expect(throws: MQTTError.self) { try await client.connect(timeout: .seconds(5)) }
    // Several retries later (100-500 ms apart) the reason is still the CA, not a timeout.
    try await Task.sleep(for: .seconds(1))
    guard case .unknownCA = client.lastFailure?.problem else {
      Issue.record("expected an unknown CA, got \(String(describing: client.lastFailure))")
      return
    }
    await client.disconnect()
  }
}

/// The gateway's names for the settings, as the messages should show them.
let gatewayNames: MQTTConfiguration.SettingNames = {
  var names = MQTTConfiguration.SettingNames()
  names.host = "mqtt.host"
  names.port = "mqtt.port"
  names.username = "mqtt.username"
  names.password = "mqtt.password"
  names.caFile = "mqtt.tls.ca-file"
  names.certFile = "mqtt.tls.cert-file"
  names.keyFile = "mqtt.tls.key-file"
  return names
}()

/// Connects with `configure`d settings, expecting a failure within `timeout`: the error
/// `connect(timeout:)` throws. Stops the broker afterwards unless `stop` is false.
func connectionFailure(
  to broker: MosquittoBroker, within timeout: Duration = .seconds(30), stop: Bool = true,
  configure: (inout MQTTConfiguration) -> Void
) async throws -> MQTTError {
  let (client, _) = try makeClient(broker, "tls") {
    $0.settingNames = gatewayNames
    configure(&$0)
  }
  defer { if stop { Task { await broker.stop() } } }
  do {
    try await client.connect(timeout: timeout)
  } catch {
    await client.disconnect()
    return error
  }
  await client.disconnect()
  throw EventTimeout(description: "connected, but a failure was expected")
}
