/// A number as a weather service wrote it, `significand × 10^-fractionDigits`, read back from the
/// `Double` that decoding made of it: the decimal with the fewest digits after the point (at most
/// `maximumFractionDigits`) that reads back as that `Double`. Arithmetic on it is exact, so a
/// conversion or a rounding to a frame's step treats 11.7 km/h as exactly 3.25 m/s (in binary
/// 11.7 / 3.6 is 3.2499999999999996) and 21.45 °C as 214.5 tenths (21.45 × 10 is 214.4999…).
public struct ExactDecimal: Sendable, Equatable {
  public var significand: Int64
  public var fractionDigits: Int

  /// More than any weather service writes.
  public static let maximumFractionDigits = 9
  /// Beyond 2⁵³ not every integer is a `Double`.
  static let largestSignificand = 9_007_199_254_740_992.0

  public init(significand: Int64, fractionDigits: Int) {
    self.significand = significand
    self.fractionDigits = fractionDigits
  }

  /// `value` as a decimal; nil when it is not finite or no decimal of at most
  /// `maximumFractionDigits` digits after the point reads back as it (a binary result such as
  /// 11.8 / 3.6).
  public init?(_ value: Double) {
    self.init(value, perUnit: 1)
  }

  /// The decimal `d` whose `d / divisor` reads back as `value`: `value` came from dividing a
  /// service's decimal (a rate per hour spread over 60 minutes: divisor 60).
  init?(_ value: Double, perUnit divisor: Int64) {
    guard value.isFinite, divisor > 0 else { return nil }
    let times = Double(divisor)
    var power = 1.0
    for digits in 0...Self.maximumFractionDigits {
      let scaled = (value * times * power).rounded()
      guard scaled.magnitude < Self.largestSignificand else { return nil }
      // Both exact integers: IEEE division rounds the quotient correctly, as decoding did.
      if scaled / (times * power) == value {
        self.init(significand: Int64(scaled), fractionDigits: digits)
        return
      }
      power *= 10
    }
    return nil
  }

  /// 10ⁿ for n in 0...18.
  static func power(_ exponent: Int) -> Int64 {
    var result: Int64 = 1
    for _ in 0..<exponent { result *= 10 }
    return result
  }

  /// `self × numerator / denominator` to the nearest whole number, halves away from zero
  /// (frame-v1.md §6.8); nil when the arithmetic would overflow. `denominator` > 0.
  public func rounded(times numerator: Int64, over denominator: Int64) -> Int64? {
    let (product, overflow) = significand.multipliedReportingOverflow(by: numerator)
    let (divisor, overflow2) = denominator.multipliedReportingOverflow(
      by: Self.power(fractionDigits))
    guard !overflow, !overflow2, divisor > 0 else { return nil }
    let (quotient, remainder) = product.quotientAndRemainder(dividingBy: divisor)
    // |remainder| ≥ divisor / 2, without overflowing.
    guard remainder.magnitude >= divisor.magnitude - remainder.magnitude else { return quotient }
    return quotient + (product < 0 ? -1 : 1)
  }

  /// The `Double` nearest `self × numerator / denominator` (`denominator` > 0).
  public func converted(times numerator: Int64, over denominator: Int64) -> Double {
    var top = significand.multipliedReportingOverflow(by: numerator)
    var bottom = denominator.multipliedReportingOverflow(by: Self.power(fractionDigits))
    if !top.overflow, !bottom.overflow {
      let common = Self.greatestCommonDivisor(top.partialValue, bottom.partialValue)
      top.partialValue /= common
      bottom.partialValue /= common
      // Exact integers as `Double`s: the one division rounds correctly.
      if Double(top.partialValue.magnitude) <= Self.largestSignificand,
        Double(bottom.partialValue) <= Self.largestSignificand
      {
        return Double(top.partialValue) / Double(bottom.partialValue)
      }
    }
    return Double(significand) / Double(Self.power(fractionDigits)) * Double(numerator)
      / Double(denominator)
  }

  static func greatestCommonDivisor(_ a: Int64, _ b: Int64) -> Int64 {
    var (x, y) = (a.magnitude, b.magnitude)
    while y != 0 { (x, y) = (y, x % y) }
    return x == 0 ? 1 : Int64(x)
  }

  /// The sum of `values` as decimals, exactly, as the nearest `Double` (0.7 + 0.15 is 0.85, where
  /// binary addition may land beside it); in binary when one of them is no short decimal.
  public static func sum(_ values: some Sequence<Double>) -> Double {
    var total = ExactDecimal(significand: 0, fractionDigits: 0)
    var binary = 0.0
    var exact = true
    for value in values {
      binary += value
      guard exact, let decimal = ExactDecimal(value), let next = total.adding(decimal) else {
        exact = false
        continue
      }
      total = next
    }
    return exact ? total.converted(times: 1, over: 1) : binary
  }

  /// `self + other`; nil on overflow.
  func adding(_ other: ExactDecimal) -> ExactDecimal? {
    let digits = max(fractionDigits, other.fractionDigits)
    let (a, overflowA) = significand.multipliedReportingOverflow(
      by: Self.power(digits - fractionDigits))
    let (b, overflowB) = other.significand.multipliedReportingOverflow(
      by: Self.power(digits - other.fractionDigits))
    let (sum, overflow) = a.addingReportingOverflow(b)
    guard !overflowA, !overflowB, !overflow else { return nil }
    return ExactDecimal(significand: sum, fractionDigits: digits)
  }
}
