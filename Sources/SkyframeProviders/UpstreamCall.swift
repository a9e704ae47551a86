import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// One GET to a weather service with everything every service needs: a deadline that covers the
/// whole exchange, a cap on the body, a debug line, and transport failures as `ProviderError`.
struct UpstreamCall {
  /// Bodies of successful answers are read up to this size; 50 Open-Meteo locations with a week
  /// of hourly data are about 300 KiB.
  static let maximumBodyBytes = 4 << 20
  /// Error bodies are only read for their reason text.
  static let maximumErrorBodyBytes = 64 << 10

  var service: String
  /// The URL without its query, for error texts.
  var endpoint: String
  var url: String
  /// `url` without secrets, for logs.
  var loggedURL: String
  var timeout: Duration
  /// Who is asking: services that must know (MET Norway, the NWS) get the operator's contact.
  var userAgent = "Skyframe"
  /// Headers beyond `Accept` and `User-Agent` (MET Norway's `If-Modified-Since`).
  var headers: [(name: String, value: String)] = []
  /// The deadline, the duration logged and `Retry-After`'s "now" keep this clock.
  var clock = ProviderClock.system

  struct Response {
    var status: Int
    /// The status line's text, e.g. "Service Unavailable".
    var reasonPhrase: String
    /// The whole body, or for an error status at most its first `maximumErrorBodyBytes`.
    var body: ByteBuffer
    /// `Retry-After` in seconds from now (delay-seconds, or an HTTP date), when sent.
    var retryAfterSeconds: Int? = nil
    /// The response's headers (for `Expires` and `Last-Modified`).
    var headers = HTTPHeaders()

    /// The error for a non-2xx answer, with the service's reason text.
    func error(reason: String) -> ProviderError {
      .forStatus(status, reason: reason, retryAfterSeconds: retryAfterSeconds)
    }
  }

  /// The answer, whatever its status; throws only when there is none (timeout, connection
  /// failure, body too large).
  func run(client: HTTPClient, logger: Logger) async throws(ProviderError) -> Response {
    let started = clock.now()
    /// The debug line of the call, with `outcome` (`status` or `error`) and its duration.
    func log(_ message: Logger.Message, _ outcome: String, _ value: @autoclosure () -> String) {
      logger.debug(
        message,
        metadata: [
          "service": "\(service)", "url": "\(loggedURL)", outcome: "\(value())",
          "duration_ms": "\(milliseconds(since: started))",
        ])
    }
    do {
      let response = try await exchange(client: client, logger: logger, started: started)
      log("weather service call", "status", "\(response.status)")
      return response
    } catch {
      let failure = providerError(for: error)
      log("weather service call failed", "error", "\(failure)")
      throw failure
    }
  }

  /// The body of a 2xx answer; any other status becomes the matching error, with the reason
  /// `reason` reads from the service's error body, else an excerpt of the body, else the status
  /// text.
  func body(client: HTTPClient, logger: Logger, reason: (ByteBuffer) -> String?)
    async throws(ProviderError) -> ByteBuffer
  {
    let response = try await run(client: client, logger: logger)
    guard (200..<300).contains(response.status) else {
      throw response.error(
        reason: reason(response.body) ?? excerpt(of: response.body, orElse: response.reasonPhrase))
    }
    return response.body
  }

  /// The whole exchange, head and body, within `timeout` of `started` on the provider's clock:
  /// the request is cancelled when the deadline comes first.
  private func exchange(client: HTTPClient, logger: Logger, started: Duration) async throws
    -> Response
  {
    let deadline = started + timeout
    return try await withThrowingTaskGroup(of: Response?.self) { group in
      group.addTask { try await self.exchange(client: client, logger: logger) }
      group.addTask {
        try await clock.sleep(until: deadline)
        return nil
      }
      defer { group.cancelAll() }
      guard let first = try await group.next(), let response = first else {
        throw HTTPClientError.deadlineExceeded
      }
      return response
    }
  }

  private func exchange(client: HTTPClient, logger: Logger) async throws -> Response {
    var request = HTTPClientRequest(url: url)
    request.method = .GET
    request.headers.add(name: "Accept", value: "application/json")
    request.headers.add(name: "User-Agent", value: userAgent)
    for header in headers { request.headers.add(name: header.name, value: header.value) }
    // The deadline is the provider clock's (above); the client's own is never the one that ends
    // a call.
    let response = try await client.execute(request, deadline: .distantFuture, logger: logger)
    let isSuccess = response.status.code / 100 == 2
    let retryAfter = response.headers.first(name: "Retry-After").flatMap {
      Self.retryAfterSeconds($0, now: clock.unixTime())
    }
    do {
      let body = try await response.body.collect(
        upTo: isSuccess ? Self.maximumBodyBytes : Self.maximumErrorBodyBytes)
      return Response(
        status: Int(response.status.code), reasonPhrase: response.status.reasonPhrase, body: body,
        retryAfterSeconds: retryAfter, headers: response.headers)
    } catch is NIOTooManyBytesError where !isSuccess {
      // Only the reason text is lost; the status still says what happened.
      return Response(
        status: Int(response.status.code), reasonPhrase: response.status.reasonPhrase,
        body: ByteBuffer(), retryAfterSeconds: retryAfter, headers: response.headers)
    }
  }

  /// RFC 9110 `Retry-After`: a number of seconds, or an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37
  /// GMT`) turned into seconds from `now` (0 when it has passed); nil when it is neither.
  static func retryAfterSeconds(_ value: String, now: Int64) -> Int? {
    let text = value.trimmingCharacters(in: .whitespaces)
    if let seconds = Int(text) { return seconds >= 0 ? seconds : nil }
    guard let date = httpDate(text) else { return nil }
    return max(0, Int(date - now))
  }

  /// An IMF-fixdate (RFC 9110 §5.6.7, `Sun, 06 Nov 1994 08:49:37 GMT`) as Unix seconds; nil for
  /// anything else.
  static func httpDate(_ value: String) -> Int64? {
    let parser = DateFormatter()
    parser.locale = Locale(identifier: "en_US_POSIX")
    parser.timeZone = TimeZone(identifier: "GMT")
    parser.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    guard let date = parser.date(from: value.trimmingCharacters(in: .whitespaces)) else {
      return nil
    }
    return Int64(date.timeIntervalSince1970.rounded(.down))
  }

  private func providerError(for error: any Error) -> ProviderError {
    switch error {
    case is NIOTooManyBytesError:
      return .malformed("body larger than \(Self.maximumBodyBytes) bytes")
    case let error as HTTPClientError where error == .deadlineExceeded:
      return .unavailable("timeout after \(secondsText(timeout)) (\(endpoint))")
    case let error as HTTPClientError where error == .remoteConnectionClosed:
      return .unavailable("connection closed before a complete response (\(endpoint))")
    case is CancellationError:
      return .unavailable("cancelled (\(endpoint))")
    case let error as HTTPClientError where error == .cancelled:
      return .unavailable("cancelled (\(endpoint))")
    default:
      return .unavailable("\(error) (\(endpoint))")
    }
  }

  private func milliseconds(since start: Duration) -> Int64 {
    let elapsed = clock.now() - start
    return elapsed.components.seconds * 1_000 + elapsed.components.attoseconds
      / 1_000_000_000_000_000
  }
}

/// "10 s", "0.25 s".
private func secondsText(_ duration: Duration) -> String {
  let (seconds, attoseconds) = duration.components
  guard attoseconds != 0 else { return "\(seconds) s" }
  let value = Double(seconds) + Double(attoseconds) / 1e18
  return "\(value) s"
}

extension ProviderError {
  /// The error for a non-2xx answer, with the service's own reason text.
  static func forStatus(_ status: Int, reason: String, retryAfterSeconds: Int? = nil)
    -> ProviderError
  {
    switch status {
    case 429: return .rateLimited(reason, retryAfterSeconds: retryAfterSeconds)
    case 401, 403: return .unauthorized(reason)
    case 400..<500: return .rejected(status: status, reason: reason)
    default: return .unavailable("HTTP \(status): \(reason)")
    }
  }
}

/// `base` without its trailing slashes, then `path`: the base URLs of the configuration may end
/// in `/`.
func joinedURL(_ base: String, _ path: String) -> String {
  var base = base
  while base.hasSuffix("/") { base.removeLast() }
  return base + path
}

/// A short, printable excerpt of a body that is not in the service's error shape.
func excerpt(of body: ByteBuffer, orElse fallback: String) -> String {
  let text = String(buffer: body).trimmingCharacters(in: .whitespacesAndNewlines)
  guard !text.isEmpty else { return fallback }
  let printable = text.unicodeScalars.map {
    $0.properties.generalCategory == .control ? " " : Character($0)
  }
  return String(printable.prefix(200))
}
