/// The place's local calendar date at `unixSeconds`, in days since 1970-01-01.
func localDate(_ unixSeconds: Int64, utcOffsetSeconds: Int) -> Int {
  Int(flooredDivision(unixSeconds + Int64(utcOffsetSeconds), 86_400))
}

/// `value / divisor` rounded towards minus infinity, so that instants before a day's start (or
/// before 1970) land on the day they belong to.
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
