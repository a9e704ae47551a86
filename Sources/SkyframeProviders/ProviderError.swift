/// Why a weather service gave no usable answer, sorted by what the caller can do about it: wait
/// (`rateLimited`, `unavailable`), fix the request or the configuration (`rejected`,
/// `unauthorized`), or report the service (`malformed`).
public enum ProviderError: Error, Sendable, Equatable, CustomStringConvertible {
  /// HTTP 429, with the service's reason.
  case rateLimited(String)
  /// Any other 4xx, with the service's reason. Status 0: refused before sending (the request could
  /// not be formed, e.g. a coordinate that is not a finite number in range).
  case rejected(status: Int, reason: String)
  /// HTTP 401 or 403, with the service's reason.
  case unauthorized(String)
  /// The service could not be reached or failed: 5xx, timeout, refused or dropped connection.
  case unavailable(String)
  /// HTTP 200, but the body is not in the expected shape; the text names the key or path.
  case malformed(String)

  public var description: String {
    switch self {
    case .rateLimited(let reason): "rate limited: \(reason)"
    case .rejected(0, let reason): "rejected before sending: \(reason)"
    case .rejected(let status, let reason): "rejected (HTTP \(status)): \(reason)"
    case .unauthorized(let reason): "unauthorized: \(reason)"
    case .unavailable(let reason): "unavailable: \(reason)"
    case .malformed(let reason): "malformed response: \(reason)"
    }
  }
}
