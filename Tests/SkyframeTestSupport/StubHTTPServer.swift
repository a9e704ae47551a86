import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOPosix
import Synchronization

/// A request as the stub server saw it.
public struct StubHTTPRequest: Sendable {
  public var method: String
  /// The path without the query, e.g. "/v1/forecast".
  public var path: String
  /// Query parameters, percent-decoded; a repeated name keeps its last value.
  public var query: [String: String]
  /// The request target exactly as sent, e.g. "/v1/forecast?latitude=52.52&longitude=13.41".
  public var uri: String
  /// The request's headers, as sent.
  public var headers: [(name: String, value: String)]

  public init(method: String, uri: String, headers: [(name: String, value: String)] = []) {
    self.method = method
    self.uri = uri
    self.headers = headers
    let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    path = String(parts[0])
    query = [:]
    guard parts.count == 2 else { return }
    for pair in parts[1].split(separator: "&") {
      let nameAndValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let value = nameAndValue.count == 2 ? percentDecoded(nameAndValue[1]) : ""
      query[percentDecoded(nameAndValue[0])] = value
    }
  }
}

extension StubHTTPRequest {
  /// The first value of header `name` (any case).
  public func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }
}

/// What the stub server answers.
public struct StubHTTPResponse: Sendable {
  /// The HTTP status; 0 closes the connection without answering at all.
  public var status: Int
  public var body: [UInt8]
  public var headers: [(String, String)]
  /// Wait this long before answering (or before closing, for status 0): a slow upstream.
  public var delay: Duration?
  /// Send the head and the first half of the body, then wait this long before the rest: an
  /// upstream that stalls mid-answer.
  public var bodyDelay: Duration?

  public init(
    status: Int, body: [UInt8] = [], headers: [(String, String)] = [], delay: Duration? = nil,
    bodyDelay: Duration? = nil
  ) {
    self.status = status
    self.body = body
    self.headers = headers
    self.delay = delay
    self.bodyDelay = bodyDelay
  }

  public static func json(_ text: String, status: Int = 200) -> Self {
    Self(status: status, body: Array(text.utf8), headers: [("Content-Type", "application/json")])
  }

  /// Closes the connection without sending a byte, as a crashed or cut-off upstream does.
  public static let dropConnection = Self(status: 0)
}

/// A real HTTP/1.1 server on 127.0.0.1 and a free port, answering every request with `handler`.
/// Tests point a client at `baseURL` and afterwards look at `requests`.
public final class StubHTTPServer: Sendable {
  public let port: Int
  private let received: Mutex<[StubHTTPRequest]>
  private let serving: Mutex<Task<Void, Never>?>

  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Everything received so far, in arrival order.
  public var requests: [StubHTTPRequest] { received.withLock { $0 } }

  private init(port: Int) {
    self.port = port
    received = Mutex([])
    serving = Mutex(nil)
  }

  public static func start(
    _ handler: @escaping @Sendable (StubHTTPRequest) async -> StubHTTPResponse
  )
    async throws -> StubHTTPServer
  {
    let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .bind(host: "127.0.0.1", port: 0) { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.configureHTTPServerPipeline()
          // Bodies go gzip-compressed to clients that accept it, as real services send them.
          try channel.pipeline.syncOperations.addHandler(HTTPResponseCompressor())
          return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
            wrappingChannelSynchronously: channel)
        }
      }
    guard let port = listener.channel.localAddress?.port else {
      try await listener.channel.close()
      throw StubHTTPServerError.noPort
    }
    let server = StubHTTPServer(port: port)
    let task = Task {
      await withDiscardingTaskGroup { group in
        _ = try? await listener.executeThenClose { connections in
          for try await connection in connections {
            group.addTask { await server.serve(connection, handler) }
          }
        }
      }
    }
    server.serving.withLock { $0 = task }
    return server
  }

  /// Stops listening and closes every connection, also those waiting out a `delay`.
  public func stop() async throws {
    guard let task = serving.withLock({ $0.take() }) else { return }
    task.cancel()
    await task.value
  }

  private func serve(
    _ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>,
    _ handler: @Sendable (StubHTTPRequest) async -> StubHTTPResponse
  ) async {
    _ = try? await connection.executeThenClose { inbound, outbound in
      var head: HTTPRequestHead?
      for try await part in inbound {
        switch part {
        case .head(let requestHead):
          head = requestHead
        case .body:
          continue
        case .end:
          guard let requestHead = head else { continue }
          let request = StubHTTPRequest(
            method: requestHead.method.rawValue, uri: requestHead.uri,
            headers: requestHead.headers.map { (name: $0.name, value: $0.value) })
          received.withLock { $0.append(request) }
          let response = await handler(request)
          if let delay = response.delay { try await Task.sleep(for: delay) }
          guard response.status != 0 else { return }
          try await write(response, to: outbound, keepAlive: requestHead.isKeepAlive)
          guard requestHead.isKeepAlive else { return }
        }
      }
    }
  }

  private func write(
    _ response: StubHTTPResponse,
    to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
    keepAlive: Bool
  ) async throws {
    var headers = HTTPHeaders(response.headers)
    headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
    headers.replaceOrAdd(name: "Connection", value: keepAlive ? "keep-alive" : "close")
    let head = HTTPResponseHead(
      version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
    guard let bodyDelay = response.bodyDelay else {
      // One flush for the whole answer, so that the gzip stage sees it complete and sets its
      // length.
      var parts: [HTTPServerResponsePart] = [.head(head)]
      if !response.body.isEmpty {
        parts.append(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
      }
      parts.append(.end(nil))
      try await outbound.write(contentsOf: parts)
      return
    }
    try await outbound.write(.head(head))
    let half = response.body.count / 2
    for part in [response.body[..<half], response.body[half...]] where !part.isEmpty {
      if part.startIndex > 0 { try await Task.sleep(for: bodyDelay) }
      try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: part))))
    }
    try await outbound.write(.end(nil))
  }
}

enum StubHTTPServerError: Error {
  case noPort
}

private func percentDecoded(_ text: Substring) -> String {
  var bytes: [UInt8] = []
  bytes.reserveCapacity(text.utf8.count)
  var input = text.utf8.makeIterator()
  while let byte = input.next() {
    guard byte == UInt8(ascii: "%") else {
      bytes.append(byte)
      continue
    }
    let high = input.next().flatMap(hexValue)
    let low = input.next().flatMap(hexValue)
    guard let high, let low else { return String(text) }  // not valid encoding: leave it as sent
    bytes.append(high << 4 | low)
  }
  return String(decoding: bytes, as: UTF8.self)
}

private func hexValue(_ digit: UInt8) -> UInt8? {
  switch digit {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
  default: nil
  }
}

/// A bare TCP server on 127.0.0.1 that closes each connection as soon as a request's head (up to
/// its empty line) is in, on its event loop: a service that dies mid-request, without the HTTP
/// stub's tasks and handlers in the way.
public final class ClosingTCPServer: Sendable {
  public let port: Int
  private let channel: any Channel

  private init(port: Int, channel: any Channel) {
    self.port = port
    self.channel = channel
  }

  public static func start() async throws -> ClosingTCPServer {
    let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
          try channel.pipeline.syncOperations.addHandler(CloseAfterRequestHead())
        }
      }
      .bind(host: "127.0.0.1", port: 0).get()
    guard let port = channel.localAddress?.port else {
      try await channel.close()
      throw StubHTTPServerError.noPort
    }
    return ClosingTCPServer(port: port, channel: channel)
  }

  public func stop() async throws {
    try await channel.close()
  }
}

/// Reads until the end of a request's head, then closes the connection.
private final class CloseAfterRequestHead: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  private var seen: [UInt8] = []

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    seen += unwrapInboundIn(data).readableBytesView
    let end: [UInt8] = [13, 10, 13, 10]
    guard seen.count >= end.count else { return }
    for start in 0...(seen.count - end.count) where seen[start..<start + end.count] == end[...] {
      context.close(promise: nil)
      return
    }
  }
}
