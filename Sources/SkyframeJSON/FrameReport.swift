import Foundation
import SkyframeCodec
import SkyframeWeather

/// A frame as a block of text for a person: units, the place's local times, the data's age.
public enum FrameReport {
  /// `text` with every control character (C0, DEL, C1) written as `\u{XX}`.
  public static func printable(_ text: String) -> String {
    var result = ""
    for scalar in text.unicodeScalars {
      if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        result += "\\u{" + (hex.count < 2 ? "0" + hex : hex) + "}"
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// - Parameter now: Unix seconds, for the data's age.
  public static func text(_ frame: WeatherFrame, now: Int) -> String {
    let doc = FrameDocument(frame)
    var lines = headLines(doc)
    guard frame.status.hasWeather else { return lines.joined(separator: "\n") }
    // What a display sends as `~check=` to be told `unchanged` while the weather is the same
    // (frame-profiles.md §5), as for a large or tiny frame.
    if let check = contentCheck(of: frame) {
      lines.append("check  \(String(format: "%08x", check)) (content check, for ~check=)")
    }
    let offset = frame.utcOffsetMinutes.map(Int.init)
    lines += timeLines(frame, now: now, offset: offset)
    lines += currentLines(doc)
    lines += sunLines(frame, offset: offset)
    lines += v11Lines(doc)
    lines += hourLines(frame, doc, offset: offset)
    lines += dayLines(frame, doc)
    return lines.joined(separator: "\n")
  }

  /// The content check of the frame's bytes; nil when it does not encode (not from the wire).
  static func contentCheck(of frame: WeatherFrame) -> UInt32? {
    var bytes = [UInt8](repeating: 0, count: WeatherFrame.size)
    let encoded = bytes.withUnsafeMutableBytes { buffer in
      (try? frame.encode(into: buffer)) != nil
    }
    guard encoded else { return nil }
    return bytes.withUnsafeBytes { ContentCheck.of($0, kind: .standard) }
  }

  /// The place and the frame's status, request, slot and service.
  static func headLines(_ doc: FrameDocument) -> [String] {
    // A frame's name is anybody's text: control characters (escape sequences included) are
    // shown as `\u{1B}`, never sent to the operator's terminal.
    var title = doc.name.isEmpty ? "(no name)" : printable(doc.name)
    if let country = doc.country { title += ", \(country)" }
    if let latitude = doc.latitude, let longitude = doc.longitude {
      title += "  \(fixed(latitude, 5)), \(fixed(longitude, 5))"
    }
    var header = "status \(label(doc.status))  request #\(doc.requestID)"
    header += "  slot \(doc.slotIndex + 1)/\(doc.slotCount)  service \(label(doc.service))"
    return [title, header]
  }

  /// When the data was observed and fetched, its age, and the place's UTC offset.
  static func timeLines(_ frame: WeatherFrame, now: Int, offset: Int?) -> [String] {
    var times: [String] = []
    if let observed = frame.observedAt {
      times.append("observed \(clock(observed, offset, date: true))")
    }
    if let fetched = frame.fetchedAt {
      times.append("fetched \(clock(fetched, offset, date: true)), \(age(now - Int(fetched)))")
    }
    if let offset { times.append("UTC\(utcOffset(offset))") }
    return times.isEmpty ? [] : [times.joined(separator: "  ")]
  }

  /// The current conditions, in up to three lines.
  static func currentLines(_ doc: FrameDocument) -> [String] {
    var lines: [String] = []
    let current = doc.current
    var now1: [String] = []
    if let temperature = current.temperature { now1.append("\(fixed(temperature, 1)) °C") }
    if let feels = current.feelsLike { now1.append("feels \(fixed(feels, 1)) °C") }
    if let code = current.weatherCode { now1.append("\(WMOCode.meaning(code)) (\(code))") }
    if let day = doc.isDay { now1.append(day ? "day" : "night") }
    lines.append("now    " + (now1.isEmpty ? "-" : now1.joined(separator: "  ")))
    var now2: [String] = []
    if let humidity = current.humidity { now2.append("humidity \(humidity) %") }
    if let pressure = current.pressure { now2.append("pressure \(fixed(pressure, 1)) hPa") }
    if let speed = current.windSpeed {
      var wind = "wind \(fixed(speed, 1)) m/s"
      if let direction = current.windDirection {
        wind += " from \(direction)° \(compass(direction))"
      }
      if let gust = current.windGust { wind += ", gusts \(fixed(gust, 1)) m/s" }
      now2.append(wind)
    }
    if !now2.isEmpty { lines.append("       " + now2.joined(separator: "  ")) }
    var now3: [String] = []
    if let clouds = current.cloudCover { now3.append("clouds \(clouds) %") }
    if let rain = current.precipitation { now3.append("precipitation \(fixed(rain, 1)) mm") }
    if let uv = current.uvIndex { now3.append("UV \(fixed(uv, 1))") }
    if let visibility = current.visibility {
      now3.append("visibility \(fixed(Double(visibility) / 1000, 1)) km")
    }
    if !now3.isEmpty { lines.append("       " + now3.joined(separator: "  ")) }
    return lines
  }

  /// Sunrise and sunset, or the polar day or night.
  static func sunLines(_ frame: WeatherFrame, offset: Int?) -> [String] {
    switch frame.sun {
    case .polarDay: return ["sun    polar day: the sun does not set"]
    case .polarNight: return ["sun    polar night: the sun does not rise"]
    default:
      guard frame.sunrise != nil || frame.sunset != nil else { return [] }
      let rise = frame.sunrise.map { clock($0, offset, date: false) } ?? "-"
      let set = frame.sunset.map { clock($0, offset, date: false) } ?? "-"
      return ["sun    rise \(rise)  set \(set)"]
    }
  }

  /// The hourly slots, six to a line.
  static func hourLines(_ frame: WeatherFrame, _ doc: FrameDocument, offset: Int?) -> [String] {
    guard let start = frame.hourlyStart, frame.hourlyStepHours > 0 else { return [] }
    var cells: [String] = []
    for (index, hour) in doc.hourly.enumerated() {
      let time = Int(start) + index * Int(frame.hourlyStepHours) * 3_600
      var cell = clock(UInt32(clamping: time), offset, date: false) + " "
      cell += hour.temperature.map { fixed($0, 1) + "°" } ?? "-"
      if let chance = hour.precipitationProbability { cell += " \(chance)%" }
      cells.append(cell)
    }
    return [
      "hours  " + cells.prefix(6).joined(separator: " | "),
      "       " + cells.dropFirst(6).joined(separator: " | "),
    ]
  }

  /// One line per day.
  static func dayLines(_ frame: WeatherFrame, _ doc: FrameDocument) -> [String] {
    guard let start = frame.dailyStart else { return [] }
    let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    return doc.daily.enumerated().map { index, day in
      let date = CivilDate(daysSinceEpoch: Int(start) + index)
      var line = index == 0 ? "days   " : "       "
      line += "\(names[date.weekday]) \(date.iso)  "
      line +=
        (day.minimum.map { fixed($0, 1) } ?? "-") + " / "
        + (day.maximum.map { fixed($0, 1) } ?? "-") + " °C"
      if let code = day.weatherCode { line += "  \(WMOCode.meaning(code))" }
      if let chance = day.precipitationProbability { line += "  \(chance)%" }
      return line
    }
  }

  /// Air quality, alerts, moon, the next hour's precipitation and the next-update hint (v1.1),
  /// each only when the frame has it.
  static func v11Lines(_ doc: FrameDocument) -> [String] {
    var lines: [String] = []
    if let air = doc.airQuality {
      lines.append("air    " + airQualityText(index: air.index, usScale: air.scale == "us_aqi"))
    }
    if let alerts = doc.alerts {
      lines.append("alerts " + alertsText(count: alerts.count, worst: alerts.severity))
    }
    if let moon = doc.moon {
      lines.append(
        "moon   " + moonText(name: moon.name ?? "", illuminationPercent: moon.illuminationPercent))
    }
    if let next = doc.precipitationNextHour {
      lines.append(
        "rain   "
          + nextHourText(precipitating: next.now == "precipitation", change: next.changeInMinutes))
    }
    if let seconds = doc.nextUpdateSeconds {
      lines.append(
        "update newer data expected in "
          + (seconds >= 120 ? "\(seconds / 60) min (\(seconds) s)" : "\(seconds) s"))
    }
    return lines
  }

  // The v1.1 fields in words, for the standard frame's text and the profiles' alike.

  static func airQualityText(index: Int, usScale: Bool) -> String {
    "\(usScale ? "US AQI" : "European AQI") \(index)"
  }

  static func alertsText(count: Int, worst: String) -> String {
    count == 0
      ? "none in force" : "\(count == 31 ? "31 or more" : "\(count)") in force, worst \(worst)"
  }

  static func moonText(name: String, illuminationPercent: Int?) -> String {
    "\(name.replacingOccurrences(of: "_", with: " ")), \(illuminationPercent ?? 0) % lit"
  }

  static func nextHourText(precipitating: Bool, change: Int?) -> String {
    switch (precipitating, change) {
    case (false, nil): "none in the next hour"
    case (false, let minutes?): minutes == 0 ? "starting now" : "starts in \(minutes) min"
    case (true, nil): "all of the next hour"
    case (true, let minutes?): minutes == 0 ? "stopping now" : "stops in \(minutes) min"
    }
  }

  static func label(_ label: FrameDocument.Label) -> String {
    switch label {
    case .name(let name): name
    case .number(let number): "unknown (\(number))"
    }
  }

  /// The place's local time of a Unix time: "14:05", or "2024-01-15 14:05".
  static func clock(_ unix: UInt32, _ offsetMinutes: Int?, date: Bool) -> String {
    let local = Int(unix) + (offsetMinutes ?? 0) * 60
    let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
    let seconds = local - days * 86_400
    let time = two(seconds / 3_600) + ":" + two(seconds / 60 % 60)
    return date ? CivilDate(daysSinceEpoch: days).iso + " " + time : time
  }

  static func utcOffset(_ minutes: Int) -> String {
    (minutes < 0 ? "-" : "+") + two(abs(minutes) / 60) + ":" + two(abs(minutes) % 60)
  }

  static func age(_ seconds: Int) -> String {
    switch seconds {
    case ..<0: "from the future (clock skew)"
    case ..<60: "\(seconds) s old"
    case ..<7_200: "\(seconds / 60) min old"
    case ..<172_800: "\(seconds / 3_600) h old"
    default: "\(seconds / 86_400) days old"
    }
  }

  static func compass(_ degrees: Int) -> String {
    let points = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"]
    return points[((degrees + 22) / 45) % 8]
  }

  static func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

  /// `value` with exactly `decimals` digits after the point, without Foundation's formatters.
  static func fixed(_ value: Double, _ decimals: Int) -> String {
    var factor = 1
    for _ in 0..<decimals { factor *= 10 }
    let scaled = Int((abs(value) * Double(factor)).rounded())
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard decimals > 0 else { return sign + "\(scaled)" }
    var fraction = "\(scaled % factor)"
    while fraction.count < decimals { fraction = "0" + fraction }
    return sign + "\(scaled / factor).\(fraction)"
  }
}
