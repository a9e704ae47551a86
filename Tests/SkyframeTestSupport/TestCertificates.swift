import Foundation

/// A certificate authority and the certificates the TLS tests need, made with the `openssl`
/// command-line tool (Debian `openssl`) in a temporary directory, once per test process.
///
/// Every certificate is ECDSA P-256. Servers are `localhost` and `127.0.0.1` unless named
/// otherwise; clients are signed by `ca` (`client`) or by `otherCA` (`strangerClient`).
public struct TestCertificates: Sendable {
  /// A certificate and its key, PEM files.
  public struct Pair: Sendable {
    public var certificate: String
    public var key: String
  }

  public let directory: URL
  /// The CA that signed the broker's certificates and `client`.
  public let ca: String
  /// A CA that signed nothing the broker shows.
  public let otherCA: String
  public let server: Pair
  /// For `other.example` only: a host name mismatch on 127.0.0.1.
  public let wrongName: Pair
  /// Valid from 1 to 2 January 2020.
  public let expired: Pair
  /// Valid from 2099.
  public let notYetValid: Pair
  public let client: Pair
  /// A client certificate from `otherCA`, which the broker does not trust.
  public let strangerClient: Pair

  /// Made on first use; every test after that shares the files.
  public static let shared: Result<TestCertificates, OpenSSLError> = Result {
    () throws(OpenSSLError) in try TestCertificates()
  }

  public static func make() throws -> TestCertificates { try shared.get() }

  private init() throws(OpenSSLError) {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("skyframe-certificates-\(UUID().uuidString)", isDirectory: true)
    do {
      try FileManager.default.createDirectory(
        at: directory.appendingPathComponent("issued"), withIntermediateDirectories: true)
      try "".write(
        to: directory.appendingPathComponent("index.txt"), atomically: true, encoding: .utf8)
      try "01\n".write(
        to: directory.appendingPathComponent("serial"), atomically: true, encoding: .utf8)
      // `openssl ca` is the one way OpenSSL 3.0 sets both ends of a validity period.
      try """
      [ca]
      default_ca = test
      [test]
      database = \(directory.path)/index.txt
      new_certs_dir = \(directory.path)/issued
      serial = \(directory.path)/serial
      default_md = sha256
      policy = any
      copy_extensions = copy
      unique_subject = no
      [any]
      commonName = supplied

      """.write(
        to: directory.appendingPathComponent("ca.cnf"), atomically: true, encoding: .utf8)
    } catch {
      throw OpenSSLError(message: "cannot write to \(directory.path): \(error)")
    }
    let folder = directory.path
    func path(_ name: String) -> String { "\(folder)/\(name)" }
    func makeCA(_ name: String, _ subject: String) throws(OpenSSLError) -> String {
      try Self.openssl(
        "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", path("\(name).key"), "-out", path("\(name).pem"), "-days", "30", "-subj",
        "/CN=\(subject)")
      return path("\(name).pem")
    }
    /// A certificate signed by `issuer` (`ca` or `other-ca`) for `names` (subjectAltName).
    func issue(
      _ name: String, _ commonName: String, _ names: String, by issuer: String = "ca",
      from start: String? = nil, to end: String? = nil
    ) throws(OpenSSLError) -> Pair {
      try Self.openssl(
        "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", path("\(name).key"), "-out", path("\(name).csr"), "-subj", "/CN=\(commonName)",
        "-addext", "subjectAltName=\(names)")
      try Self.openssl(
        [
          "ca", "-batch", "-notext", "-config", path("ca.cnf"), "-cert", path("\(issuer).pem"),
          "-keyfile", path("\(issuer).key"), "-in", path("\(name).csr"), "-out",
          path("\(name).pem"),
        ]
          + (start.map { ["-startdate", $0] } ?? [])
          + (end.map { ["-enddate", $0] } ?? ["-days", "30"]))
      return Pair(certificate: path("\(name).pem"), key: path("\(name).key"))
    }
    ca = try makeCA("ca", "Skyframe Test CA")
    otherCA = try makeCA("other-ca", "Another Test CA")
    let server = "DNS:localhost,IP:127.0.0.1"
    self.server = try issue("server", "localhost", server)
    wrongName = try issue("wrong-name", "other.example", "DNS:other.example")
    expired = try issue(
      "expired", "localhost", server, from: "20200101000000Z", to: "20200102000000Z")
    notYetValid = try issue(
      "not-yet-valid", "localhost", server, from: "20990101000000Z", to: "20990201000000Z")
    client = try issue("client", "skyframe", "DNS:skyframe")
    strangerClient = try issue("stranger-client", "skyframe", "DNS:skyframe", by: "other-ca")
  }

  /// Runs `openssl` with `arguments`; throws with its standard error when it fails.
  public static func openssl(_ arguments: String...) throws(OpenSSLError) {
    try openssl(arguments)
  }

  public static func openssl(_ arguments: [String]) throws(OpenSSLError) {
    // Spawned as the brokers are (`ChildProcess`), with standard error in a file. Foundation's
    // `Process` hung here twice: reading a pipe that a broker started at the same moment had
    // inherited, and then waiting in `waitUntilExit` for an openssl that had long exited (its
    // exit never noticed while other children were being reaped).
    let errorsPath = FileManager.default.temporaryDirectory
      .appendingPathComponent("skyframe-openssl-\(UUID().uuidString).err").path
    defer { try? FileManager.default.removeItem(atPath: errorsPath) }
    let child: ChildProcess
    do {
      child = try ChildProcess(
        executable: "/usr/bin/openssl", arguments: arguments, errors: errorsPath)
    } catch {
      throw OpenSSLError(message: "cannot run /usr/bin/openssl (Debian package openssl): \(error)")
    }
    // A synchronous caller (the shared certificates are made once, in a static initializer).
    let deadline = ContinuousClock.now + .seconds(60)
    while child.isRunning, ContinuousClock.now < deadline { usleep(2_000) }
    let text = (try? String(contentsOfFile: errorsPath, encoding: .utf8)) ?? ""
    guard child.exitStatus == 0 else {
      let outcome = child.isRunning ? "did not finish in 60 s" : "failed"
      throw OpenSSLError(
        message: "openssl \(arguments.joined(separator: " ")) \(outcome):\n\(text)")
    }
  }
}

public struct OpenSSLError: Error, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}
