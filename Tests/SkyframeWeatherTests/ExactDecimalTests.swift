import SkyframeCodec
import Testing

@testable import SkyframeWeather

@Suite struct ExactDecimalTests {
  @Test func aDoubleReadsBackAsTheDecimalItWasWrittenAs() {
    #expect(ExactDecimal(3.25) == ExactDecimal(significand: 325, fractionDigits: 2))
    #expect(ExactDecimal(-0.1) == ExactDecimal(significand: -1, fractionDigits: 1))
    #expect(ExactDecimal(52.52437) == ExactDecimal(significand: 5_252_437, fractionDigits: 5))
    #expect(ExactDecimal(1_013) == ExactDecimal(significand: 1_013, fractionDigits: 0))
    // A binary result is no short decimal; neither is anything not finite.
    #expect(ExactDecimal(11.7 / 3.6) == nil)
    #expect(ExactDecimal(.infinity) == nil)
    #expect(ExactDecimal(.nan) == nil)
  }

  @Test func conversionsAreExactAndGiveTheNearestDouble() throws {
    let kilometresPerHour = try #require(ExactDecimal(11.7))
    #expect(kilometresPerHour.converted(times: 5, over: 18) == 3.25)
    #expect(try #require(ExactDecimal(4.14)).converted(times: 5, over: 18) == 1.15)
    #expect(try #require(ExactDecimal(11.8)).converted(times: 5, over: 18) == 118.0 / 36)
  }

  @Test func halvesRoundAwayFromZeroOnTheDecimal() {
    // frame-v1.md §6.8: to the nearest step, halves away from zero.
    #expect(roundedHalfAway(3.25, inStepsOf: LargeLayout.hourlyWindSpeed) == 7)
    #expect(roundedHalfAway(-3.25, inStepsOf: LargeLayout.hourlyWindSpeed) == -7)
    #expect(roundedHalfAway(1.15, inStepsOf: StandardLayout.temperature) == 12)
    #expect(roundedHalfAway(-21.45, inStepsOf: StandardLayout.temperature) == -215)
    #expect(roundedHalfAway(1_005, inStepsOf: StandardLayout.visibility) == 101)
    #expect(roundedHalfAway(3.249, inStepsOf: LargeLayout.hourlyWindSpeed) == 6)
    // No short decimal: rounded in binary, as before.
    #expect(roundedHalfAway(11.7 / 3.6, inStepsOf: LargeLayout.hourlyWindSpeed) == 6)
  }

  /// The binary shortcut away from halves gives what the decimal gives, for every value a
  /// service writes with up to three decimals in the rows' ranges and steps (0.1, 0.5, 1, 10, 100
  /// units; the position's 0.00001°).
  @Test func theShortcutAwayFromHalvesAgreesWithTheDecimalEverywhere() throws {
    let fields = [
      StandardLayout.temperature, LargeLayout.hourlyWindSpeed, StandardLayout.humidity,
      StandardLayout.visibility, StandardLayout.latitude,
    ]
    var disagreements: [String] = []
    for field in fields {
      let (steps, units) = field.stepFraction
      for thousandths in stride(from: -200_000, through: 200_000, by: 7) {
        let value = Double(thousandths) / 1_000
        let decimal = try #require(ExactDecimal(value))
        let exact = try #require(decimal.rounded(times: steps, over: units))
        if roundedHalfAway(value, inStepsOf: field) != Double(exact), disagreements.count < 5 {
          disagreements.append("\(value) in \(field.name): \(exact)")
        }
      }
    }
    #expect(disagreements.isEmpty)
  }

  @Test func sumsOfDecimalsAreExact() {
    #expect(ExactDecimal.sum([2.34, 0.01]) == 2.35)
    #expect(ExactDecimal.sum([0.1, 0.2]) == 0.3)
    #expect(ExactDecimal.sum([Double]()) == 0)
    #expect(ExactDecimal.sum([0.1, 11.7 / 3.6]) == 0.1 + 11.7 / 3.6)
  }
}
