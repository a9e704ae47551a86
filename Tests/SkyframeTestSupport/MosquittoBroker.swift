import Foundation
import SkyframeMQTT
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A real `mosquitto` for integration tests, listening on 127.0.0.1 on a free port, with
/// persistence in its own temporary directory so `restart()` keeps sessions and retained messages.
///
/// Prefer `MosquittoBroker.with { broker in ... }`, which always stops it. A broker that is only
/// released is killed in `deinit`.
public final class MosquittoBroker: Sendable {
  public let port: Int
  public var host: String { "127.0.0.1" }
  /// The temporary directory with `mosquitto.conf`, the log and the persistence file.
  public let directory: URL
  /// Lines added to the generated `mosquitto.conf` (an ACL file, a password file, …).
  private let extraConfiguration: String
  private let process = Mutex<ChildProcess?>(nil)

  public static let executable = "/usr/sbin/mosquitto"

  private init(port: Int, directory: URL, extraConfiguration: String) {
    self.port = port
    self.directory = directory
    self.extraConfiguration = extraConfiguration
  }

  deinit {
    process.withLock { $0?.signal(SIGKILL) }
    try? FileManager.default.removeItem(at: directory)
  }

  /// Starts a broker and returns once it accepts connections.
  ///
  /// - Parameter extraConfiguration: lines appended to its configuration.
  public static func start(extraConfiguration: String = "") async throws -> MosquittoBroker {
    var lastError: (any Error)?
    // The free port is only free until something else takes it: try a few.
    for _ in 0..<3 {
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("skyframe-mosquitto-\(UUID().uuidString)", isDirectory: true)
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let broker = MosquittoBroker(
        port: try Self.freeLoopbackPort(), directory: directory,
        extraConfiguration: extraConfiguration)
      do {
        try broker.writeConfiguration()
        try await broker.launch()
        return broker
      } catch {
        lastError = error
      }
    }
    throw lastError!
  }

  /// Runs `body` with a fresh broker and stops the broker afterwards, also when `body` throws.
  public static func with<T>(_ body: (MosquittoBroker) async throws -> T) async throws -> T {
    let broker = try await start()
    do {
      let result = try await body(broker)
      await broker.stop()
      return result
    } catch {
      await broker.stop()
      throw error
    }
  }

  /// A broker whose listener speaks TLS with `server` (a certificate signed by `certificates.ca`);
  /// with `requireClientCertificate` it also asks for a client certificate signed by that CA.
  public static func startTLS(
    _ certificates: TestCertificates, server: TestCertificates.Pair? = nil,
    requireClientCertificate: Bool = false, extraConfiguration: String = ""
  ) async throws -> MosquittoBroker {
    let server = server ?? certificates.server
    return try await start(
      extraConfiguration: """
        cafile \(certificates.ca)
        certfile \(server.certificate)
        keyfile \(server.key)
        require_certificate \(requireClientCertificate)
        \(extraConfiguration)
        """)
  }

  /// A client configuration for this broker, with a short reconnect delay for tests.
  public func clientConfiguration(clientID: String) -> MQTTConfiguration {
    var configuration = MQTTConfiguration(clientID: clientID, host: host, port: port)
    configuration.reconnectDelay = .milliseconds(100)
    configuration.reconnectDelayMax = .milliseconds(500)
    return configuration
  }

  /// SIGTERM and wait: mosquitto writes its persistence file and exits. No-op if not running.
  public func stop() async {
    await end(with: SIGTERM)
  }

  /// SIGKILL and wait: a crash, nothing is saved. No-op if not running.
  public func kill() async {
    await end(with: SIGKILL)
  }

  /// Stops the broker if it runs and starts it again on the same port, from the saved state.
  public func restart() async throws {
    await stop()
    try await launch()
  }

  /// The broker's log so far, for failure messages.
  public var log: String {
    (try? String(contentsOf: directory.appendingPathComponent("mosquitto.log"), encoding: .utf8))
      ?? ""
  }

  private func end(with signal: Int32) async {
    guard let running = process.withLock({ $0.take() }) else { return }
    running.signal(signal)
    if await !running.waitForExit(upTo: .seconds(5)) {
      running.signal(SIGKILL)
      _ = await running.waitForExit(upTo: .seconds(5))
    }
  }

  private func writeConfiguration() throws {
    let user =
      getpwuid(geteuid()).flatMap { $0.pointee.pw_name.map { String(cString: $0) } } ?? "root"
    let configuration = """
      listener \(port) 127.0.0.1
      allow_anonymous true
      set_tcp_nodelay true
      persistence true
      persistence_location \(directory.path)/
      persistence_file mosquitto.db
      log_dest file \(directory.path)/mosquitto.log
      log_type all
      log_timestamp_format %H:%M:%S
      connection_messages true
      # Started as root, mosquitto would switch to the "mosquitto" user and lose access here.
      user \(user)
      \(extraConfiguration)

      """
    try configuration.write(
      to: directory.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
  }

  private func launch() async throws {
    let running = try ChildProcess(
      executable: Self.executable,
      arguments: ["-c", directory.appendingPathComponent("mosquitto.conf").path])
    let deadline = ContinuousClock.now + .seconds(5)
    while !Self.canConnect(to: port) {
      guard running.isRunning, ContinuousClock.now < deadline else {
        running.signal(SIGKILL)
        _ = await running.waitForExit(upTo: .seconds(2))
        throw MosquittoBrokerError(message: "mosquitto did not start on port \(port):\n\(log)")
      }
      try await Task.sleep(for: .milliseconds(10))
    }
    process.withLock { $0 = running }
  }
}

public struct MosquittoBrokerError: Error, CustomStringConvertible {
  public var message: String
  public var description: String { message }
}

// Plain sockets: enough to find a port and to see the broker listening.
extension MosquittoBroker {
  /// A port nothing listens on right now: bind port 0 on loopback, read what the kernel chose.
  public static func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else {
      throw MosquittoBrokerError(message: "socket: \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    var address = loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let rc = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(fd, address, length) == 0 ? getsockname(fd, address, &length) : -1
      }
    }
    guard rc == 0 else {
      throw MosquittoBrokerError(message: "bind: \(String(cString: strerror(errno)))")
    }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  fileprivate static func canConnect(to port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = loopback(port: port)
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// A plain HTTP/1.0 GET on 127.0.0.1:`port`: the status code and the body, as a scraper sees
  /// them. With a 5 s timeout, waiting on a thread of its own (a gateway in this process answers
  /// on the same few threads the tests' tasks run on); for tests only.
  public static func httpGet(port: Int, path: String) async throws -> (status: Int, body: String) {
    let text = try await httpExchange(
      port: port, request: "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
    ).response
    guard let headEnd = text.range(of: "\r\n\r\n"),
      let status = Int(text.split(separator: " ").dropFirst().first ?? "")
    else { throw MosquittoBrokerError(message: "not an HTTP response: \(text.prefix(80))") }
    return (status, String(text[headEnd.upperBound...]))
  }

  /// Sends `request` as it is to 127.0.0.1:`port` and gives what comes back until the server
  /// closes the connection (`closed` true) or `timeout` passes with nothing more (false).
  public static func httpExchange(port: Int, request: String, timeout: Int = 5) throws -> (
    response: String, closed: Bool
  ) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw MosquittoBrokerError(message: "socket failed") }
    defer { close(fd) }
    var wait = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
    var address = loopback(port: port)
    let connected = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else {
      throw MosquittoBrokerError(message: "nothing listens on 127.0.0.1:\(port)")
    }
    let bytes = Array(request.utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var response: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count == 0 { return (String(decoding: response, as: UTF8.self), true) }
      guard count > 0 else { return (String(decoding: response, as: UTF8.self), false) }
      response += chunk[0..<count]
    }
  }

  /// `httpExchange` on a thread of its own: a test of a gateway in this process must not block
  /// one of the few threads the gateway's own tasks run on while it waits for the answer.
  public static func httpExchange(port: Int, request: String, timeout: Int = 5) async throws
    -> (response: String, closed: Bool)
  {
    try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(
          with: Result { try httpExchange(port: port, request: request, timeout: timeout) })
      }.start()
    }
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}
