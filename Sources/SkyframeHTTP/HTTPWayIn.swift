import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import SkyframeCodec
import SkyframeGateway
import Synchronization

/// The way in of displays that make one HTTP request and sleep (`docs/devices/http.md`):
/// `GET /v1/frame/{device}?q=Berlin,DE` (the request in the MQTT text language), or the binary
/// request as the body of a `POST`, answered with the frames' bytes — or their JSON mirror with
/// `Accept: application/json` or `?format=json`. Without a device id the client address is the
/// device. What is HTTP's own: the device id from the path, the request from the query or the
/// body, `ETag` (the frames' content checks) and `304`, `Cache-Control: max-age` from
/// `next_update`, status codes and `Retry-After`, bearer tokens, HTTPS. Admission, limits,
/// waiting and composing are the one device intake's.
final class HTTPWayIn: GatewayPart, Sendable {
  private let intake: DeviceIntake
  private let application: Application<RouterResponder<DeviceRequestContext>>

  /// Nil without `http.port`.
  static func part(_ context: PartContext) -> HTTPWayIn? {
    let settings = context.configuration.http
    guard settings.port > 0 else { return nil }
    do {
      return try HTTPWayIn(context, settings: settings)
    } catch {
      context.logger.error("http: the device listener cannot start: \(error)")
      return nil
    }
  }

  private init(_ context: PartContext, settings: HTTPSettings) throws {
    let tokens = try settings.tokensFile.map(HTTPSettings.tokens(in:)) ?? []
    let intake = context.rooms.intake(way: "http", configuration: context.configuration)
    self.intake = intake
    let router = Router(context: DeviceRequestContext.self)
    let answer: @Sendable (Request, DeviceRequestContext) async throws -> Response = {
      request, context in
      await Self.respond(
        to: request, device: context.parameters.get("device"),
        remoteAddress: context.remoteAddress, intake: intake, tokens: tokens)
    }
    // The routes first: the application builds its responder from the router as it is made.
    router.get("/v1/frame", use: answer)
    router.get("/v1/frame/{device}", use: answer)
    router.post("/v1/frame", use: answer)
    router.post("/v1/frame/{device}", use: answer)
    application = Application(
      router: router,
      server: try Self.server(settings, connections: ConnectionCount()),
      configuration: ApplicationConfiguration(
        address: .hostname(settings.host, port: settings.port), serverName: "skyframe"),
      logger: context.logger)
  }

  // Hummingbird's Application is the listener's service.
  var services: [any Service] { [application] }

  func apply(_ configuration: GatewayConfiguration) { intake.update(configuration) }

  func keepRestartOnlyKeys(of running: GatewayConfiguration, in new: inout GatewayConfiguration)
    -> [String]
  {
    guard new.http != running.http else { return [] }
    new.http = running.http
    return ["http"]
  }

  /// HTTP/1.1, with TLS when configured; idle and half-sent requests closed after
  /// `http.idle-seconds`; headers within 8 KB; at most `http.max-connections` at once.
  private static func server(_ settings: HTTPSettings, connections: ConnectionCount) throws
    -> HTTPServerBuilder
  {
    let maximum = settings.maximumConnections
    let http1 = HTTP1Channel.Configuration(
      additionalChannelHandlers: [
        ConnectionCap(count: connections, maximum: maximum), HTTP10Close(),
      ],
      idleTimeout: .seconds(Int64(settings.idleSeconds)),
      httpDecoderConfiguration: .init(
        maxHeaderFieldSize: 8 * 1_024, maxHeaderListSize: 8 * 1_024, maxHeaderFieldCount: 64))
    guard let certificate = settings.certificateFile, let key = settings.keyFile else {
      return .http1(configuration: http1)
    }
    let tls = TLSConfiguration.makeServerConfiguration(
      certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
      privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
    return try .tls(.http1(configuration: http1), tlsConfiguration: tls)
  }

  // MARK: Answering

  /// The response to one request: `device` is the path's `{device}` (nil without one: the
  /// client's address is the device).
  static func respond(
    to request: Request, device named: String?, remoteAddress: SocketAddress?,
    intake: DeviceIntake, tokens: Set<String>
  ) async -> Response {
    guard isAuthorized(request, tokens: tokens) else {
      return Self.text(
        .unauthorized, "a bearer token is needed (Authorization: Bearer …)\n",
        headers: [.wwwAuthenticate: "Bearer"])
    }
    guard
      (request.uri.path.utf8.count + (request.uri.query?.utf8.count ?? 0))
        <= HTTPSettings.maximumTarget
    else {
      return Self.text(
        .uriTooLong, "the request target is over \(HTTPSettings.maximumTarget) bytes\n")
    }
    let device: String
    if let named {
      guard DeviceIntake.isValidDevice(named) else {
        return Self.text(
          .badRequest,
          "device ids are 1-32 characters of a-z, A-Z, 0-9, '-', '_' and '.'\n")
      }
      device = named
    } else {
      // The client address is the device: one allowance per address.
      device = "@" + (remoteAddress?.ipAddress ?? "unknown")
    }
    let query = request.uri.query ?? ""
    let json =
      (request.headers[.accept]?.contains("application/json") ?? false)
      || QueryItems.value(of: "format", in: query) == "json"
    var bytes: [UInt8]
    if request.method == .post {
      do {
        let body = try await request.body.collect(upTo: HTTPSettings.maximumBody)
        bytes = Array(buffer: body)
      } catch {
        return Self.text(
          .contentTooLarge, "a request body has at most \(HTTPSettings.maximumBody) bytes\n")
      }
    } else {
      guard let text = QueryItems.value(of: "q", in: query) else {
        return Self.text(
          .badRequest, "name the places with ?q= (e.g. ?q=Berlin,DE or ?q=52.52,13.41)\n")
      }
      bytes = Array(text.utf8)
    }

    let clock = intake.rooms.clock
    let reading = clock.reading()
    let now = clock.unixTime(atReading: reading)
    guard let admission = intake.admit(device, now: now, reading: reading) else {
      // Told once this minute: HTTP has no silence, so the answer is short.
      var headers = HTTPFields()
      headers[.retryAfter] = "\(60 - now % 60)"
      return Response(status: .tooManyRequests, headers: headers)
    }
    let answers = CollectedAnswers()
    bytes.withUnsafeBytes { payload in
      intake.answer(
        payload, from: device, admission: admission, reply: answers, via: CollectingOut(),
        arrived: reading, now: now)
    }
    // From the cache the frames are in already: no wait.
    let frames: [CollectedAnswers.Frame]
    if let ready = answers.frames { frames = ready } else { frames = await answers.all() }
    return Self.response(
      of: frames, json: json, ifNoneMatch: request.headers[.ifNoneMatch])
  }

  /// The response for the frames of one request.
  static func response(of frames: [CollectedAnswers.Frame], json: Bool, ifNoneMatch: String?)
    -> Response
  {
    let described = FrameResponse(frames)
    var headers = HTTPFields()
    let etag = described.etag
    if let etag { headers[.eTag] = etag }
    headers[.cacheControl] = described.maxAge > 0 ? "max-age=\(described.maxAge)" : "no-cache"
    if let retryAfter = described.retryAfter { headers[.retryAfter] = "\(retryAfter)" }
    if described.isMatched(by: ifNoneMatch, etag: etag) {
      return Response(status: .notModified, headers: headers)
    }
    headers[.contentType] = json ? "application/json" : "application/octet-stream"
    let body = FrameResponse.body(of: frames, json: json)
    headers[.contentLength] = "\(body.count)"
    return Response(
      status: HTTPResponse.Status(code: described.code), headers: headers,
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
  }

  private static func isAuthorized(_ request: Request, tokens: Set<String>) -> Bool {
    guard !tokens.isEmpty else { return true }
    guard let value = request.headers[.authorization], value.hasPrefix("Bearer ") else {
      return false
    }
    return tokens.contains(String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces))
  }

  static func text(
    _ status: HTTPResponse.Status, _ text: String, headers extra: HTTPFields = [:]
  ) -> Response {
    var headers = extra
    headers[.contentType] = "text/plain; charset=utf-8"
    return Response(
      status: status, headers: headers,
      body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
  }

}

/// What each request knows: Hummingbird's own context and the client's address.
struct DeviceRequestContext: RequestContext, RemoteAddressRequestContext {
  var coreContext: CoreRequestContextStorage
  let remoteAddress: SocketAddress?

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
  }
}

/// The connections open at once.
final class ConnectionCount: Sendable {
  let open = Atomic<Int>(0)
}

/// Closes a connection past `http.max-connections` as it opens.
final class ConnectionCap: ChannelInboundHandler, RemovableChannelHandler, Sendable {
  typealias InboundIn = NIOAny
  private let count: ConnectionCount
  private let maximum: Int
  private let counted = Atomic<Bool>(false)

  init(count: ConnectionCount, maximum: Int) {
    self.count = count
    self.maximum = maximum
  }

  func handlerAdded(context: ChannelHandlerContext) {
    counted.store(true, ordering: .relaxed)
    if count.open.add(1, ordering: .relaxed).newValue > maximum {
      context.close(promise: nil)
    }
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    if counted.exchange(false, ordering: .relaxed) {
      count.open.subtract(1, ordering: .relaxed)
    }
  }
}
