/// A URL query's items (`q=Berlin%2CDE&format=json`), as HTTP and CoAP ways in read them.
package enum QueryItems {
  /// The query's items, percent-decoded, `+` read as a space; the first of a name counts.
  package static func parse(_ query: String) -> [String: String] {
    var items: [String: String] = [:]
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let name = decode(parts[0])
      if items[name] == nil { items[name] = parts.count > 1 ? decode(parts[1]) : "" }
    }
    return items
  }

  /// The value of the first item named `name`, percent-decoded: what `parse(query)[name]` gives,
  /// without building the table (a request's hot path reads two items), scanning bytes.
  package static func value(of name: String, in query: String) -> String? {
    let utf8 = query.utf8
    var start = utf8.startIndex
    while start < utf8.endIndex {
      let end = utf8[start...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
      let pair = utf8[start..<end]
      start = end < utf8.endIndex ? utf8.index(after: end) : end
      let equals = pair.firstIndex(of: UInt8(ascii: "="))
      let itemName = pair[..<(equals ?? pair.endIndex)]
      let encoded = itemName.contains { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }
      let matches =
        encoded
        ? decode(Substring(itemName)) == name : itemName.elementsEqual(name.utf8)
      guard matches else { continue }
      guard let equals else { return "" }
      return decode(Substring(pair[utf8.index(after: equals)...]))
    }
    return nil
  }

  static func decode(_ text: Substring) -> String {
    var bytes: [UInt8] = []
    var index = text.utf8.startIndex
    let utf8 = text.utf8
    func hexValue(_ byte: UInt8) -> UInt8? {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
      case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
      default: nil
      }
    }
    while index < utf8.endIndex {
      let byte = utf8[index]
      if byte == UInt8(ascii: "%"),
        let first = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
        first < utf8.endIndex,
        let second = utf8.index(first, offsetBy: 1, limitedBy: utf8.endIndex),
        second < utf8.endIndex, let high = hexValue(utf8[first]), let low = hexValue(utf8[second])
      {
        bytes.append(high << 4 | low)
        index = utf8.index(after: second)
        continue
      }
      bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
      index = utf8.index(after: index)
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}
