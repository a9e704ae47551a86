/// A URL query built from name/value pairs, percent-encoding everything but RFC 3986's unreserved
/// characters and, where the service wants them literal, commas.
struct QueryString {
  private(set) var items: [(name: String, value: String)] = []

  mutating func append(_ name: String, _ value: String) {
    items.append((name, value))
  }

  /// `base` with the query appended, leaving out the items named in `hiding` (secrets in logs).
  func url(base: String, hiding hidden: Set<String> = []) -> String {
    let query = items.filter { !hidden.contains($0.name) }
      .map { "\(Self.encode($0.name))=\(Self.encode($0.value))" }
      .joined(separator: "&")
    guard !query.isEmpty else { return base }
    return base + (base.contains("?") ? "&" : "?") + query
  }

  private static let hexDigits: [Unicode.Scalar] = Array("0123456789ABCDEF".unicodeScalars)

  private static func encode(_ text: String) -> String {
    var encoded = ""
    encoded.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ","):
        encoded.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        encoded.unicodeScalars.append("%")
        encoded.unicodeScalars.append(hexDigits[Int(byte >> 4)])
        encoded.unicodeScalars.append(hexDigits[Int(byte & 0x0F)])
      }
    }
    return encoded
  }
}

/// `degrees` with at most five decimals (about a metre) and never an exponent: "52.52",
/// "-0.1278", "0". Five decimals keep a list of 50 points well inside URL length limits.
func coordinateText(_ degrees: Double) -> String {
  // Callers check the range first, so the scaled value always fits.
  let scaled = Int64((degrees * 100_000).rounded())
  let magnitude = scaled.magnitude
  var text = scaled < 0 ? "-" : ""
  text += String(magnitude / 100_000)
  var fraction = String(magnitude % 100_000)
  guard fraction != "0" else { return text }
  fraction = String(repeating: "0", count: 5 - fraction.count) + fraction
  while fraction.hasSuffix("0") { fraction.removeLast() }
  return text + "." + fraction
}
