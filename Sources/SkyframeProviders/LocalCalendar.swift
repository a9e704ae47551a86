import SkyframeWeather

/// The place's local calendar date at `unixSeconds`, in days since 1970-01-01.
func localDate(_ unixSeconds: Int64, utcOffsetSeconds: Int) -> Int {
  CivilDate.localDay(unixSeconds, utcOffsetSeconds: utcOffsetSeconds)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
func daysSince1970(year: Int, month: Int, day: Int) -> Int {
  CivilDate(year: year, month: month, day: day).daysSinceEpoch
}
