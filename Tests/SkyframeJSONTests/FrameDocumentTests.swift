import Foundation
import SkyframeCodec
import SkyframeWeather
import Testing

@testable import SkyframeJSON

@Suite struct FrameDocumentTests {
  func document() -> FrameDocument {
    var frame = WeatherFrame()
    frame.current.temperature = 215
    frame.latitude = 5_252_000
    frame.dailyStart = 19_737
    return FrameDocument(frame)
  }

  @Test func humanValuesAreExactDecimals() {
    let document = document()
    #expect(document.current.temperature == 21.5)
    #expect(document.latitude == 52.52)
    #expect(document.dailyStart == "2024-01-15")
  }

  /// frame-v1.md's JSON writes every key, a missing value as null, at every level.
  @Test func missingValuesAreWrittenAsNull() throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = String(decoding: try encoder.encode(document()), as: UTF8.self)
    for key in [
      #""moon":null"#, #""alerts":null"#, #""air_quality":null"#, #""country":null"#,
      #""feels_like_c":null"#, #""visibility_m":null"#, #""is_day":null"#,
      #""precip_probability_pct":null"#, #""min_c":null"#, #""next_update_s":null"#,
      #""temperature_c":21.5"#,
    ] {
      #expect(json.contains(key), "\(key) in \(json.prefix(200))")
    }
    // A document without such a key still reads, as nil.
    let withoutMoon = json.replacingOccurrences(of: #","moon":null"#, with: "")
    #expect(!withoutMoon.contains("moon"))
    let sparse = try JSONDecoder().decode(FrameDocument.self, from: Data(withoutMoon.utf8))
    #expect(sparse == document())
  }

  @Test func aValueBetweenStepsNamesItsKey() {
    var document = document()
    document.current.temperature = 21.55
    #expect(throws: DocumentError.self) { try document.frame() }
    do {
      _ = try document.frame()
    } catch {
      #expect(error.key == "current.temperature_c")
      #expect(error.description.hasPrefix("current.temperature_c: 21.55 is not allowed"))
    }
  }

  @Test func unknownNamesAndShapesAreRefused() {
    var document = document()
    document.status = .name("sunny")
    #expect(throws: DocumentError.self) { try document.frame() }
    document = self.document()
    document.hourly.removeLast()
    #expect(throws: DocumentError(key: "hourly", value: "11 entries", allowed: "exactly 12")) {
      try document.frame()
    }
    document = self.document()
    document.country = "de"
    #expect(throws: DocumentError.self) { try document.frame() }
    document = self.document()
    document.dailyStart = "2023-02-29"
    #expect(throws: DocumentError.self) { try document.frame() }
  }

  @Test func civilDatesRoundTrip() {
    for days in stride(from: -800_000, through: 800_000, by: 997) {
      let date = CivilDate(daysSinceEpoch: days)
      #expect(date.daysSinceEpoch == days)
    }
    #expect(CivilDate(daysSinceEpoch: 0).iso == "1970-01-01")
    #expect(CivilDate(daysSinceEpoch: 0).weekday == 4)
    #expect(CivilDate(iso: "2000-02-29")?.daysSinceEpoch == 11_016)
    #expect(CivilDate(daysSinceEpoch: -1).weekday == 3)
  }

  @Test func theReportShowsLocalTimesUnitsAndAge() {
    var frame = WeatherFrame()
    frame.name = FrameName(truncating: "Kathmandu")
    frame.country = CountryCode("NP")
    frame.utcOffsetMinutes = 345
    frame.fetchedAt = 1_705_300_200
    frame.observedAt = 1_705_300_200
    frame.current.temperature = -23
    frame.current.windSpeed = 34
    frame.current.windDirection = 270
    frame.sunrise = 1_705_281_300
    frame.sun = .normal
    let text = FrameReport.text(frame, now: 1_705_300_200 + 300)
    #expect(text.contains("Kathmandu, NP"))
    #expect(text.contains("-2.3 °C"))
    #expect(text.contains("wind 3.4 m/s from 270° W"))
    #expect(text.contains("5 min old"))
    #expect(text.contains("UTC+05:45"))
    // 01:15 UTC is 07:00 in Kathmandu.
    #expect(text.contains("rise 07:00"))
    #expect(text.contains("fetched 2024-01-15 12:15"))
  }

  @Test func errorFramesSayTheirStatus() {
    let text = FrameReport.text(
      WeatherFrame(
        status: .notFound, requestID: 7, slotIndex: 1, slotCount: 3,
        name: FrameName(truncating: "Atlantis")),
      now: 0)
    #expect(text.contains("status not_found"))
    #expect(text.contains("slot 2/3"))
    #expect(text.contains("Atlantis"))
  }

  /// A name is anybody's text: no escape sequence reaches the operator's terminal.
  @Test func controlCharactersInANameAreShownEscaped() {
    let text = FrameReport.text(
      WeatherFrame(status: .notFound, name: FrameName(truncating: "\u{1B}[2JEvil\u{7}\u{85}x")),
      now: 0)
    #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
    #expect(!text.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) })
    #expect(text.contains(#"\u{1B}[2JEvil\u{07}\u{85}x"#))
  }
}
