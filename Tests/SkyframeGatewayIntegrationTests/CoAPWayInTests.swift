import Foundation
import Logging
import SkyframeCoAP
import SkyframeCodec
import SkyframeTestSupport
import Testing

@testable import SkyframeGateway

/// The CoAP way in end to end with libcoap's own client (`coap-client-notls`, which the project
/// did not write), against the whole gateway: frames, ETag and 2.03, Max-Age, Block2, Observe,
/// the Echo check that bounds what an unverified source is sent, errors as frames.
@Suite(.serialized) struct CoAPWayInTests {
  /// What coap-client saw: each datagram it sent and received (size, and the PDU line), and
  /// the payload it wrote.
  struct Exchange {
    struct Datagram {
      var sent: Bool
      var size: Int
      var line: String
    }
    var datagrams: [Datagram]
    var payload: [UInt8]

    /// The last response's PDU line ("v:1 t:ACK c:2.05 ... [ options ]").
    var last: String { datagrams.last { !$0.sent }?.line ?? "" }
    var code: String {
      last.split(separator: " ").first { $0.hasPrefix("c:") }.map { String($0.dropFirst(2)) } ?? ""
    }
  }

  /// Runs coap-client to its end without holding a thread of the test's executor.
  static func client(
    _ arguments: [String], executable: String = "/usr/bin/coap-client-notls"
  ) async throws -> Exchange {
    let output = FileManager.default.temporaryDirectory
      .appendingPathComponent("skyframe-coap-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: output) }
    // Its log (libcoap writes debug lines to standard output, errors to standard error).
    let (logFile, errorFile) = (
      output.appendingPathExtension("log"), output.appendingPathExtension("err")
    )
    defer {
      try? FileManager.default.removeItem(at: logFile)
      try? FileManager.default.removeItem(at: errorFile)
    }
    let process = try ChildProcess(
      executable: executable,
      arguments: ["-v", "7", "-B", "10", "-o", output.path] + arguments, output: logFile.path,
      errors: errorFile.path)
    _ = await process.waitForExit(upTo: .seconds(30))
    let log =
      ((try? String(contentsOf: logFile, encoding: .utf8)) ?? "")
      + ((try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")
    var datagrams: [Exchange.Datagram] = []
    let lines = log.split(separator: "\n").map(String.init)
    for (index, line) in lines.enumerated() {
      // "... UDP : sent 18 bytes" / "received 24 bytes", the PDU on the next line.
      for (word, sent) in [(": sent ", true), (": received ", false)] {
        guard let range = line.range(of: word) else { continue }
        let size = Int(line[range.upperBound...].split(separator: " ").first ?? "") ?? 0
        let pdu = lines.dropFirst(index + 1).first { $0.hasPrefix("v:1 ") } ?? ""
        datagrams.append(Exchange.Datagram(sent: sent, size: size, line: pdu))
      }
    }
    let payload = (try? Data(contentsOf: output)).map { [UInt8]($0) } ?? []
    return Exchange(datagrams: datagrams, payload: payload)
  }

  static func gateway(
    adjust: @escaping (inout GatewayConfiguration) -> Void = { _ in }
  ) async throws -> (GatewayHarness, String) {
    let port = try MosquittoBroker.freeLoopbackPort()
    // The device limits' minute starts with the test.
    let harness = try await GatewayHarness.make(clock: GatewayHarness.minuteAlignedClock()) {
      configuration in
      configuration.coap.port = port
      adjust(&configuration)
    }
    try await harness.start(logLevel: .info)
    // UDP has no connect to wait for: the log says when the listener is up.
    for _ in 0..<1_000 where !harness.logs.all.contains(where: { $0.contains("coap: listening") }) {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(harness.logs.all.contains { $0.contains("coap: listening") })
    return (harness, "coap://127.0.0.1:\(port)")
  }

  @Test func aGetIsAnsweredWithTheFrameOnceTheSourceEchoed() async throws {
    let (harness, base) = try await Self.gateway()
    defer { Task { await harness.shutdown() } }
    let first = try await Self.client(["-m", "get", "\(base)/v1/frame/cell-1?q=52.52,13.41"])
    #expect(first.code == "2.05", "\(first.datagrams.map(\.line))")
    try #require(first.payload.count == WeatherFrame.size)
    #expect(try WeatherFrame(decoding: first.payload).status == .ok)
    // The first answer to the unknown source was 4.01 with an Echo value, within three times
    // the request's size; the client sent it back and got the frame.
    let firstAnswer = try #require(first.datagrams.first { !$0.sent })
    let firstRequest = try #require(first.datagrams.first { $0.sent })
    #expect(firstAnswer.line.contains("c:4.01") && firstAnswer.line.contains("Echo"))
    #expect(firstAnswer.size <= 3 * firstRequest.size)
    // ETag is the content check, Max-Age next_update.
    let check = first.payload.withUnsafeBytes { ContentCheck.of($0, kind: .standard) }
    let hex = String(check, radix: 16)
    #expect(first.last.contains("ETag:0x" + String(repeating: "0", count: 8 - hex.count) + hex))
    #expect(first.last.contains("Max-Age:"))

    // The display shows the same weather: 2.03 Valid, no payload.
    let again = try await Self.client([
      "-m", "get", "-O", "4,0x" + String(repeating: "0", count: 8 - hex.count) + hex,
      "\(base)/v1/frame/cell-1?q=52.52,13.41",
    ])
    #expect(again.code == "2.03", "\(again.datagrams.map(\.line))")
    #expect(again.payload.isEmpty)

    // Small blocks when the client asks (Block2, SZX 2: 64 bytes): the same frame whole.
    let blocks = try await Self.client([
      "-m", "get", "-b", "64", "\(base)/v1/frame/cell-1?q=52.52,13.41&x=1",
    ])
    #expect(blocks.payload.count == WeatherFrame.size, "\(blocks.datagrams.map(\.line))")
    #expect(blocks.datagrams.contains { $0.line.contains("Block2") })

    // The device's resource exists now: it can be observed (the answer carries Observe).
    let observed = try await Self.client([
      "-m", "get", "-s", "2", "\(base)/v1/frame/cell-1?q=52.52,13.41",
    ])
    #expect(observed.datagrams.contains { !$0.sent && $0.line.contains("Observe:") })
    #expect(observed.payload.count >= WeatherFrame.size)
  }

  /// A path's first request registers its observer too: it comes before the path has its
  /// resource (libcoap registers none on its unknown-resource handler), so the answer goes out
  /// separately once the resource is made. The source is verified first (its Echo), so that the
  /// observation is the path's very first request.
  @Test func aPathsFirstObservationIsRegistered() async throws {
    let (harness, base) = try await Self.gateway()
    defer { Task { await harness.shutdown() } }
    let verify = try await Self.client(["-m", "get", "\(base)/v1/frame/cell-5?q=52.52,13.41"])
    #expect(verify.code == "2.05")
    let observed = try await Self.client([
      "-m", "get", "-s", "2", "\(base)/v1/frame/cell-6?q=52.52,13.41",
    ])
    #expect(
      observed.datagrams.contains {
        !$0.sent && $0.line.contains("c:2.05") && $0.line.contains("Observe:")
      },
      "\(observed.datagrams.map(\.line))")
    #expect(observed.datagrams.allSatisfy { !$0.line.contains("c:4.01") })
    #expect(observed.payload.count >= WeatherFrame.size)
  }

  /// DTLS with a pre-shared key (libcoap's OpenSSL client): the key answers, another key gets
  /// no answer at all (the handshake fails).
  @Test func dtlsWithAPreSharedKeyIsAnswered() async throws {
    let keyFile = FileManager.default.temporaryDirectory
      .appendingPathComponent("skyframe-psk-\(UUID().uuidString)")
    try Data("display-secret-1\n".utf8).write(to: keyFile)
    defer { try? FileManager.default.removeItem(at: keyFile) }
    let dtlsPort = try MosquittoBroker.freeLoopbackPort()
    let (harness, _) = try await Self.gateway {
      $0.coap.dtlsPort = dtlsPort
      $0.coap.pskIdentity = "skyframe"
      $0.coap.pskKeyFile = keyFile.path
    }
    defer { Task { await harness.shutdown() } }
    let url = "coaps://127.0.0.1:\(dtlsPort)/v1/frame/cell-8?q=52.52,13.41"
    let secured = try await Self.client(
      ["-u", "display-1", "-k", "display-secret-1", "-m", "get", url],
      executable: "/usr/bin/coap-client-openssl")
    #expect(secured.code == "2.05", "\(secured.datagrams.map(\.line))")
    #expect(secured.payload.count == WeatherFrame.size)
    let wrongKey = try await Self.client(
      ["-u", "display-1", "-k", "another-key", "-m", "get", url],
      executable: "/usr/bin/coap-client-openssl")
    #expect(wrongKey.payload.isEmpty)
    #expect(!wrongKey.datagrams.contains { !$0.sent && $0.line.contains("c:2.05") })
  }

  @Test func errorsAndLimitsAreFramesWithFittingCodes() async throws {
    let (harness, base) = try await Self.gateway { $0.requests.perDevicePerMinute = 2 }
    defer { Task { await harness.shutdown() } }
    // coap-client writes no payload of an error answer; its log says how long it was (the
    // frames themselves: aiocoap_check.py).
    let bad = try await Self.client(["-m", "get", "\(base)/v1/frame/cell-2?q=999,13"])
    #expect(bad.code == "4.00")
    #expect(bad.last.contains("binary data length 192"))
    let ok = try await Self.client([
      "-m", "get", "\(base)/v1/frame/cell-2?q=%237+~tiny+52.52,13.41",
    ])
    #expect(ok.code == "2.05")
    try #require(ok.payload.count == MessageKind.tiny.size)
    let id = try ok.payload.withUnsafeBytes {
      try ProfileView(checking: $0).wire(TinyLayout.requestID)
    }
    #expect(id == 7)
    let limited = try await Self.client(["-m", "get", "\(base)/v1/frame/cell-2?q=52.52,13.41"])
    #expect(limited.code == "4.29")
    #expect(limited.last.contains("binary data length 192"))
    let silent = try await Self.client(["-m", "get", "\(base)/v1/frame/cell-2?q=52.52,13.41"])
    #expect(silent.code == "4.29")
    #expect(!silent.last.contains("binary data"))
    #expect(try await Self.client(["-m", "get", "\(base)/elsewhere"]).code == "4.04")
  }
}
