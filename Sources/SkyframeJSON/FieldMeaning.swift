import Foundation
import SkyframeCodec

/// The fields the JSON mirror shows by what they mean rather than as wire × scale
/// (`schemas/frame-profiles.md` §8): the one place that turns such a wire value into its JSON
/// and a JSON value back into the wire value, for every profile that has the field. The bit
/// layouts are the codec's (`AirQuality`, `AlertSummary`, `MoonPhase`, `NextHourPrecipitation`,
/// `SunState`); this only names and writes them.
enum FieldMeaning {
  /// `sun`, and each of large's `daily_sun`: a name, frame-v1.md §5.3.
  case sun
  /// `{"index": 27, "scale": "european_aqi"}`, §5.5.
  case airQuality
  /// `{"count": 2, "worst": "severe"}`, §5.6.
  case alerts
  /// Each of large's `alert_severity`: a severity name, §5.6.
  case severity
  /// `{"phase": 0.361, "name": "waxing_gibbous", "lit": 0.82}`, §5.7.
  case moon
  /// `{"precipitating": false, "change_in_min": 30}`, §5.8.
  case nextHour

  /// The meaning of `field`, nil for a field shown as wire × scale.
  init?(_ field: LayoutField) {
    switch "\(field.name)" {
    case "sun", "daily_sun": self = .sun
    case "air_quality": self = .airQuality
    case "alerts": self = .alerts
    case "alert_severity": self = .severity
    case "moon": self = .moon
    case "precip_next_hour": self = .nextHour
    default: return nil
    }
  }

  static let sunNames = SunState.allCases.map { "\($0.name)" }
  static let severityNames = AlertSummary.Severity.allCases.map { "\($0.name)" }
  static let scaleNames = AirQuality.Scale.allCases.map { "\($0.name)" }

  // MARK: Wire → JSON

  /// The JSON of one wire value: an object, a name, or `null` when the spec reads it as absent.
  func json(_ wire: Int64) -> String {
    switch self {
    case .sun:
      return UInt8(exactly: wire).flatMap(SunState.init(rawValue:)).map { quoted($0.name) }
        ?? "null"
    case .severity:
      return UInt8(exactly: wire).flatMap(AlertSummary.Severity.init(rawValue:)).map {
        quoted($0.name)
      } ?? "null"
    case .airQuality:
      guard let air = UInt16(exactly: wire).flatMap(AirQuality.init(wire:)) else { return "null" }
      return #"{"index":\#(air.index),"scale":\#(quoted(air.scale.name))}"#
    case .alerts:
      guard let alerts = UInt8(exactly: wire).flatMap(AlertSummary.init(wire:)) else {
        return "null"
      }
      return #"{"count":\#(alerts.count),"worst":\#(quoted(alerts.highest.name))}"#
    case .moon:
      guard let moon = UInt8(exactly: wire).flatMap(MoonPhase.init(wire:)) else { return "null" }
      return
        #"{"phase":\#(Self.decimal(moon.phaseThousandths, 3)),"name":\#(quoted(moon.icon.name)),"#
        + #""lit":\#(Self.decimal(moon.illuminationPercent, 2))}"#
    case .nextHour:
      guard let next = UInt8(exactly: wire).flatMap(NextHourPrecipitation.init(wire:)) else {
        return "null"
      }
      let change = next.minutesUntilChange.map { "\($0)" } ?? "null"
      return #"{"precipitating":\#(next.precipitatingNow),"change_in_min":\#(change)}"#
    }
  }

  private func quoted(_ name: StaticString) -> String { "\"\(name)\"" }

  /// `units` hundredths or thousandths as a JSON number: 361, 3 → `0.361`, 100, 2 → `1.0`.
  static func decimal(_ units: Int, _ decimals: Int) -> String {
    var power = 1
    for _ in 0..<decimals { power *= 10 }
    var fraction = "\(units % power)"
    while fraction.count < decimals { fraction = "0" + fraction }
    while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(units / power).\(fraction)"
  }

  // MARK: JSON → wire

  /// The wire value of a JSON value the mirror could have written for this field; `sentinel`
  /// for `null`. Anything else throws `DocumentError` naming `key` or one of its members
  /// (`alerts.worst`).
  func wire(_ value: Any, key: String, field: LayoutField) throws(DocumentError) -> Int64 {
    if value is NSNull {
      guard let sentinel = field.sentinel else {
        throw DocumentError(key: key, value: "null", allowed: allowed)
      }
      return sentinel
    }
    switch self {
    case .sun:
      return Int64(try Self.named(value, Self.sunNames, key: key, allowed: allowed))
    case .severity:
      // Within the table's range: an entry holds an alert, 2 `unknown` … 6 `extreme`.
      let wire = Int64(try Self.named(value, Self.severityNames, key: key, allowed: allowed) + 1)
      guard field.minimum.map({ wire >= $0 }) ?? true else {
        throw DocumentError(key: key, value: Self.describe(value), allowed: allowed)
      }
      return wire
    case .airQuality:
      let object = try members(value, key: key)
      let index = try Self.whole(
        object, "index", in: 0...Int(AirQuality.maximumIndex), key: key,
        allowed: "a whole number from 0 to \(AirQuality.maximumIndex)")
      let scale = try Self.named(
        try Self.member(object, "scale", key: key), Self.scaleNames, key: key + ".scale",
        allowed: Self.scaleNames.joined(separator: " or "))
      return Int64(scale) << 15 | Int64(index + 1)
    case .alerts:
      let object = try members(value, key: key)
      let count = try Self.whole(
        object, "count", in: 0...31, key: key,
        allowed: "a whole number from 0 to 31 (31: 31 or more)")
      let names = Self.severityNames
      let worst = try Self.named(
        try Self.member(object, "worst", key: key), names, key: key + ".worst",
        allowed: names.dropLast().joined(separator: ", ") + " or " + names.last!)
      // §5.6: `none` exactly when no alert is in force.
      guard (worst == 0) == (count == 0) else {
        throw DocumentError(
          key: key + ".worst", value: Self.describe(object["worst"]),
          allowed: count == 0
            ? "none with a count of 0"
            : names.dropFirst().joined(separator: ", ") + " with a count of \(count)")
      }
      return Int64(count << 3 | (worst + 1))
    case .moon:
      let object = try members(value, key: key)
      let phase = try Self.member(object, "phase", key: key)
      let steps = (phase as? NSNumber).flatMap { Double(exactly: $0) }.map { $0 * 1_000 }
      guard let steps, steps.isFinite, abs(steps - steps.rounded()) < 1e-6,
        let moon = MoonPhase(phaseThousandths: Int(steps.rounded()))
      else {
        throw DocumentError(
          key: key + ".phase", value: Self.describe(phase),
          allowed: "(w − 1) / 255 to 3 decimals for a w from 1 to 255 (0.0, 0.004, … 0.996)")
      }
      let shown = Self.decimal(moon.phaseThousandths, 3)
      let name = try Self.member(object, "name", key: key)
      guard name as? String == "\(moon.icon.name)" else {
        throw DocumentError(
          key: key + ".name", value: Self.describe(name),
          allowed: "\"\(moon.icon.name)\", the name of phase \(shown)")
      }
      let lit = try Self.member(object, "lit", key: key)
      let percent = (lit as? NSNumber).flatMap { Double(exactly: $0) }.map { $0 * 100 }
      guard let percent, abs(percent - Double(moon.illuminationPercent)) < 1e-6 else {
        throw DocumentError(
          key: key + ".lit", value: Self.describe(lit),
          allowed:
            "\(Self.decimal(moon.illuminationPercent, 2)), the lit fraction of phase \(shown)"
        )
      }
      return Int64(moon.wire)
    case .nextHour:
      let object = try members(value, key: key)
      let now = try Self.member(object, "precipitating", key: key)
      guard let precipitating = now as? Bool else {
        throw DocumentError(
          key: key + ".precipitating", value: Self.describe(now), allowed: "true or false")
      }
      let change = try Self.member(object, "change_in_min", key: key)
      var minutes = 127
      if !(change is NSNull) {
        minutes =
          try Self.whole(
            object, "change_in_min", in: 0...60, key: key,
            allowed: "a whole number from 0 to 60, or null (no change within the hour)") + 1
      }
      return Int64((precipitating ? 0x80 : 0) | minutes)
    }
  }

  /// What the field takes, for a value of the wrong shape.
  var allowed: String {
    switch self {
    case .sun: Self.sunNames.joined(separator: ", ") + " or null"
    case .severity: Self.severityNames.dropFirst().joined(separator: ", ") + " or null"
    case .airQuality: #"{"index": …, "scale": …} or null"#
    case .alerts: #"{"count": …, "worst": …} or null"#
    case .moon: #"{"phase": …, "name": …, "lit": …} or null"#
    case .nextHour: #"{"precipitating": …, "change_in_min": …} or null"#
    }
  }

  private func members(_ value: Any, key: String) throws(DocumentError) -> [String: Any] {
    guard let object = value as? [String: Any] else {
      throw DocumentError(key: key, value: Self.describe(value), allowed: "an object " + allowed)
    }
    return object
  }

  private static func member(_ object: [String: Any], _ name: String, key: String)
    throws(DocumentError) -> Any
  {
    guard let value = object[name] else {
      throw DocumentError(key: key + "." + name, value: "nothing", allowed: "the key")
    }
    return value
  }

  /// A whole number member within `range`.
  private static func whole(
    _ object: [String: Any], _ name: String, in range: ClosedRange<Int>, key: String,
    allowed: String
  ) throws(DocumentError) -> Int {
    let value = try member(object, name, key: key)
    guard let number = value as? NSNumber, let double = Double(exactly: number),
      let whole = Int(exactly: double), range.contains(whole)
    else {
      throw DocumentError(key: key + "." + name, value: describe(value), allowed: allowed)
    }
    return whole
  }

  /// The index of a name in `names`.
  private static func named(_ value: Any, _ names: [String], key: String, allowed: String)
    throws(DocumentError) -> Int
  {
    guard let text = value as? String, let index = names.firstIndex(of: text) else {
      throw DocumentError(key: key, value: describe(value), allowed: allowed)
    }
    return index
  }

  private static func describe(_ value: Any?) -> String { ProfileDocument.describe(value) }
}
