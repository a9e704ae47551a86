import Testing

@testable import SkyframeProviders

@Suite("WeatherAPI.com local times")
struct WeatherAPILocalTimeTests {
  @Test("12-hour times, midnight and noon included; \"No sunrise\" and garbage are nil")
  func twelveHour() {
    #expect(WeatherAPILocalTime.twelveHourTime("07:42 AM") == 7 * 3_600 + 42 * 60)
    #expect(WeatherAPILocalTime.twelveHourTime("7:42 PM") == 19 * 3_600 + 42 * 60)
    #expect(WeatherAPILocalTime.twelveHourTime("12:05 AM") == 5 * 60)
    #expect(WeatherAPILocalTime.twelveHourTime("12:30 PM") == 12 * 3_600 + 30 * 60)
    #expect(WeatherAPILocalTime.twelveHourTime("11:59 pm") == 23 * 3_600 + 59 * 60)
    for text in [
      "No sunrise", "No sunset", "", "13:00 PM", "00:10 AM", "7:4 AM", "07:42", "07:60 AM",
    ] {
      #expect(WeatherAPILocalTime.twelveHourTime(text) == nil, "\(text)")
    }
  }

  @Test("local timestamps with and without zero padding")
  func wallClock() {
    // 2024-02-29 is a leap day, 19 782 days after 1970-01-01; 9:18 is 33 480 s after midnight.
    let leapDay918: Int64 = 19_782 * 86_400 + 33_480
    #expect(WeatherAPILocalTime.wallClockSeconds("2024-02-29 9:18") == leapDay918)
    #expect(WeatherAPILocalTime.wallClockSeconds("2024-02-29 09:18") == leapDay918)
    #expect(WeatherAPILocalTime.wallClockSeconds("1970-01-01 0:00") == 0)
    for text in ["2024-02-29", "2024-02-29 24:00", "2024-13-01 1:00", "29.02.2024 9:18", ""] {
      #expect(WeatherAPILocalTime.wallClockSeconds(text) == nil, "\(text)")
    }
  }

  @Test("the offset is the local clock minus the epoch, to the nearest quarter hour")
  func offsets() {
    let wall = WeatherAPILocalTime.wallClockSeconds("2025-03-10 9:05")!
    // The epoch has seconds the text does not show: 0–59 s after the shown minute.
    for (offset, seconds) in [(20_700, 37), (19_800, 0), (-12_600, 59), (0, 12), (50_400, 1)] {
      let epoch = wall - Int64(offset) + Int64(seconds)
      #expect(
        WeatherAPILocalTime.utcOffsetSeconds(localtime: "2025-03-10 9:05", epoch: epoch) == offset)
    }
    #expect(
      WeatherAPILocalTime.utcOffsetSeconds(localtime: "2025-03-10 9:05", epoch: wall - 15 * 3_600)
        == nil)
  }
}
