import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// HTTP/1.0 without keep-alive closes the connection after the response (RFC 9112 §9.3): a
/// client of that kind reads until the server closes. Hummingbird sees requests as swift-http-types
/// values, which carry no version, and keeps such a connection open until its idle timeout. This
/// handler, given as one of Hummingbird's additional channel handlers, puts itself before the
/// conversion to those types and writes the version's meaning into the request:
/// `Connection: close`, which Hummingbird honours.
package final class HTTP10Close: ChannelInboundHandler, RemovableChannelHandler, Sendable {
  package typealias InboundIn = HTTPServerRequestPart
  package typealias InboundOut = HTTPServerRequestPart

  private let placed: Bool

  /// What an application adds; it places a second one where the version is still known.
  package convenience init() { self.init(placed: false) }

  private init(placed: Bool) { self.placed = placed }

  package func handlerAdded(context: ChannelHandlerContext) {
    guard !placed else { return }
    let pipeline = context.pipeline.syncOperations
    if let codec = try? pipeline.handler(type: HTTP1ToHTTPServerCodec.self) {
      try? pipeline.addHandler(HTTP10Close(placed: true), position: .before(codec))
    }
    _ = pipeline.removeHandler(context: context)
  }

  package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard placed, case .head(var head) = unwrapInboundIn(data), head.version.minor == 0,
      head.version.major == 1, !head.isKeepAlive
    else {
      context.fireChannelRead(data)
      return
    }
    head.headers.replaceOrAdd(name: "connection", value: "close")
    context.fireChannelRead(wrapInboundOut(.head(head)))
  }
}
