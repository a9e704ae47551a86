import Foundation
import SkyframeCodec
import SkyframeHTTP
import SkyframeTestSupport
import Testing

@testable import SkyframeGateway

/// The HTTP way in end to end with a client the project did not write (curl), against the whole
/// gateway: frames, ETag and 304, JSON, the device limits, errors as frames with fitting codes.
@Suite(.serialized) struct HTTPWayInTests {
  /// What curl saw: the status code, the headers (names in lower case) and the body.
  struct Answer {
    var code: Int
    var headers: [String: String]
    var body: [UInt8]
  }

  /// Runs curl to its end without holding a thread of the test's executor (two on two cores).
  static func curl(_ arguments: [String]) async throws -> Answer {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("skyframe-curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let (headerFile, bodyFile) = (
      directory.appendingPathComponent("headers").path,
      directory.appendingPathComponent("body").path
    )
    let process = try ChildProcess(
      executable: "/usr/bin/curl",
      arguments: ["-sS", "--max-time", "20", "-D", headerFile, "-o", bodyFile] + arguments)
    let exited = await process.waitForExit(upTo: .seconds(30))
    #expect(
      exited && process.exitStatus == 0,
      "curl \(arguments) exited \(String(describing: process.exitStatus))")
    let lines = (try String(contentsOfFile: headerFile, encoding: .utf8))
      .split(separator: "\r\n")
    let code = lines.first.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
        .trimmingCharacters(in: .whitespaces)
    }
    let body = (try? Data(contentsOf: URL(fileURLWithPath: bodyFile))).map { [UInt8]($0) } ?? []
    return Answer(code: code, headers: headers, body: body)
  }

  /// The gateway with its device listener on a free loopback port, once the port takes
  /// connections.
  /// On `minuteAlignedClock`: the device limits' minute starts with the test.
  static func gateway(
    adjust: @escaping (inout GatewayConfiguration) -> Void = { _ in }
  ) async throws -> (GatewayHarness, String) {
    let port = try MosquittoBroker.freeLoopbackPort()
    let harness = try await GatewayHarness.make(clock: GatewayHarness.minuteAlignedClock()) {
      configuration in
      configuration.http.port = port
      adjust(&configuration)
    }
    try await harness.start()
    try await waitForListener(port: port)
    return (harness, "http://127.0.0.1:\(port)")
  }

  /// Waits until a TCP connect to `port` succeeds (the listener started), up to 20 s.
  static func waitForListener(port: Int) async throws {
    for _ in 0..<1_000 {
      let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      defer { close(socket) }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(port).bigEndian)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      if connected { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("the HTTP listener on \(port) never took a connection")
  }

  @Test func aGetIsAnsweredWithTheFrameAndItsETag() async throws {
    let (harness, base) = try await Self.gateway()
    defer { Task { await harness.shutdown() } }
    let first = try await Self.curl(["\(base)/v1/frame/disp-1?q=52.52,13.41"])
    #expect(first.code == 200)
    #expect(first.headers["content-type"] == "application/octet-stream")
    try #require(first.body.count == WeatherFrame.size)
    let frame = try WeatherFrame(decoding: first.body)
    #expect(frame.status == .ok)
    // The ETag is the frame's content check; max-age its next_update.
    let check = first.body.withUnsafeBytes { ContentCheck.of($0, kind: .standard) }
    #expect(first.headers["etag"] == "\"\(Self.hex(check))\"")
    let maxAge = Int(
      first.headers["cache-control"]?.replacingOccurrences(of: "max-age=", with: "") ?? "")
    #expect(maxAge != nil && maxAge! > 0 && maxAge! <= Int(frame.nextUpdateSeconds ?? 0))

    // The display shows the same weather: 304, no body, no upstream call.
    let calls = harness.forecastCalls
    let again = try await Self.curl([
      "-H", "If-None-Match: \(first.headers["etag"]!)", "\(base)/v1/frame/disp-1?q=52.52,13.41",
    ])
    #expect(again.code == 304)
    #expect(again.body.isEmpty)
    #expect(again.headers["etag"] == first.headers["etag"])
    #expect(harness.forecastCalls == calls)
    // Another tag: the frame again.
    let other = try await Self.curl([
      "-H", "If-None-Match: \"00000000\"", "\(base)/v1/frame/disp-1?q=52.52,13.41",
    ])
    #expect(other.code == 200 && other.body.count == WeatherFrame.size)

    // A display speaking HTTP/1.0 (no keep-alive) reads until the server closes: it closes
    // after the answer, well before `http.idle-seconds` (the exchange waits 3 s at most).
    let port = try #require(Int(base.split(separator: ":").last ?? ""))
    let old = try await MosquittoBroker.httpExchange(
      port: port, request: "GET /v1/frame/disp-1?q=52.52,13.41 HTTP/1.0\r\nHost: x\r\n\r\n",
      timeout: 3)
    #expect(old.closed, "an HTTP/1.0 request's connection is closed after its answer")
    #expect(old.response.hasPrefix("HTTP/1.1 200"))
  }

  @Test func severalPlacesProfilesJSONAndPost() async throws {
    let (harness, base) = try await Self.gateway()
    defer { Task { await harness.shutdown() } }
    // The text language as on MQTT: an id, a profile, two places; the frames in slot order.
    let tiny = try await Self.curl(["\(base)/v1/frame/disp-2?q=%2312+~tiny+Berlin,DE;Paris,FR"])
    #expect(tiny.code == 200)
    try #require(tiny.body.count == 2 * MessageKind.tiny.size)
    try tiny.body.withUnsafeBytes { bytes in
      for slot in 0..<2 {
        let view = try ProfileView(
          checking: UnsafeRawBufferPointer(
            rebasing: bytes[(slot * MessageKind.tiny.size)..<((slot + 1) * MessageKind.tiny.size)]))
        #expect(view.wire(TinyLayout.requestID) == 12)
        #expect(view.wire(TinyLayout.slotIndex) == Int64(slot))
      }
    }
    #expect(tiny.headers["etag"]?.split(separator: "-").count == 2)

    // JSON for a display with only a JSON library, by Accept or by ?format=json.
    for arguments in [
      ["-H", "Accept: application/json", "\(base)/v1/frame/disp-2?q=Berlin,DE"],
      ["\(base)/v1/frame/disp-2?q=Berlin,DE&format=json"],
    ] {
      let json = try await Self.curl(arguments)
      #expect(json.code == 200)
      #expect(json.headers["content-type"] == "application/json")
      let object = try JSONSerialization.jsonObject(with: Data(json.body)) as? [String: Any]
      #expect(object?["status"] as? String == "ok")
    }

    // The binary request as a POST body; no device id: the client address is the device.
    let binary = try BinaryRequest.encoded(DeviceRequest(parsing: Array("#77 Rome,IT".utf8)))
    #expect(binary.count == BinaryRequest.size)
    let bodyFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("skyframe-request-\(UUID().uuidString)")
    try Data(binary).write(to: bodyFile)
    defer { try? FileManager.default.removeItem(at: bodyFile) }
    let posted = try await Self.curl([
      "--data-binary", "@\(bodyFile.path)", "-H", "Content-Type: application/octet-stream",
      "\(base)/v1/frame",
    ])
    #expect(posted.code == 200)
    let frame = try WeatherFrame(decoding: posted.body)
    #expect(frame.requestID == 77)
    #expect(frame.name.string == "Rome")
  }

  @Test func limitsAndErrorsHaveFittingCodes() async throws {
    let (harness, base) = try await Self.gateway { $0.requests.perDevicePerMinute = 2 }
    defer { Task { await harness.shutdown() } }
    // A bad request: 400 with the error frame a device decodes.
    let bad = try await Self.curl(["\(base)/v1/frame/disp-3?q=999,13"])
    #expect(bad.code == 400)
    #expect(try WeatherFrame(decoding: bad.body).status == .badRequest)
    #expect(bad.headers["etag"] == nil)
    let ok = try await Self.curl(["\(base)/v1/frame/disp-3?q=52.52,13.41"])
    #expect(ok.code == 200)
    // Past the limit: 429 with the rate_limited frame and Retry-After, then 429 alone.
    let limited = try await Self.curl(["\(base)/v1/frame/disp-3?q=52.52,13.41"])
    #expect(limited.code == 429)
    #expect(try WeatherFrame(decoding: limited.body).status == .rateLimited)
    let retryAfter = Int(limited.headers["retry-after"] ?? "") ?? 0
    #expect((1...60).contains(retryAfter))
    let silent = try await Self.curl(["\(base)/v1/frame/disp-3?q=52.52,13.41"])
    #expect(silent.code == 429)
    #expect(silent.body.isEmpty)
    #expect(silent.headers["retry-after"] != nil)
    // Another device is not touched by it.
    #expect(try await Self.curl(["\(base)/v1/frame/disp-4?q=52.52,13.41"]).code == 200)
    // What HTTP refuses itself.
    #expect(try await Self.curl(["\(base)/v1/frame/disp-4"]).code == 400)
    #expect(try await Self.curl(["\(base)/v1/frame/bad%20id?q=1,2"]).code == 400)
    let long = String(repeating: "a", count: 2_000)
    #expect(try await Self.curl(["\(base)/v1/frame/disp-4?q=\(long)"]).code == 414)
  }

  @Test func bearerTokensFromAFile() async throws {
    let tokens = FileManager.default.temporaryDirectory
      .appendingPathComponent("skyframe-tokens-\(UUID().uuidString)")
    try "# displays\nsecret-one\n  secret-two  \n".write(
      to: tokens, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: tokens) }
    let (harness, base) = try await Self.gateway { $0.http.tokensFile = tokens.path }
    defer { Task { await harness.shutdown() } }
    let none = try await Self.curl(["\(base)/v1/frame/disp-5?q=52.52,13.41"])
    #expect(none.code == 401)
    #expect(none.headers["www-authenticate"] == "Bearer")
    #expect(
      try await Self.curl([
        "-H", "Authorization: Bearer secret-three", "\(base)/v1/frame/disp-5?q=52.52,13.41",
      ]).code == 401)
    #expect(
      try await Self.curl([
        "-H", "Authorization: Bearer secret-two", "\(base)/v1/frame/disp-5?q=52.52,13.41",
      ]).code == 200)
  }

  static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }
}
