import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import SkyframeGateway
import SkyframeProviders

/// The HTTP way in with the network cut off: a request in, its response out, through the same
/// intake and rooms as the listener (`AnswerRooms.standalone` over one weather service). What the
/// bench suite measures for an HTTP cache hit beside MQTT's (`RequestPath`): everything after
/// Hummingbird has parsed the request and before it writes the response.
public final class HTTPRequestPath: Sendable {
  private let intake: DeviceIntake
  /// The rooms' one worker, for the requests that miss the cache.
  private let worker: Task<Void, Never>

  public init(
    configuration: GatewayConfiguration, provider: any WeatherProvider, clock: GatewayClock,
    logger: Logger
  ) {
    let rooms = AnswerRooms.standalone(
      configuration: configuration, provider: provider, clock: clock, logger: logger)
    intake = rooms.intake(way: "http", configuration: configuration)
    worker = Task { await rooms.work() }
  }

  deinit { worker.cancel() }

  /// `GET {pathAndQuery}` (with `If-None-Match` when given) as the listener answers it; a miss
  /// waits for the rooms' worker, as the listener's request does.
  public func get(_ pathAndQuery: String, device: String?, ifNoneMatch: String? = nil) async
    -> HTTPAnswer
  {
    var head = HTTPRequest(
      method: .get, scheme: "http", authority: "gateway", path: pathAndQuery)
    if let ifNoneMatch { head.headerFields[.ifNoneMatch] = ifNoneMatch }
    let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    let response = await HTTPWayIn.respond(
      to: request, device: device, remoteAddress: nil, intake: intake, tokens: [])
    return HTTPAnswer(
      status: response.status.code, etag: response.headers[.eTag],
      contentLength: response.body.contentLength ?? 0)
  }
}

/// What a response said, for callers outside the package.
public struct HTTPAnswer: Sendable {
  public var status: Int
  public var etag: String?
  public var contentLength: Int
}
