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
struct LenientNumber: Decodable, Equatable {
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

extension GeoPoint {
  /// Throws `.rejected(status: 0, …)` for a coordinate no service can be asked about.
  func checkForRequest() throws(ProviderError) {
    guard latitude.isFinite, abs(latitude) <= 90 else {
      throw .rejected(status: 0, reason: "latitude \(latitude) is not in -90…90")
    }
    guard longitude.isFinite, abs(longitude) <= 180 else {
      throw .rejected(status: 0, reason: "longitude \(longitude) is not in -180…180")
    }
  }
}

/// The place's local calendar date at `unixSeconds`, in days since 1970-01-01.
func localDate(_ unixSeconds: Int64, utcOffsetSeconds: Int) -> Int {
  Int(flooredDivision(unixSeconds + Int64(utcOffsetSeconds), 86_400))
}

func flooredDivision(_ value: Int64, _ divisor: Int64) -> Int64 {
  let quotient = value / divisor
  return value % divisor < 0 ? quotient - 1 : quotient
}

/// Days since 1970-01-01 of a proleptic Gregorian date (the usual days-from-civil algorithm).
func daysSince1970(year: Int, month: Int, day: Int) -> Int {
  let shiftedYear = month <= 2 ? year - 1 : year
  let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
  let yearOfEra = shiftedYear - era * 400
  let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
  let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
  return era * 146_097 + dayOfEra - 719_468
}

/// Runs `body` and keeps its outcome, so two calls can run side by side with `async let` and
/// their typed errors survive.
func outcome<T: Sendable>(_ body: () async throws(ProviderError) -> T) async -> Result<
  T, ProviderError
> {
  do {
    return .success(try await body())
  } catch {
    return .failure(error)
  }
}
