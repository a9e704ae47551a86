import Foundation
import SkyframeCodec
import SkyframeWeather

/// Any message — `standard`, `large`, `tiny` or `unchanged` — as JSON, and the profiles as text,
/// read off its layout table (`schemas/frame-profiles.md` §8): one key per field in table order,
/// values in the table's unit, `null` for a sentinel. Adding a field to a table adds it here.
public enum ProfileDocument {
  /// Fields not shown: they say what the bytes are, not what they carry.
  static func isShown(_ field: LayoutField) -> Bool {
    let name = "\(field.name)"
    // The standard table calls the kind byte `version`.
    return field.storage != .reserved && name != "kind" && name != "version" && name != "crc32"
  }

  /// One JSON object on one line, keys in table order.
  public static func json(_ view: ProfileView) -> String {
    var text = "{\"profile\":"
    if view.kind == .unchanged {
      text += "\"unchanged\",\"of\":"
      let profile = FrameProfile(rawValue: UInt8(view.wire(UnchangedLayout.profile)))
      text += profile.map { quoted("\($0.name)") } ?? "\(view.wire(UnchangedLayout.profile))"
    } else {
      switch view.kind {
      case .large: text += "\"large\""
      case .tiny: text += "\"tiny\""
      default: text += "\"standard\""
      }
    }
    for field in view.kind.fields where isShown(field) {
      if view.kind == .unchanged, "\(field.name)" == "profile" { continue }
      text += ",\(quoted("\(field.name)")):\(value(field, view))"
    }
    return text + "}"
  }

  /// The field's JSON value: a list for an array field.
  public static func value(_ field: LayoutField, _ view: ProfileView) -> String {
    if field.storage == .text, field.count > 1 {
      return "["
        + (0..<field.count).map { quoted(text(view.text(field, $0))) }.joined(separator: ",") + "]"
    }
    if field.count > 1, field.storage != .country {
      return "[" + (0..<field.count).map { element(field, $0, view) }.joined(separator: ",") + "]"
    }
    return element(field, 0, view)
  }

  static func element(_ field: LayoutField, _ index: Int, _ view: ProfileView) -> String {
    switch field.storage {
    case .text:
      return quoted(text(view.text(field, index)))
    case .country:
      let first = UInt8(view.wire(field, 0))
      let second = UInt8(truncatingIfNeeded: view.wire(LayoutField("", field.offset + 1, .u8), 0))
      return CountryCode(first, second).map { quoted($0.string) } ?? "null"
    default:
      if let meaning = FieldMeaning(field) { return meaning.json(view.wire(field, index)) }
      guard let wire = view.value(field, index) else { return "null" }
      switch "\(field.name)" {
      // A number this version does not name is shown as the number.
      case "status":
        return FrameStatus(rawValue: UInt8(wire)).name.map { quoted("\($0)") } ?? "\(wire)"
      case "service":
        return WeatherService(rawValue: UInt8(wire)).name.map { quoted("\($0)") } ?? "\(wire)"
      default: return number(wire, scale: field.scale)
      }
    }
  }

  /// `wire × scale` with as many decimals as the scale has: 215 × 0.1 → 21.5, 45 × 2 → 90.
  static func number(_ wire: Int64, scale: Double) -> String {
    if scale == scale.rounded() { return "\(wire * Int64(scale))" }
    var decimals = 0
    var step = scale
    while step != step.rounded(), decimals < 9 {
      step *= 10
      decimals += 1
    }
    let power = pow(10.0, Double(decimals))
    let value = (Double(wire) * scale * power).rounded() / power
    return value == value.rounded() && abs(value) < 1e15 ? "\(Int64(value))" : "\(value)"
  }

  static func text(_ bytes: UnsafeRawBufferPointer) -> String {
    String(decoding: bytes, as: UTF8.self)
  }

  /// `text` as a JSON string, escaped by Foundation's encoder.
  public static func quoted(_ text: String) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .withoutEscapingSlashes
    // A String always encodes.
    return String(decoding: (try? encoder.encode(text)) ?? Data(#""""#.utf8), as: UTF8.self)
  }

  /// A block of text, one line per field: `name  value unit`.
  public static func text(_ view: ProfileView) -> String {
    var lines: [String] = []
    switch view.kind {
    case .large: lines.append("large frame (960 bytes)")
    case .tiny: lines.append("tiny frame (48 bytes)")
    case .unchanged: lines.append("unchanged (16 bytes): the frame shown is still right")
    case .standard: break
    }
    if view.kind != .unchanged {
      lines.append("content check  \(String(format: "%08x", view.contentCheck))")
    }
    for field in view.kind.fields where isShown(field) {
      let unit = "\(field.unit)"
      let spoken = (0..<field.count).map { Self.words(field, $0, view) }
      let shown: String
      if field.storage != .text, field.storage != .country, spoken.contains(where: { $0 != nil }) {
        shown = spoken.map { $0 ?? "null" }.joined(separator: ", ")
      } else {
        shown = value(field, view)
        if !unit.isEmpty, shown != "null" {
          lines.append(
            "\(field.name)".padding(toLength: 27, withPad: " ", startingAt: 0) + shown + " \(unit)")
          continue
        }
      }
      lines.append("\(field.name)".padding(toLength: 27, withPad: " ", startingAt: 0) + shown)
    }
    return lines.joined(separator: "\n")
  }

  /// A field a person reads in words rather than as its wire number, as the standard frame's
  /// text shows it: the air quality on its scale, the alerts, the moon, the next hour's rain,
  /// the sun and the alerts' severities by name, times as UTC dates. nil for the others (and
  /// for a sentinel).
  static func words(_ field: LayoutField, _ index: Int, _ view: ProfileView) -> String? {
    guard let wire = view.value(field, index) else { return nil }
    switch "\(field.name)" {
    case "air_quality":
      return AirQuality(wire: UInt16(truncatingIfNeeded: wire)).map {
        FrameReport.airQualityText(index: Int($0.index), usScale: $0.scale == .usAQI)
      }
    case "alerts":
      return AlertSummary(wire: UInt8(truncatingIfNeeded: wire)).map {
        FrameReport.alertsText(count: Int($0.count), worst: "\($0.highest.name)")
      }
    case "moon":
      return MoonPhase(wire: UInt8(truncatingIfNeeded: wire)).map { moon in
        FrameReport.moonText(
          name: "\(moon.icon.name)", illuminationPercent: moon.illuminationPercent)
      }
    case "sun", "daily_sun":
      return UInt8(exactly: wire).flatMap(SunState.init(rawValue:)).map { "\($0.name)" }
    case "alert_severity":
      return UInt8(exactly: wire).flatMap(AlertSummary.Severity.init(rawValue:)).map {
        "\($0.name)"
      }
    case "precip_next_hour":
      return NextHourPrecipitation(wire: UInt8(truncatingIfNeeded: wire)).map {
        FrameReport.nextHourText(
          precipitating: $0.precipitatingNow, change: $0.minutesUntilChange.map(Int.init))
      }
    default:
      switch "\(field.unit)" {
      case "\(MessageHeader.unixTime)":
        return wire > 0
          ? FrameReport.clock(UInt32(truncatingIfNeeded: wire), 0, date: true) + " UTC" : nil
      case "days since 1970-01-01": return CivilDate(daysSinceEpoch: Int(wire)).iso
      default: return nil
      }
    }
  }
}

extension ProfileDocument {
  /// Any Skyframe message as the JSON `skyframe decode --json` prints and the debug mirror
  /// publishes.
  public static func json(of bytes: UnsafeRawBufferPointer) throws -> [UInt8] {
    Array(json(try ProfileView(checking: bytes)).utf8)
  }
}
