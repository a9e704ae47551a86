import Foundation
import SkyframeCodec
import Testing

@testable import SkyframeJSON

/// The fields the JSON mirror shows by what they mean (`frame-profiles.md` §8, issue 43): the
/// same keys and objects in every profile that has the field, never the wire integer, and
/// `skyframe encode` reading them back.
@Suite struct MeaningTests {
  /// A message of `kind` with `values` (wire integers) written into its table's fields.
  static func message(_ kind: MessageKind, _ values: [(LayoutField, Int64)]) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: kind.size)
    bytes.withUnsafeMutableBytes { buffer in
      var out = ProfileWriter(buffer, kind: kind)
      out.set(MessageHeader.slotCount, 1)
      for (field, value) in values { out.set(field, value) }
      ProfileWriter.seal(buffer, kind: kind)
    }
    return bytes
  }

  static func json(_ bytes: [UInt8]) throws -> (text: String, object: [String: Any]) {
    let json = try bytes.withUnsafeBytes { try ProfileDocument.json(of: $0) }
    let object = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any])
    return (String(decoding: json, as: UTF8.self), object)
  }

  /// A standard frame with two alerts (worst severe), US AQI 42, a full moon, rain stopping in
  /// 30 min and polar night: the JSON says so in words, and reads back to the same bytes.
  @Test func theStandardFrameShowsWhatTheWireMeans() throws {
    var frame = WeatherFrame()
    frame.alerts = AlertSummary(count: 2, highest: .severe)
    frame.airQuality = AirQuality(index: 42, scale: .usAQI)
    frame.moon = MoonPhase(wire: 128)
    frame.precipitationNextHour = NextHourPrecipitation(
      precipitatingNow: true, minutesUntilChange: 30)
    frame.sun = .polarNight
    let bytes = try frame.encoded()
    #expect(bytes[84] == 0x15 && bytes[38] == 0x2B && bytes[39] == 0x80 && bytes[86] == 0x9F)
    let (text, object) = try Self.json(bytes)
    for fragment in [
      #""alerts":{"count":2,"worst":"severe"}"#,
      #""air_quality":{"index":42,"scale":"us_aqi"}"#,
      #""moon":{"phase":0.498,"name":"full_moon","lit":1.0}"#,
      #""precip_next_hour":{"precipitating":true,"change_in_min":30}"#,
      #""sun":"polar_night""#,
    ] {
      #expect(text.contains(fragment), "\(fragment) in \(text)")
    }
    #expect(try ProfileDocument.message(from: object) == bytes)
  }

  /// The same quantities in `large` (and its per-day sun and per-alert severities) and `tiny`,
  /// with the same keys and objects as `standard`.
  @Test func largeAndTinyShowTheSameShapes() throws {
    let large = Self.message(
      .large,
      [
        (LargeLayout.alerts, 0x15), (LargeLayout.airQuality, 0x0001), (LargeLayout.moon, 65),
        (LargeLayout.precipitationNextHour, 0x10), (LargeLayout.sun, 1),
        (LargeLayout.dailySun, 2), (LargeLayout.alertSeverity, 5),
      ])
    let (largeText, largeObject) = try Self.json(large)
    for fragment in [
      #""alerts":{"count":2,"worst":"severe"}"#,
      #""air_quality":{"index":0,"scale":"european_aqi"}"#,
      #""moon":{"phase":0.251,"name":"first_quarter","lit":0.5}"#,
      #""precip_next_hour":{"precipitating":false,"change_in_min":15}"#,
      #""sun":"polar_day""#,
      #""daily_sun":["polar_night",null,null,null,null,null,null,null]"#,
      #""alert_severity":["severe",null,null]"#,
    ] {
      #expect(largeText.contains(fragment), "\(fragment) in \(largeText)")
    }
    #expect(try ProfileDocument.message(from: largeObject) == large)

    let tiny = Self.message(
      .tiny,
      [
        (TinyLayout.alerts, 0x01), (TinyLayout.airQuality, 0x83E8),
        (TinyLayout.precipitationNextHour, 0x7F), (TinyLayout.utcOffset, 4),
      ])
    let (tinyText, tinyObject) = try Self.json(tiny)
    for fragment in [
      #""alerts":{"count":0,"worst":"none"}"#,
      #""air_quality":{"index":999,"scale":"us_aqi"}"#,
      #""precip_next_hour":{"precipitating":false,"change_in_min":null}"#,
      #""utc_offset_min":60"#,
    ] {
      #expect(tinyText.contains(fragment), "\(fragment) in \(tinyText)")
    }
    #expect(!tinyText.contains("15min") && tinyObject["moon"] == nil && tinyObject["sun"] == nil)
    #expect(try ProfileDocument.message(from: tinyObject) == tiny)
  }

  /// The offset in minutes has one key in every profile: UTC+1 is 60 in `tiny` too.
  @Test func tinyCallsTheOffsetInMinutesUtcOffsetMin() throws {
    let tiny = Self.message(.tiny, [(TinyLayout.utcOffset, 4)])
    let (_, object) = try Self.json(tiny)
    #expect(object["utc_offset_min"] as? Int == 60)
    #expect(object["utc_offset_15min"] == nil)
    var east = object
    east["utc_offset_min"] = 345
    #expect(try ProfileDocument.message(from: east)[25] == 23)
  }

  /// Every moon value: the phase to 3 decimals tells the 255 apart, the lit part is the C
  /// header's integer method and the formula's rounding alike, and each reads back.
  @Test func everyMoonValueReadsBack() throws {
    var phases = Set<Int>()
    for wire in 1...255 {
      let moon = try #require(MoonPhase(wire: UInt8(wire)))
      phases.insert(moon.phaseThousandths)
      #expect(MoonPhase(phaseThousandths: moon.phaseThousandths) == moon)
      let k = Double(wire - 1) / 255
      #expect(moon.illuminationPercent == Int((100 * (1 - cos(2 * Double.pi * k)) / 2).rounded()))
      #expect(moon.phaseThousandths == Int((1_000 * k).rounded()))
      let bytes = Self.message(.large, [(LargeLayout.moon, Int64(wire))])
      let (_, object) = try Self.json(bytes)
      #expect(try ProfileDocument.message(from: object) == bytes, "moon \(wire)")
    }
    #expect(phases.count == 255)
    #expect(MoonPhase(phaseThousandths: 2) == nil && MoonPhase(phaseThousandths: 997) == nil)
  }

  /// A wire value the spec reads as absent or unknown is `null`, and written back as the
  /// sentinel.
  @Test func valuesReadAsAbsentAreNull() throws {
    let bytes = Self.message(
      .large,
      [
        (LargeLayout.alerts, 0x17), (LargeLayout.airQuality, 0x8000),
        (LargeLayout.precipitationNextHour, 0x40), (LargeLayout.alertSeverity, 9),
      ])
    let (text, object) = try Self.json(bytes)
    for fragment in [
      #""alerts":null"#, #""air_quality":null"#, #""precip_next_hour":null"#,
      #""alert_severity":[null,null,null]"#,
    ] {
      #expect(text.contains(fragment), "\(fragment) in \(text)")
    }
    let written = try ProfileDocument.message(from: object)
    #expect(written[42] == 0 && written[38] == 0 && written[39] == 0 && written[44] == 0)
  }

  /// `skyframe encode` names the member of an object that no wire value shows.
  @Test func anImpossibleMeaningIsNamedByItsPath() throws {
    var frame = WeatherFrame()
    frame.alerts = AlertSummary(count: 2, highest: .severe)
    frame.moon = MoonPhase(wire: 93)
    frame.airQuality = AirQuality(index: 27, scale: .europeanAQI)
    frame.precipitationNextHour = NextHourPrecipitation(
      precipitatingNow: false, minutesUntilChange: 30)
    frame.sun = .normal
    let (_, base) = try Self.json(try frame.encoded())
    func refused(_ key: String, _ change: (inout [String: Any]) -> Void) {
      var object = base
      change(&object)
      do {
        _ = try ProfileDocument.message(from: object)
        Issue.record("\(key): taken")
      } catch {
        #expect(error.key == key, "\(error)")
      }
    }
    func member(_ field: String, _ name: String, _ value: Any?) -> (inout [String: Any]) -> Void {
      { object in
        var inner = object[field] as? [String: Any] ?? [:]
        inner[name] = value
        object[field] = inner
      }
    }
    // The wire integer of before is not the mirror's shape any more.
    refused("alerts") { $0["alerts"] = 21 }
    refused("alerts.worst", member("alerts", "worst", "grave"))
    refused("alerts.worst", member("alerts", "worst", "none"))
    refused("alerts.count", member("alerts", "count", 32))
    refused("alerts.count", member("alerts", "count", nil))
    refused("moon.name", member("moon", "name", "full_moon"))
    refused("moon.lit", member("moon", "lit", 0.5))
    refused("moon.phase", member("moon", "phase", 0.5))
    refused("moon.phase", member("moon", "phase", 1.0))
    refused("air_quality.index", member("air_quality", "index", 1_000))
    refused("air_quality.scale", member("air_quality", "scale", "aqi"))
    refused("precip_next_hour.change_in_min", member("precip_next_hour", "change_in_min", 61))
    refused("precip_next_hour.change_in_min", member("precip_next_hour", "change_in_min", nil))
    refused("precip_next_hour.precipitating", member("precip_next_hour", "precipitating", "yes"))
    refused("sun") { $0["sun"] = 0 }
    refused("sun") { $0["sun"] = "midnight_sun" }
    do {
      var object = base
      object["alerts"] = ["count": 1, "worst": "minor"]
      #expect(try ProfileDocument.message(from: object)[84] == 1 << 3 | 3)
    }

    let large = Self.message(.large, [(LargeLayout.alertSeverity, 5)])
    var object = try Self.json(large).object
    object["alert_severity"] = ["none", NSNull(), NSNull()]
    #expect(throws: DocumentError.self) { try ProfileDocument.message(from: object) }
    do { _ = try ProfileDocument.message(from: object) } catch {
      #expect(error.key == "alert_severity[0]", "\(error)")
    }
    object = try Self.json(large).object
    object["daily_sun"] = [
      "normal", "normal", "polar", NSNull(), NSNull(), NSNull(), NSNull(), NSNull(),
    ]
    do {
      _ = try ProfileDocument.message(from: object)
      Issue.record("daily_sun[2]: taken")
    } catch {
      #expect(error.key == "daily_sun[2]", "\(error)")
      #expect(error.description.contains("normal, polar_day, polar_night or null"))
    }
  }

  /// The text of a profile names the sun and the alerts' severities, as the JSON does.
  @Test func theTextNamesTheSunToo() throws {
    let large = Self.message(.large, [(LargeLayout.sun, 2), (LargeLayout.alertSeverity, 6)])
    let text = large.withUnsafeBytes {
      ProfileDocument.text(ProfileView(unchecked: $0.baseAddress!, kind: .large))
    }
    let lines = text.split(separator: "\n")
    #expect(lines.contains { $0.hasPrefix("sun ") && $0.hasSuffix("polar_night") }, "\(text)")
    #expect(
      lines.contains { $0.hasPrefix("alert_severity ") && $0.hasSuffix("extreme, null, null") },
      "\(text)")
  }
}
