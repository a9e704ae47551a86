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

  /// The capital for an ASCII letter of either case, nil for any other byte. Clearing bit 5 turns
  /// `a`–`z` into `A`–`Z` and leaves capitals as they are; no other byte lands on a capital.
  private static func upper(_ byte: UInt8) -> UInt8? {
    let capital = byte & 0xDF
    return capital &- UInt8(ascii: "A") < 26 ? capital : nil
  }
}
