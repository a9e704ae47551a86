import Foundation
import SkyframeCodec
import SkyframeMQTT
import SkyframeTestSupport
import Testing

@testable import SkyframeGateway

/// The status page over real HTTP (the browser's view is `Tests/StatusPage/test.sh`).
@Suite(.serialized) struct StatusPageTests {
  @Test func thePageShowsServicesAndEveryPlaceWithItsPicture() async throws {
    let port = try MosquittoBroker.freeLoopbackPort()
    let harness = try await GatewayHarness.make {
      $0.metrics.port = port
      $0.watches.minimumSeconds = 1
      $0.locations = [GatewayHarness.home]
    }
    defer { Task { await harness.shutdown() } }
    let display = try await Device.connect(
      port: harness.broker.port, id: "wall", subscribe: ["skyframe/v1/loc/home"])
    try await harness.start()
    let frame = try WeatherFrame(decoding: try await display.next().payload)

    let page = try await MosquittoBroker.httpGet(port: port, path: "/")
    #expect(page.status == 200)
    #expect(page.body.hasPrefix("<!doctype html>"))
    #expect(page.body.contains(#"data-service="open-meteo""#))
    #expect(page.body.contains(#"<td class="breaker ok">closed</td>"#))
    #expect(page.body.contains(#"data-display="loc/home""#))
    #expect(page.body.contains(#"src="/display/loc/home.png?v="#))
    let temperature = String(
      format: "%.1f °C", Double(try #require(frame.current.temperature)) / 10)
    #expect(page.body.contains(temperature))
    // Nothing from elsewhere: no external script, style, font or picture.
    #expect(!page.body.contains("https://"))

    let live = try await MosquittoBroker.httpGet(port: port, path: "/status/live")
    #expect(live.status == 200)
    #expect(live.body.contains(#"data-display="loc/home""#))
    #expect(!live.body.contains("<script"))

    let picture = try await MosquittoBroker.httpGet(port: port, path: "/display/loc/home.png")
    #expect(picture.status == 200)
    #expect(picture.body.contains("IHDR") && picture.body.contains("IEND"))
    #expect(
      try await MosquittoBroker.httpGet(port: port, path: "/display/loc/nowhere.png").status == 404)
    #expect(
      try await MosquittoBroker.httpGet(port: port, path: "/display/../health.png").status == 404)
  }

  /// The listener as HTTP says: HEAD gives GET's length and no body, a method it does not take
  /// is 405 with `Allow`, answers are gzip for a client that takes it.
  @Test func theListenerSpeaksHTTPProperly() async throws {
    let port = try MosquittoBroker.freeLoopbackPort()
    let harness = try await GatewayHarness.make { $0.metrics.port = port }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    // HTTP/1.0 without keep-alive: the server closes after the answer (well before the 5 s a
    // silent connection is given; the exchange waits 3 s at most).
    let get = try await MosquittoBroker.httpExchange(
      port: port, request: "GET /health HTTP/1.0\r\nHost: x\r\n\r\n", timeout: 3)
    #expect(get.closed, "an HTTP/1.0 request's connection is closed after its answer")
    // HEAD against GET where the body does not change between two requests (the status
    // document does: its counters move).
    let stable = try await MosquittoBroker.httpExchange(
      port: port, request: "GET /display/none.png HTTP/1.0\r\nHost: x\r\n\r\n", timeout: 3)
    let head = try await MosquittoBroker.httpExchange(
      port: port, request: "HEAD /display/none.png HTTP/1.0\r\nHost: x\r\n\r\n", timeout: 3)
    #expect(head.closed)
    func header(_ name: String, _ text: String) -> String? {
      text.components(separatedBy: "\r\n").first {
        $0.lowercased().hasPrefix(name.lowercased() + ":")
      }
      .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: .whitespaces) }
    }
    let body = get.response.components(separatedBy: "\r\n\r\n").dropFirst().joined()
    #expect(Int(header("Content-Length", get.response) ?? "") == body.utf8.count)
    #expect(header("Content-Length", head.response) == header("Content-Length", stable.response))
    #expect(head.response.hasSuffix("\r\n\r\n"), "HEAD has no body")
    // HEAD from a client that takes gzip: no body either (a gzip trailer would be one), and the
    // length a GET without gzip has.
    let zippedHead = try await MosquittoBroker.httpExchange(
      port: port, request: "HEAD /health HTTP/1.0\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
    #expect(zippedHead.response.hasSuffix("\r\n\r\n"), "\(zippedHead.response)")
    #expect(header("Content-Encoding", zippedHead.response) == nil)
    let zippedUnknown = try await MosquittoBroker.httpExchange(
      port: port, request: "HEAD /nowhere HTTP/1.0\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
    #expect(zippedUnknown.response.hasPrefix("HTTP/1.1 404"))
    #expect(zippedUnknown.response.hasSuffix("\r\n\r\n"), "HEAD has no body, a 404 neither")
    #expect(header("Content-Length", zippedUnknown.response) == "27")
    let post = try await MosquittoBroker.httpExchange(
      port: port, request: "POST / HTTP/1.0\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
    // Answered as HTTP/1.1 (the server's version, RFC 9110 §6.2), and closed: a 1.0 request.
    #expect(post.response.hasPrefix("HTTP/1.1 405"))
    #expect(header("Allow", post.response) == "GET, HEAD")
    let gzip = try await MosquittoBroker.httpExchange(
      port: port, request: "GET / HTTP/1.0\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
    #expect(header("Content-Encoding", gzip.response) == "gzip")
    // Half a request: `GatewayProcessTests` (a gateway process of its own, whose event loops no
    // test shares).
  }

  @Test func picturesComeFromTheRendererWhichRefusesWhatIsNoFrame() throws {
    var frame = WeatherFrame(status: .notFound, requestID: 1, name: FrameName(truncating: "x"))
    frame.nextUpdateSeconds = nil
    var bytes = [UInt8](repeating: 0, count: WeatherFrame.size)
    try bytes.withUnsafeMutableBytes { try frame.encode(into: $0) }
    let png = try #require(DisplayPicture.png(of: bytes, now: 1_800_000_000))
    #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    bytes[10] ^= 0xFF  // the CRC no longer matches
    #expect(DisplayPicture.png(of: bytes, now: 1_800_000_000) == nil)
    #expect(DisplayPicture.png(of: [1, 2, 3], now: 0) == nil)
  }

  @Test func namesAreEscaped() {
    #expect(
      StatusPage.escaped(#"<script>"x" & 'y'</script>"#)
        == "&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;")
  }
}
