import Foundation
import NIOCore
import NIOFoundationCompat

/// `body` decoded as `T`; any failure is `.malformed` with the JSON path of the offending value.
func decodeJSON<T: Decodable>(_ type: T.Type, from body: ByteBuffer) throws(ProviderError) -> T {
  do {
    return try JSONDecoder().decode(type, from: body)
  } catch let error as DecodingError {
    throw .malformed(decodingFailureText(error))
  } catch {
    throw .malformed("\(error)")
  }
}

/// "list[3].main.temp: Expected to decode Double but found a string instead."
private func decodingFailureText(_ error: DecodingError) -> String {
  let context: DecodingError.Context
  switch error {
  case .typeMismatch(_, let found), .valueNotFound(_, let found), .keyNotFound(_, let found),
    .dataCorrupted(let found):
    context = found
  @unknown default:
    return "\(error)"
  }
  let path = context.codingPath.map { key in
    key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)"
  }.joined()
  let location = path.hasPrefix(".") ? String(path.dropFirst()) : path
  return location.isEmpty
    ? "body is not valid JSON (\(context.debugDescription))"
    : "\(location): \(context.debugDescription)"
}

/// A JSON number that some versions of a service send as a string ("86"): both decode, and a
/// string that holds no number is nil rather than a failure of the whole answer.
struct LenientNumber: Decodable {
  var value: Double?

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      value = nil
    } else if let number = try? container.decode(Double.self) {
      value = number
    } else {
      let text = try container.decode(String.self)
      value = Double(text.trimmingCharacters(in: .whitespaces))
    }
  }
}

/// The lower of two values, either of which may be missing.
func lower<T: Comparable>(_ first: T?, _ second: T?) -> T? {
  guard let first else { return second }
  guard let second else { return first }
  return min(first, second)
}

/// The higher of two values, either of which may be missing.
func higher<T: Comparable>(_ first: T?, _ second: T?) -> T? {
  guard let first else { return second }
  guard let second else { return first }
  return max(first, second)
}
