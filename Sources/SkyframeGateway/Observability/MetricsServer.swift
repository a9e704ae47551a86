import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The operator's side door on `metrics.host` and `metrics.port`: `GET /` (the status page,
/// `StatusPage`, with its pictures under `/display/`), `GET /metrics` (Prometheus text format)
/// and `GET /health` (the status document; 200 while the broker is connected, 503 otherwise).
/// Nothing on the request path waits for it.
final class MetricsServer: Service, Sendable {
  private let host: String
  private let port: Int
  private let gateway: Gateway
  private let logger: Logger
  private let channel = Mutex<(any Channel)?>(nil)

  init(host: String, port: Int, gateway: Gateway, logger: Logger) {
    self.host = host
    self.port = port
    self.gateway = gateway
    self.logger = logger
  }

  /// Opens the listener. `skyframe run` calls it before the broker connection starts, so a port
  /// that is taken stops the gateway at once with an error naming the key and the value.
  func bind() async throws {
    let gateway = gateway
    let respond: @Sendable (String) -> MetricsHandler.Response = { path in
      switch path.split(separator: "?", maxSplits: 1).first ?? "" {
      case "/metrics":
        _ = gateway.status()  // brings the gauges up to date
        return (.ok, "text/plain; version=0.0.4; charset=utf-8", gateway.metrics.exposition())
      case "/health":
        let status = gateway.status()
        return (
          status.healthy ? .ok : .serviceUnavailable, "application/json", status.json()
        )
      case "/":
        return (.ok, "text/html; charset=utf-8", StatusPage.page(gateway.statusSnapshot()))
      case "/status/live":
        return (
          .ok, "text/html; charset=utf-8", Array(StatusPage.live(gateway.statusSnapshot()).utf8)
        )
      case let picture where picture.hasPrefix("/display/") && picture.hasSuffix(".png"):
        let path = picture.dropFirst("/display/".count).dropLast(".png".count)
        guard let entry = gateway.board.entries.first(where: { $0.key.path == path }),
          let png = DisplayPicture.png(of: entry.frame, now: gateway.clock.unixTime())
        else {
          return (.notFound, "text/plain; charset=utf-8", Array("no such display\n".utf8))
        }
        return (.ok, "image/png", png)
      default:
        return (
          .notFound, "text/plain; charset=utf-8", Array("try /, /metrics or /health\n".utf8)
        )
      }
    }
    do {
      let bound = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelInitializer { channel in
          channel.eventLoop.makeCompletedFuture {
            // A connection that sends half a request (or nothing) is closed after a while, not
            // kept open; answers are gzip-compressed for clients that take it.
            // Idle: neither a byte read nor one written (a slow download is not cut off).
            try channel.pipeline.syncOperations.addHandler(
              IdleStateHandler(allTimeout: MetricsHandler.idleTimeout))
            try channel.pipeline.syncOperations.configureHTTPServerPipeline()
            // HEAD is never compressed: the compressor would add a gzip trailer as a body.
            try channel.pipeline.syncOperations.addHandler(
              HTTPResponseCompressor(responseCompressionPredicate: { head, _ in
                guard head.headers.contains(name: MetricsHandler.headMarker) else {
                  return .compressIfPossible
                }
                head.headers.remove(name: MetricsHandler.headMarker)
                return .doNotCompress
              }))
            try channel.pipeline.syncOperations.addHandler(MetricsHandler(respond: respond))
          }
        }
        .bind(host: host, port: port).get()
      channel.withLock { $0 = bound }
    } catch {
      throw ListenerError(key: "metrics.port", host: host, port: port, error: error)
    }
    logger.info("metrics listening", metadata: ["address": "http://\(host):\(port)/metrics"])
  }

  func run() async throws {
    if channel.withLock({ $0 }) == nil { try await bind() }
    try? await gracefulShutdown()
    try? await channel.withLock({ $0 })?.close()
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

/// Answers each HTTP request with what `respond` gives for its path; GET and HEAD only.
final class MetricsHandler: ChannelInboundHandler {
  typealias InboundIn = HTTPServerRequestPart
  typealias OutboundOut = HTTPServerResponsePart
  typealias Response = (status: HTTPResponseStatus, contentType: String, body: [UInt8])

  private let respond: @Sendable (String) -> Response
  private var head: HTTPRequestHead?

  /// Marks the answer to a HEAD request for the compressor, which removes it.
  static let headMarker = "x-skyframe-head"

  /// How long a connection may send nothing (mid-request or between requests).
  static let idleTimeout = TimeAmount.seconds(5)

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if event is IdleStateHandler.IdleStateEvent {
      context.close(promise: nil)
    } else {
      context.fireUserInboundEventTriggered(event)
    }
  }

  init(respond: @escaping @Sendable (String) -> Response) {
    self.respond = respond
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    switch unwrapInboundIn(data) {
    case .head(let head):
      self.head = head
    case .body:
      break
    case .end:
      guard let head else { return }
      self.head = nil
      let allowed = head.method == .GET || head.method == .HEAD
      var response: Response =
        allowed
        ? respond(head.uri)
        : (.methodNotAllowed, "text/plain; charset=utf-8", Array("GET or HEAD only\n".utf8))
      var headers = HTTPHeaders()
      headers.add(name: "Content-Type", value: response.contentType)
      // HEAD: the length GET would give, and no body.
      headers.add(name: "Content-Length", value: "\(response.body.count)")
      if head.method == .HEAD {
        response.body = []
        headers.add(name: Self.headMarker, value: "1")
      }
      if !allowed { headers.add(name: "Allow", value: "GET, HEAD") }
      let keepAlive = head.isKeepAlive
      if !keepAlive { headers.add(name: "Connection", value: "close") }
      context.write(
        wrapOutboundOut(
          .head(HTTPResponseHead(version: head.version, status: response.status, headers: headers))),
        promise: nil)
      context.write(
        wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: response.body)))), promise: nil)
      let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
      if !keepAlive {
        let channel = context.channel
        done.whenComplete { _ in channel.close(promise: nil) }
      }
    }
  }
}
