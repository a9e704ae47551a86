/// Why a weather service gave no usable answer, sorted by what the caller can do about it: wait
/// (`rateLimited`, `unavailable`), fix the request or the configuration (`rejected`,
/// `unauthorized`), or report the service (`malformed`, `outdated`).
public enum ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
  /// HTTP 429 (or a quota the service says is spent), with the service's reason and the seconds
  /// its `Retry-After` header asks to wait, when it sends one.
  case rateLimited(String, retryAfterSeconds: Int? = nil)
  /// Any other 4xx, with the service's reason. Status 0: refused before sending (the request could
  /// not be formed, e.g. a coordinate that is not a finite number in range).
  case rejected(status: Int, reason: String)
  /// HTTP 401 or 403, with the service's reason.
  case unauthorized(String)
  /// The service could not be reached or failed: 5xx, timeout, refused or dropped connection.
  case unavailable(String)
  /// HTTP 200, but the body is not in the expected shape; the text names the key or path.
  case malformed(String)
  /// HTTP 200 and well formed, but too old to describe the present
  /// (`Forecast.checkRecent(at:)`): the service is serving data it has stopped updating.
  case outdated(String)
  /// Not sent: the gateway holds calls to this service back after failures or a 429 (its circuit
  /// breaker is open), with what it is waiting for, why it paused, and the seconds left of the
  /// pause when known.
  case paused(String, cause: PauseCause = .outage, retryInSeconds: Int? = nil)

  /// Why a service is paused: what a device is told while it is (frame-v1.md §5.1).
  public enum PauseCause: String, Sendable, Equatable {
    /// Failed calls: refused connections, timeouts, 5xx, malformed answers.
    case outage
    /// A 429 or a quota the service says is spent.
    case rateLimited = "rate_limited"
    /// The key was refused (401/403).
    case unauthorized

    /// The cause of a pause that `error` opened.
    public init(of error: ProviderError) {
      switch error {
      case .rateLimited: self = .rateLimited
      case .unauthorized: self = .unauthorized
      case .paused(_, let cause, _): self = cause
      case .rejected, .unavailable, .malformed, .outdated: self = .outage
      }
    }
  }

  public var description: String {
    switch self {
    case .rateLimited(let reason, nil): "rate limited: \(reason)"
    case .rateLimited(let reason, let seconds?):
      "rate limited: \(reason) (retry after \(seconds) s)"
    case .rejected(0, let reason): "rejected before sending: \(reason)"
    case .rejected(let status, let reason): "rejected (HTTP \(status)): \(reason)"
    case .unauthorized(let reason): "unauthorized: \(reason)"
    case .unavailable(let reason): "unavailable: \(reason)"
    case .malformed(let reason): "malformed response: \(reason)"
    case .outdated(let reason): "outdated answer: \(reason)"
    case .paused(let reason, _, _): "paused: \(reason)"
    }
  }
}
