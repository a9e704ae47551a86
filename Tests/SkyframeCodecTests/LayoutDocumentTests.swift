import Foundation
import Testing

@testable import SkyframeCodec

/// `schemas/frame-v1.json` is the layout firmware people generate code from: it must say what the
/// codec does, field by field, in offset, size, scale, range and sentinel, and by the bytes it writes.
@Suite struct LayoutDocumentTests {
  struct Layout: Decodable {
    var size: Int
    var magic: [UInt8]
    var crc: CRC
    var fields: [Field]

    struct CRC: Decodable {
      var check: String
      var offset: Int
      var covers: [Int]
    }

    struct Field: Decodable {
      var name: String
      var offset: Int
      var type: String
      var count: Int
      var scale: Double
      var unit: String
      var min: Int?
      var max: Int?
      var sentinel: Int?
    }
  }

  static let layout: Layout = {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("schemas/frame-v1.json")
    do {
      return try JSONDecoder().decode(Layout.self, from: Data(contentsOf: url))
    } catch {
      fatalError("cannot read \(url.path): \(error)")
    }
  }()

  static func elementSize(_ type: String) -> Int {
    switch type {
    case "i16", "u16": 2
    case "i32", "u32": 4
    default: 1
    }
  }

  @Test func sizeMagicAndCRCMatch() {
    #expect(Self.layout.size == WeatherFrame.size)
    #expect(Self.layout.magic == [0x53, 0x46])
    #expect(Self.layout.crc.offset == StandardLayout.crc.offset)
    #expect(Self.layout.crc.covers == [0, StandardLayout.crc.offset])
    #expect(UInt32(Self.layout.crc.check.dropFirst(2), radix: 16) == CRC32.checkValue)
  }

  @Test func everyFieldHasTheCodesOffsetSizeScaleAndUnit() {
    let fields = Self.layout.fields
    let rows = StandardLayout.fields
    #expect(fields.map(\.name) == rows.map { $0.name.description })
    for (field, documented) in zip(rows, fields) {
      let width = field.storage.width
      #expect(documented.offset == field.offset, "\(documented.name) offset")
      // The document counts text and reserved fields in bytes.
      #expect(documented.count == field.count * field.length, "\(documented.name) count")
      #expect(Self.elementSize(documented.type) == width, "\(documented.name) type")
      #expect(documented.type.hasPrefix("i") == field.storage.isSigned, "\(documented.name) sign")
      #expect(documented.scale == field.scale, "\(documented.name) scale")
      #expect(documented.unit == field.unit.description, "\(documented.name) unit")
      #expect(documented.offset % width == 0, "\(documented.name) is aligned")
      #expect(
        documented.sentinel.map { Int64($0) } == field.sentinel, "\(documented.name) sentinel")
      #expect(documented.min.map { Int64($0) } == field.minimum, "\(documented.name) min")
      #expect(documented.max.map { Int64($0) } == field.maximum, "\(documented.name) max")
    }
    #expect(MessageKind.standard.fields.map(\.offset) == rows.map(\.offset))
  }

  /// Fields without a "missing" value read as what they hold, whatever it is: 65535 is a
  /// request id (golden vector 12), 0xFFFFFFFF a CRC, 65535 s a next-update hint.
  @Test func fieldsWithoutASentinelAreNeverMissing() throws {
    var frame = WeatherFrame(status: .rateLimited, requestID: 0xFFFF)
    frame.nextUpdateSeconds = 0xFFFF
    let validated = try frame.encoded().withUnsafeBytes { try ValidatedFrame(decoding: $0) }
    #expect(validated.requestID == 0xFFFF)
    #expect(validated.value(StandardLayout.requestID) == 0xFFFF)
    #expect(validated.value(StandardLayout.nextUpdate) == 0xFFFF)
    #expect(validated.value(StandardLayout.crc) != nil)
    #expect(validated.value(StandardLayout.airQuality) == nil)
    #expect(validated.value(StandardLayout.alerts) == nil)
  }

  @Test func fieldsTileTheFrameWithoutGapsOrOverlap() {
    var next = 0
    for field in Self.layout.fields {
      #expect(field.offset == next, "\(field.name) starts where the previous field ends")
      next = field.offset + field.count * Self.elementSize(field.type)
    }
    #expect(next == WeatherFrame.size)
  }

  /// Sets each field through the Swift API to a value that differs from its sentinel, encodes, and
  /// reads the value back from the offset and type the document gives; then the same for the
  /// sentinel the document gives, from a frame with nothing set.
  @Test func theEncoderWritesEachFieldWhereTheDocumentSays() throws {
    var frame = WeatherFrame()
    var expected: [String: (index: Int, value: Int)] = [:]
    func set(_ name: String, _ value: Int, at index: Int = 0, _ apply: (inout WeatherFrame) -> Void)
    {
      apply(&frame)
      expected[name] = (index, value)
    }
    set("status", 5) { $0.status = .rateLimited }
    set("request_id", 0xBEEF) { $0.requestID = 0xBEEF }
    set("slot_count", 9) { $0.slotCount = 9 }
    set("slot_index", 8) { $0.slotIndex = 8 }
    set("service", 3) { $0.service = .weatherAPI }
    set("is_day", 1) { $0.isDay = true }
    set("sun", 2) { $0.sun = .polarNight }
    set("hourly_step_h", 3) { $0.hourlyStepHours = 3 }
    set("latitude", -3_386_880) { $0.latitude = -3_386_880 }
    set("longitude", -17_656_000) { $0.longitude = -17_656_000 }
    set("observed_at", 1_705_330_800) { $0.observedAt = 1_705_330_800 }
    set("fetched_at", 1_705_331_100) { $0.fetchedAt = 1_705_331_100 }
    set("hourly_start", 1_705_330_000) { $0.hourlyStart = 1_705_330_000 }
    set("utc_offset_min", -210) { $0.utcOffsetMinutes = -210 }
    set("daily_start", 19_737) { $0.dailyStart = 19_737 }
    set("temperature", -892) { $0.current.temperature = -892 }
    set("feels_like", 570) { $0.current.feelsLike = 570 }
    set("pressure", 10_132) { $0.current.pressure = 10_132 }
    set("wind_speed", 850) { $0.current.windSpeed = 850 }
    set("wind_gust", 1_111) { $0.current.windGust = 1_111 }
    set("wind_direction", 359) { $0.current.windDirection = 359 }
    set("visibility", 2_414) { $0.current.visibility = 2_414 }
    set("precipitation", 1_205) { $0.current.precipitation = 1_205 }
    set("humidity", 86) { $0.current.humidity = 86 }
    set("weather_code", 95) { $0.current.weatherCode = 95 }
    set("cloud_cover", 100) { $0.current.cloudCover = 100 }
    set("uv_index", 113) { $0.current.uvIndex = 113 }
    set("sunrise", 1_705_302_660) { $0.sunrise = 1_705_302_660 }
    set("sunset", 1_705_333_140) { $0.sunset = 1_705_333_140 }
    set("hourly_temperature", -15, at: 11) { $0.hourly[11].temperature = -15 }
    set("hourly_weather_code", 61, at: 11) { $0.hourly[11].weatherCode = 61 }
    set("hourly_precip_probability", 80, at: 11) { $0.hourly[11].precipitationProbability = 80 }
    set("daily_min", -41, at: 6) { $0.daily[6].minimum = -41 }
    set("daily_max", 28, at: 6) { $0.daily[6].maximum = 28 }
    set("daily_weather_code", 3, at: 6) { $0.daily[6].weatherCode = 3 }
    set("daily_precip_probability", 55, at: 6) { $0.daily[6].precipitationProbability = 55 }
    set("air_quality", 0x8000 | 43) { $0.airQuality = AirQuality(index: 42, scale: .usAQI) }
    set("alerts", 2 << 3 | 6) { $0.alerts = AlertSummary(count: 2, highest: .extreme) }
    set("moon", 65) { $0.moon = MoonPhase(wire: 65) }
    set("precip_next_hour", 0x80 | 16) {
      $0.precipitationNextHour = NextHourPrecipitation(
        precipitatingNow: true, minutesUntilChange: 15)
    }
    set("next_update", 540) { $0.nextUpdateSeconds = 540 }

    let written = try frame.encoded()
    let empty = try WeatherFrame().encoded()
    for field in Self.layout.fields {
      let width = Self.elementSize(field.type)
      if let (index, value) = expected[field.name] {
        #expect(read(written, field.offset + index * width, field.type) == value, "\(field.name)")
      } else if !["magic", "version", "country", "name", "crc32"].contains(field.name),
        !field.name.hasPrefix("reserved")
      {
        Issue.record("\(field.name) is documented but not exercised by this test")
      }
      if let sentinel = field.sentinel, field.name != "status", field.name != "service" {
        for element in 0..<field.count {
          #expect(
            read(empty, field.offset + element * width, field.type) == sentinel,
            "\(field.name) sentinel")
        }
      }
      if let minimum = field.min, let maximum = field.max, let (_, value) = expected[field.name] {
        #expect(
          (minimum...maximum).contains(value), "\(field.name) test value inside documented range")
      }
    }
  }

  func read(_ bytes: [UInt8], _ offset: Int, _ type: String) -> Int {
    var unsigned: UInt64 = 0
    let width = Self.elementSize(type)
    for index in 0..<width { unsigned |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
    switch type {
    case "i16": return Int(Int16(truncatingIfNeeded: unsigned))
    case "i32": return Int(Int32(truncatingIfNeeded: unsigned))
    default: return Int(unsigned)
    }
  }
}
