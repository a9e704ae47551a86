import SkyframeWeather

/// WeatherAPI.com tells local times as text in the place's own clock and gives no UTC offset:
/// `localtime` "2024-02-04 9:18" (hour not zero padded), dates "2024-02-04", and sunrise and sunset
/// as "07:42 AM" or "No sunrise". These read them.
enum WeatherAPILocalTime {
  /// The place's UTC offset: `localtime` read as if it were UTC, minus the Unix time it names.
  /// `localtime` has no seconds, so the difference is rounded to the nearest quarter hour (every
  /// offset in use is a multiple of 15 minutes). Nil when `localtime` cannot be read or the
  /// result is not a real offset (beyond ±14 h).
  static func utcOffsetSeconds(localtime: String, epoch: Int64) -> Int? {
    guard let wallClock = wallClockSeconds(localtime) else { return nil }
    let offset = flooredDivision(wallClock - epoch + 450, 900) * 900
    guard abs(offset) <= 14 * 3_600 else { return nil }
    return Int(offset)
  }

  /// "2024-02-04 9:18" as Unix seconds of that wall-clock time in UTC.
  static func wallClockSeconds(_ text: String) -> Int64? {
    let parts = text.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 2, let date = date(parts[0]),
      let time = clockTime(parts[1], hourRange: 0...23)
    else { return nil }
    return Int64(date) * 86_400 + Int64(time)
  }

  /// "2024-02-04" as days since 1970-01-01.
  static func date(_ text: some StringProtocol) -> Int? {
    let fields = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
    guard fields.count == 3, let year = fields[0], let month = fields[1], let day = fields[2],
      (1...12).contains(month), (1...31).contains(day)
    else { return nil }
    return daysSince1970(year: year, month: month, day: day)
  }

  /// "07:42 AM", "12:05 AM", "7:42 PM" as seconds after local midnight; nil for "No sunrise",
  /// "No sunset" and anything else that is not a 12-hour time.
  static func twelveHourTime(_ text: String) -> Int? {
    let parts = text.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count == 2, let time = clockTime(parts[0], hourRange: 1...12) else { return nil }
    let hour12 = time / 3_600
    let minutes = time % 3_600
    switch parts[1].uppercased() {
    case "AM": return (hour12 % 12) * 3_600 + minutes
    case "PM": return (hour12 % 12 + 12) * 3_600 + minutes
    default: return nil
    }
  }

  /// "9:18" or "09:18" as seconds, the hour within `hourRange`.
  private static func clockTime(_ text: some StringProtocol, hourRange: ClosedRange<Int>) -> Int? {
    let fields = text.split(separator: ":", omittingEmptySubsequences: false)
    guard fields.count == 2, fields[1].count == 2, let hour = Int(fields[0]),
      let minute = Int(fields[1]), hourRange.contains(hour), (0...59).contains(minute)
    else { return nil }
    return hour * 3_600 + minute * 60
  }
}
