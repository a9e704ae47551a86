/// An ISO 3166-1 alpha-2 country code: two ASCII capital letters.
public struct CountryCode: Sendable, Hashable {
  public let first: UInt8
  public let second: UInt8

  /// The code for two ASCII letters in either case (`de` becomes `DE`); nil for anything else.
  public init?(_ first: UInt8, _ second: UInt8) {
    guard let first = Self.upper(first), let second = Self.upper(second) else { return nil }
    self.first = first
    self.second = second
  }

  private static func upper(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte
    case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - 32
    default: nil
    }
  }
}
