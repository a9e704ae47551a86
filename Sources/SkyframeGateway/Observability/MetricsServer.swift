import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The operator's side door on `metrics.host` and `metrics.port`, on Hummingbird as the device
/// listener is: `GET /` (the status page, `StatusPage`, with its pictures under `/display/`),
/// `GET /metrics` (Prometheus text format) and `GET /health` (the status document; 200 while the
/// broker is connected, 503 otherwise). HEAD gives GET's headers; any other method is 405 with
/// `Allow`; answers are gzip-compressed for a client that takes it; a connection that sends
/// nothing for 5 s is closed. Nothing on the request path waits for it.
final class MetricsServer: Service, Sendable {
  private let host: String
  private let port: Int
  private let gateway: Gateway
  private let logger: Logger
  /// The application's run, from `bind` (which waits until it listens) to the end of `run`.
  private let running = Mutex<Task<Void, Never>?>(nil)

  /// How long a connection may send nothing (mid-request or between requests).
  static let idleTimeout = TimeAmount.seconds(5)

  init(host: String, port: Int, gateway: Gateway, logger: Logger) {
    self.host = host
    self.port = port
    self.gateway = gateway
    self.logger = logger
  }

  /// Opens the listener. `skyframe run` calls it before the broker connection starts, so a port
  /// that is taken stops the gateway at once with an error naming the key and the value.
  func bind() async throws {
    let (events, listening) = AsyncStream.makeStream(of: (any Error)?.self)
    var quiet = logger
    quiet.logLevel = .warning
    let application = Application(
      router: Self.router(gateway),
      server: .http1(
        configuration: HTTP1Channel.Configuration(
          additionalChannelHandlers: [HTTP10Close()], idleTimeout: Self.idleTimeout)),
      configuration: ApplicationConfiguration(
        address: .hostname(host, port: port), serverName: "skyframe"),
      onServerRunning: { _ in listening.yield(nil) }, logger: quiet)
    let task = Task {
      do {
        try await application.run()
      } catch {
        listening.yield(error)
      }
      listening.finish()
    }
    for await event in events {
      if let error = event {
        await task.value
        throw ListenerError(key: "metrics.port", host: host, port: port, error: error)
      }
      break
    }
    running.withLock { $0 = task }
    logger.info("metrics listening", metadata: ["address": "http://\(host):\(port)/metrics"])
  }

  func run() async throws {
    if running.withLock({ $0 }) == nil { try await bind() }
    try? await gracefulShutdown()
    let task = running.withLock { $0 }
    task?.cancel()
    await task?.value
  }

  // MARK: Answering

  /// The routes; every answer is made by `answer`, which compresses it for a client that takes
  /// gzip (HEAD is GET's, without the body: Hummingbird makes it from the GET route).
  static func router(_ gateway: Gateway) -> Hummingbird.Router<BasicRequestContext> {
    let router = Hummingbird.Router(options: .autoGenerateHeadEndpoints)
    router.middlewares.add(OperatorDoor())
    router.get("/metrics") { request, _ in
      _ = gateway.status()  // brings the gauges up to date
      return answer(
        request, .ok, "text/plain; version=0.0.4; charset=utf-8", gateway.metrics.exposition())
    }
    router.get("/health") { request, _ in
      let status = gateway.status()
      return answer(
        request, status.healthy ? .ok : .serviceUnavailable, "application/json", status.json())
    }
    router.get("/") { request, _ in
      answer(request, .ok, "text/html; charset=utf-8", StatusPage.page(gateway.statusSnapshot()))
    }
    router.get("/status/live") { request, _ in
      answer(
        request, .ok, "text/html; charset=utf-8",
        Array(StatusPage.live(gateway.statusSnapshot()).utf8))
    }
    router.get("/display/**") { request, context in
      let path = context.parameters.getCatchAll().joined(separator: "/")
      guard path.hasSuffix(".png"),
        let entry = gateway.board.entries.first(where: { $0.key.path == path.dropLast(4) }),
        let png = DisplayPicture.png(of: entry.frame, now: gateway.clock.unixTime())
      else {
        return answer(
          request, .notFound, "text/plain; charset=utf-8", Array("no such display\n".utf8))
      }
      return answer(request, .ok, "image/png", png)
    }
    return router
  }

  /// `body` as the response to `request`: gzip-compressed when the client accepts it and it is
  /// worth it, with its length (HEAD keeps GET's headers).
  static func answer(
    _ request: Request, _ status: HTTPResponse.Status, _ contentType: String, _ body: [UInt8]
  ) -> Response {
    var headers: HTTPFields = [.contentType: contentType]
    var buffer = ByteBuffer(bytes: body)
    if request.method == .get, body.count > 256, accepts(gzip: request.headers[.acceptEncoding]),
      let zipped = try? buffer.compress(with: .gzip())
    {
      buffer = zipped
      headers[.contentEncoding] = "gzip"
      headers[.vary] = "Accept-Encoding"
    }
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
  }

  /// Whether an `Accept-Encoding` value takes gzip (not with `q=0`).
  static func accepts(gzip field: String?) -> Bool {
    guard let field else { return false }
    return field.split(separator: ",").contains { item in
      let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
      guard parts.first?.lowercased() == "gzip" || parts.first == "*" else { return false }
      return !parts.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "") == "q=0" }
    }
  }
}

/// GET and HEAD only (405 with `Allow` for the rest); a path with no route is a short 404 that
/// names the ones there are.
struct OperatorDoor<Context: RequestContext>: RouterMiddleware {
  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard request.method == .get || request.method == .head else {
      return Response(
        status: .methodNotAllowed,
        headers: [.allow: "GET, HEAD", .contentType: "text/plain; charset=utf-8"],
        body: ResponseBody(byteBuffer: ByteBuffer(string: "GET or HEAD only\n")))
    }
    do {
      return try await next(request, context)
    } catch let error as HTTPError where error.status == .notFound {
      let answer = MetricsServer.answer(
        request, .notFound, "text/plain; charset=utf-8",
        Array("try /, /metrics or /health\n".utf8))
      return request.method == .head ? answer.createHeadResponse() : answer
    }
  }
}

/// A listener the configuration asks for could not be opened: says which key, which address,
/// why, and what to change.
public struct ListenerError: Error, CustomStringConvertible {
  public var key: String
  public var host: String
  public var port: Int
  public var reason: String

  init(key: String, host: String, port: Int, error: any Error) {
    self.key = key
    self.host = host
    self.port = port
    if let io = error as? IOError, io.errnoCode == EADDRINUSE {
      reason = "is in use"
    } else if let io = error as? IOError, io.errnoCode == EACCES {
      reason = "may not be opened by this user"
    } else if let io = error as? IOError, io.errnoCode == EADDRNOTAVAIL {
      reason = "is not an address of this machine"
    } else {
      reason = "cannot be opened (\(error))"
    }
  }

  public var description: String {
    "\(key) \(port) on \(host) \(reason): set \(key) to another port, or 0 to turn the listener off"
  }
}
