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

  /// The standard frame's JSON off its table (frame-profiles.md §8): every key, a missing value
  /// as null, values in the table's unit, read back to the same bytes.
  func json() throws -> (text: String, object: [String: Any], bytes: [UInt8]) {
    var frame = WeatherFrame()
    frame.current.temperature = 215
    frame.latitude = 5_252_000
    frame.dailyStart = 19_737
    let bytes = try frame.encoded()
    let json = try bytes.withUnsafeBytes { try ProfileDocument.json(of: $0) }
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
    return (String(decoding: json, as: UTF8.self), object, bytes)
  }

  @Test func theStandardJSONIsReadOffItsTable() throws {
    let (text, object, bytes) = try json()
    #expect(text.hasPrefix(#"{"profile":"standard","status":"ok","request_id":0"#))
    for key in [
      #""moon":null"#, #""alerts":null"#, #""air_quality":null"#, #""country":null"#,
      #""feels_like":null"#, #""visibility":null"#, #""is_day":null"#, #""next_update":null"#,
      #""temperature":21.5"#, #""latitude":52.52"#, #""daily_start":19737"#,
    ] {
      #expect(text.contains(key), "\(key) in \(text.prefix(200))")
    }
    let shown = StandardLayout.fields.filter(ProfileDocument.isShown).map { "\($0.name)" }
    #expect(Set(object.keys) == Set(shown + ["profile"]))
    #expect(!object.keys.contains("version") && !object.keys.contains("reserved_87"))
    #expect(try ProfileDocument.message(from: object) == bytes)
  }

  @Test func aValueBetweenStepsNamesItsKey() throws {
    var (_, object, _) = try json()
    object["temperature"] = 21.55
    do {
      _ = try ProfileDocument.message(from: object)
      Issue.record("21.55 °C was taken")
    } catch {
      #expect(error.key == "temperature")
      #expect(error.description.hasPrefix("temperature: 21.55 is not allowed"))
      #expect(error.description.contains("a multiple of 0.1 from -100 to 100 degC, or null"))
    }
  }

  @Test func unknownNamesShapesAndMissingKeysAreRefused() throws {
    let (_, base, _) = try json()
    func refused(_ key: String, _ change: (inout [String: Any]) -> Void) {
      var object = base
      change(&object)
      #expect(throws: DocumentError.self, "\(key)") { try ProfileDocument.message(from: object) }
      do { _ = try ProfileDocument.message(from: object) } catch {
        #expect(error.key.hasPrefix(key), "\(error)")
      }
    }
    refused("status") { $0["status"] = "sunny" }
    refused("hourly_temperature") {
      $0["hourly_temperature"] = Array(repeating: NSNull(), count: 11)
    }
    refused("hourly_temperature[3]") {
      var list = Array(repeating: NSNull(), count: 12) as [Any]
      list[3] = 150.0
      $0["hourly_temperature"] = list
    }
    refused("country") { $0["country"] = "de" }
    refused("humidity") { $0.removeValue(forKey: "humidity") }
    refused("name") { $0["name"] = String(repeating: "x", count: 25) }
    refused("profile") { $0["profile"] = "medium" }
    refused("slot_index") { $0["slot_index"] = 1 }
    // A status from a newer version is carried as its number.
    var newer = base
    newer["status"] = 9
    #expect(try ProfileDocument.message(from: newer)[3] == 9)
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
