import SkyframeCodec
import Testing

@testable import SkyframeWeather

/// The moon's phase against published times of its principal phases (UTC, to the minute).
struct MoonTests {
  static let principal: [(String, Int64, Double)] = [
    ("new moon 2000-01-06 18:14", 947_182_440, 0),
    ("new moon 2024-01-11 11:57", 1_704_974_220, 0),
    ("first quarter 2024-01-18 03:53", 1_705_549_980, 0.25),
    ("full moon 2024-01-25 17:54", 1_706_205_240, 0.5),
    ("last quarter 2024-02-02 23:18", 1_706_915_880, 0.75),
    ("full moon 2025-03-14 06:55", 1_741_935_300, 0.5),
  ]

  @Test(arguments: principal)
  func thePhaseMatchesThePublishedTime(_ name: String, _ unix: Int64, _ expected: Double) {
    let phase = Moon.phase(atUnix: unix)
    var difference = abs(phase - expected)
    difference = min(difference, 1 - difference)
    // 0.002 of a cycle is about 1.4 hours of the moon's motion: well inside one of 255 steps.
    #expect(difference < 0.002, "\(name): \(phase)")
  }

  @Test func aFrameCarriesThePhaseOfItsLocalDateAtNoon() {
    // 2024-01-25 is day 19 747; noon in UTC+1 is 11:00 UTC, about 7 hours before full moon.
    let moon = Moon.phase(onLocalDay: 19_747, utcOffsetSeconds: 3_600)
    #expect(moon.icon == .fullMoon)
    #expect(abs(moon.fraction - 0.5) < 0.02)
    #expect(moon.fraction < 0.5)
  }
}
