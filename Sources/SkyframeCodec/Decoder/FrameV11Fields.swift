// Frame v1.1: the fields in what v1.0 reserved (schemas/frame-v1.md §5.5–5.8, §6.9). On the wire
// each is 0 when absent, so a v1.0 frame reads as "absent" and a v1.0 decoder, which ignores
// those bytes, still reads a v1.1 frame.

/// An air quality index and the scale it is on (byte 38).
public struct AirQuality: Sendable, Equatable {
  public enum Scale: UInt8, Sendable, CaseIterable {
    /// European Air Quality Index (EEA/CAMS).
    case europeanAQI = 0
    /// US EPA AQI.
    case usAQI = 1

    public var name: StaticString {
      switch self {
      case .europeanAQI: "european_aqi"
      case .usAQI: "us_aqi"
      }
    }
  }

  public static let maximumIndex: UInt16 = 999

  /// 0 is the cleanest air (and not "absent").
  public var index: UInt16
  public var scale: Scale

  public init(index: UInt16, scale: Scale) {
    self.index = index
    self.scale = scale
  }

  /// Bit 15 the scale, bits 0–14 the index + 1.
  var wire: UInt16 { UInt16(scale.rawValue) << 15 | (index &+ 1) }

  public init?(wire: UInt16) {
    let stored = wire & 0x7FFF
    guard stored != 0 else { return nil }
    index = stored &- 1
    scale = wire & 0x8000 == 0 ? .europeanAQI : .usAQI
  }
}

/// The weather alerts in force at a place (byte 84): how many, and the worst.
public struct AlertSummary: Sendable, Equatable {
  /// CAP severities, in order; `none` when no alert is in force.
  public enum Severity: UInt8, Sendable, CaseIterable, Comparable {
    case none = 1
    case unknown, minor, moderate, severe, extreme

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var name: StaticString {
      switch self {
      case .none: "none"
      case .unknown: "unknown"
      case .minor: "minor"
      case .moderate: "moderate"
      case .severe: "severe"
      case .extreme: "extreme"
      }
    }
  }

  /// Alerts in force; the wire keeps up to 31 (31 means 31 or more).
  public var count: UInt8
  public var highest: Severity

  public init(count: UInt8, highest: Severity) {
    self.count = count
    self.highest = highest
  }

  /// No alert in force.
  public static let none = AlertSummary(count: 0, highest: .none)

  var wire: UInt8 { min(count, 31) << 3 | highest.rawValue }

  public init?(wire: UInt8) {
    guard let severity = Severity(rawValue: wire & 0x07) else { return nil }
    count = wire >> 3
    highest = severity
  }
}

/// The moon's phase (byte 85): the fraction of the synodic month since new moon, in 255 steps.
public struct MoonPhase: Sendable, Equatable {
  /// The eight icons a display picks from.
  public enum Icon: UInt8, Sendable, CaseIterable {
    case newMoon, waxingCrescent, firstQuarter, waxingGibbous, fullMoon, waningGibbous
    case lastQuarter, waningCrescent

    public var name: StaticString {
      switch self {
      case .newMoon: "new_moon"
      case .waxingCrescent: "waxing_crescent"
      case .firstQuarter: "first_quarter"
      case .waxingGibbous: "waxing_gibbous"
      case .fullMoon: "full_moon"
      case .waningGibbous: "waning_gibbous"
      case .lastQuarter: "last_quarter"
      case .waningCrescent: "waning_crescent"
      }
    }
  }

  /// 1 (new moon) … 255; the phase is (wire − 1) / 255.
  public let wire: UInt8

  public init?(wire: UInt8) {
    guard wire != 0 else { return nil }
    self.wire = wire
  }

  /// From a fraction of the synodic month since new moon; 1 wraps to 0.
  public init(fraction: Double) {
    let clamped = fraction.isFinite ? fraction - fraction.rounded(.down) : 0
    let step = Int((clamped * 255).rounded())
    wire = step >= 255 ? 1 : UInt8(step + 1)
  }

  /// 0 new moon, 0.5 full moon.
  public var fraction: Double { Double(wire - 1) / 255 }

  /// round(phase × 8) mod 8, in integers: (16 (wire − 1) + 255) / 510. No phase lies on a tie.
  public var icon: Icon {
    Icon(rawValue: UInt8((Int(wire - 1) * 16 + 255) / 510 % 8))!
  }

  /// The phase in thousandths, 0 … 996: round(1000 (wire − 1) / 255), in integers. No phase
  /// lies on a tie, and the 255 values differ (the JSON mirror's `phase`, frame-profiles.md §8).
  public var phaseThousandths: Int { (Int(wire - 1) * 2_000 + 255) / 510 }

  /// The phase whose `phaseThousandths` is `thousandths`; nil when no wire value has it.
  public init?(phaseThousandths thousandths: Int) {
    // 1000 / 255 apart, so the nearest step is the only candidate.
    let step = (thousandths * 255 + 500) / 1_000
    guard thousandths >= 0, step <= 254 else { return nil }
    wire = UInt8(step + 1)
    guard phaseThousandths == thousandths else { return nil }
  }

  /// The lit part of the disc in whole percent: round(100 (1 − cos 2π·phase) / 2), computed as
  /// the C header's `skyframe_moon_illumination_pct()` does, in 32-bit integers: exact for every
  /// wire value (no value lies within 0.005 of a rounding boundary), the same on every device.
  public var illuminationPercent: Int {
    let k = UInt32(wire - 1)
    // (1 − cos 2πk/255) / 2 = sin²(πm/255) with m folded onto the waxing half; up to the first
    // quarter that is sin²(πa/510) with a = 2m, after it 1 − sin²(πa/510) with a = 255 − 2m.
    let m = k <= 127 ? k : 255 - k
    let a = m <= 63 ? 2 * m : 255 - 2 * m
    let one: UInt32 = 65_536
    let half: UInt32 = 32_768
    let t = (a * 103_347 + 128) >> 8  // the angle πa/510 in Q16
    let t2 = (t * t + half) >> 16
    // sin(x)/x = 1 − x²/6 (1 − x²/20 (1 − x²/42)), Q16.
    var p = one - (t2 + 21) / 42
    p = one - (((t2 * p + half) >> 16) + 10) / 20
    p = one - (((t2 * p + half) >> 16) + 3) / 6
    var s = (t * p + half) >> 16  // sin, Q16
    s = (s * s + 128) >> 8  // sin², Q24
    let x = (s * 100 + 0x80_0000) >> 24
    return Int(m <= 63 ? x : 100 - x)
  }
}

/// Precipitation in the next hour (byte 86): whether it rains (or snows) now, and in how many
/// minutes that changes.
public struct NextHourPrecipitation: Sendable, Equatable {
  public var precipitatingNow: Bool
  /// Minutes until it starts (dry now) or stops (precipitation now), 0–60; nil: no change within
  /// the next 60 minutes.
  public var minutesUntilChange: UInt8?

  public init(precipitatingNow: Bool, minutesUntilChange: UInt8?) {
    self.precipitatingNow = precipitatingNow
    self.minutesUntilChange = minutesUntilChange
  }

  var wire: UInt8 {
    (precipitatingNow ? 0x80 : 0) | (minutesUntilChange.map { min($0, 60) + 1 } ?? 127)
  }

  public init?(wire: UInt8) {
    let minutes = wire & 0x7F
    switch minutes {
    case 1...61: minutesUntilChange = minutes - 1
    case 127: minutesUntilChange = nil
    default: return nil
    }
    precipitatingNow = wire & 0x80 != 0
  }
}
