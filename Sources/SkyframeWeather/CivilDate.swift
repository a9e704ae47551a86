/// A proleptic Gregorian calendar date, converted to and from days since 1970-01-01 with Howard
/// Hinnant's `days_from_civil` algorithm (exact for every date, no tables, no Foundation).
public struct CivilDate: Equatable, Sendable {
  public var year: Int
  public var month: Int
  public var day: Int

  public init(year: Int, month: Int, day: Int) {
    self.year = year
    self.month = month
    self.day = day
  }

  /// The local calendar date at `unixSeconds` for a place `utcOffsetSeconds` east of UTC; instants
  /// before a day's start (or before 1970) land on the day they belong to.
  public static func localDay(_ unixSeconds: Int64, utcOffsetSeconds: Int) -> Int {
    Int(flooredDivision(unixSeconds + Int64(utcOffsetSeconds), 86_400))
  }

  public init(daysSinceEpoch days: Int) {
    let shifted = days + 719_468
    let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
    let dayOfEra = shifted - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  }

  /// Parses `YYYY-MM-DD`; nil for anything else, including 2023-02-29.
  public init?(iso text: String) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    self.init(year: year, month: month, day: day)
    guard CivilDate(daysSinceEpoch: daysSinceEpoch) == self else { return nil }
  }

  public var daysSinceEpoch: Int {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// 0 = Sunday … 6 = Saturday.
  public var weekday: Int {
    ((daysSinceEpoch + 4) % 7 + 7) % 7
  }

  public var iso: String {
    func padded(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
  }
}

/// `value / divisor` rounded towards minus infinity.
public func flooredDivision(_ value: Int64, _ divisor: Int64) -> Int64 {
  let quotient = value / divisor
  return value % divisor < 0 ? quotient - 1 : quotient
}
