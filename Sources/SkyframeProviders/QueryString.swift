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

/// `tenThousandths` / 10 000 with at most four decimals, the precision MET Norway and the NWS
/// take (about 11 m): 599_123 → "59.9123", -1 → "-0.0001", 107_500 → "10.75".
func fourDecimalText(_ tenThousandths: Int64) -> String {
  let sign = tenThousandths < 0 ? "-" : ""
  let magnitude = tenThousandths.magnitude
  var fraction = String(magnitude % 10_000)
  fraction = String(repeating: "0", count: 4 - fraction.count) + fraction
  while fraction.hasSuffix("0") { fraction.removeLast() }
  return sign + String(magnitude / 10_000) + (fraction.isEmpty ? "" : "." + fraction)
}

/// `degrees` rounded to four decimals, as text.
func fourDecimalText(degrees: Double) -> String {
  fourDecimalText(Int64((degrees * 10_000).rounded()))
}
