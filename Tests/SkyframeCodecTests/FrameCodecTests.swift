import Testing

@testable import SkyframeCodec

private typealias S = StandardLayout

@Suite struct FrameCodecTests {
  @Test func anErrorFrameRoundTrips() throws {
    let frame = WeatherFrame(
      status: .notFound, requestID: 7, slotIndex: 1, slotCount: 3,
      name: FrameName(truncating: "Atlantis"))
    let bytes = try frame.encoded()
    #expect(bytes.count == WeatherFrame.size)
    #expect(Array(bytes[0..<4]) == [0x53, 0x46, 0x01, 0x02])
    let decoded = try WeatherFrame(decoding: bytes)
    #expect(decoded == frame)
    #expect(decoded.current.temperature == nil)
    #expect(decoded.name.string == "Atlantis")
  }

  @Test func sentinelsAreWrittenForMissingValues() throws {
    let bytes = try WeatherFrame(status: .badRequest).encoded()
    #expect(bytes[S.temperature.offset] == 0x00)
    #expect(bytes[S.temperature.offset + 1] == 0x80)
    #expect(
      bytes[S.pressure.offset] == 0xFF && bytes[S.pressure.offset + 1] == 0xFF)
    #expect(bytes[S.humidity.offset] == 0xFF)
    #expect(bytes[S.isDay.offset] == 0xFF)
    #expect(
      Array(bytes[S.latitude.offset..<S.latitude.offset + 4]) == [0, 0, 0, 0x80])
    #expect(
      Array(bytes[S.observedAt.offset..<S.observedAt.offset + 4]) == [0, 0, 0, 0])
  }

  @Test func theLastReservedByteIsZeroAndIgnoredOnDecode() throws {
    var bytes = try WeatherFrame(status: .ok).encoded()
    #expect(bytes[S.reserved87.offset] == 0)
    bytes[S.reserved87.offset] = 0xA5
    rewriteCRC(&bytes)
    #expect(try WeatherFrame(decoding: bytes) == WeatherFrame(status: .ok))
  }

  @Test func aV10FrameReadsEveryV11FieldAsAbsent() throws {
    // What a v1.0 gateway wrote: zeros in 38-39, 84-87, 186-187.
    let bytes = try WeatherFrame(status: .ok).encoded()
    for field in [S.airQuality, S.alerts, S.moon, S.precipitationNextHour, S.nextUpdate] {
      #expect(bytes[field.offset..<field.offset + field.size].allSatisfy { $0 == 0 })
    }
    let frame = try WeatherFrame(decoding: bytes)
    #expect(frame.airQuality == nil && frame.alerts == nil && frame.moon == nil)
    #expect(frame.precipitationNextHour == nil && frame.nextUpdateSeconds == nil)
  }

  @Test func v11FieldsRoundTripAndAnAQIOfZeroIsNotAbsent() throws {
    var frame = WeatherFrame(status: .ok)
    frame.airQuality = AirQuality(index: 0, scale: .usAQI)
    frame.alerts = AlertSummary(count: 3, highest: .severe)
    frame.moon = MoonPhase(fraction: 0.5)
    frame.precipitationNextHour = NextHourPrecipitation(
      precipitatingNow: false, minutesUntilChange: 45)
    frame.nextUpdateSeconds = 600
    let bytes = try frame.encoded()
    #expect(bytes[38] == 0x01 && bytes[39] == 0x80)
    #expect(bytes[84] == 3 << 3 | 5)
    #expect(bytes[85] == 129)
    #expect(bytes[86] == 46)
    #expect(bytes[186] == 0x58 && bytes[187] == 0x02)
    #expect(try WeatherFrame(decoding: bytes) == frame)
    #expect(try WeatherFrame(decoding: bytes).moon?.icon == .fullMoon)
  }

  @Test func valuesNoEncoderSendsReadAsAbsent() throws {
    var bytes = try WeatherFrame(status: .ok).encoded()
    for (alerts, precipitation) in [(UInt8(0x10), UInt8(62)), (0x17, 0x80 | 126), (0x08, 0x80)] {
      bytes[S.alerts.offset] = alerts
      bytes[S.precipitationNextHour.offset] = precipitation
      rewriteCRC(&bytes)
      let frame = try WeatherFrame(decoding: bytes)
      #expect(frame.alerts == nil)
      #expect(frame.precipitationNextHour == nil)
    }
  }

  @Test func v11ValuesOutOfRangeAreRefused() {
    var frame = WeatherFrame(status: .ok)
    frame.airQuality = AirQuality(index: 1_000, scale: .europeanAQI)
    #expect(throws: FrameError.outOfRange(field: "air_quality", value: 1_000)) {
      try frame.encoded()
    }
    frame.airQuality = nil
    frame.precipitationNextHour = NextHourPrecipitation(
      precipitatingNow: true, minutesUntilChange: 61)
    #expect(throws: FrameError.outOfRange(field: "precip_next_hour", value: 61)) {
      try frame.encoded()
    }
    frame.precipitationNextHour = nil
    frame.nextUpdateSeconds = 0
    #expect(throws: FrameError.outOfRange(field: "next_update", value: 0)) { try frame.encoded() }
  }

  @Test func moonIconsFollowRoundingOfPhaseTimesEight() {
    for wire in UInt8(1)...255 {
      let moon = MoonPhase(wire: wire)!
      let expected = Int((moon.fraction * 8).rounded()) % 8
      #expect(Int(moon.icon.rawValue) == expected, "wire \(wire)")
      #expect(MoonPhase(fraction: moon.fraction) == moon)
    }
    #expect(MoonPhase(fraction: 0.999).wire == 1)
    #expect(MoonPhase(fraction: 1.25).wire == MoonPhase(fraction: 0.25).wire)
  }

  @Test func lengthMagicVersionAndCRCAreCheckedInThatOrder() throws {
    let good = try WeatherFrame(status: .ok).encoded()
    #expect(throws: FrameError.truncated(count: 191)) {
      try WeatherFrame(decoding: Array(good.dropLast()))
    }
    #expect(throws: FrameError.truncated(count: 0)) { try WeatherFrame(decoding: []) }
    #expect(throws: FrameError.tooLong(count: 193)) { try WeatherFrame(decoding: good + [0]) }

    var magic = good
    magic[1] = 0x47
    #expect(throws: FrameError.badMagic(0x53, 0x47)) { try WeatherFrame(decoding: magic) }

    var version = good
    version[2] = 2
    #expect(throws: FrameError.unsupportedVersion(2)) { try WeatherFrame(decoding: version) }

    var flipped = good
    flipped[100] ^= 0x10
    let stored =
      UInt32(good[188]) | UInt32(good[189]) << 8 | UInt32(good[190]) << 16 | UInt32(good[191]) << 24
    let computed = CRC32.checksum(Array(flipped[0..<188]))
    #expect(throws: FrameError.checksumMismatch(stored: stored, computed: computed)) {
      try WeatherFrame(decoding: flipped)
    }
  }

  @Test func errorsNameWhatIsWrong() {
    #expect(
      FrameError.truncated(count: 10).description == "truncated frame: 10 bytes, a frame has 192")
    #expect(
      FrameError.checksumMismatch(stored: 0xDEAD_BEEF, computed: 0x0000_0001).description
        == "CRC mismatch: frame says 0xDEADBEEF, bytes give 0x00000001")
    #expect(
      FrameError.badMagic(0x7B, 0x22).description == "bad magic 0x7B22, expected 0x5346 (\"SF\")")
    #expect(
      FrameError.outOfRange(field: "humidity", value: 101).description
        == "humidity = 101 is outside the range its field can carry")
  }

  @Test func encoderRefusesValuesOutsideTheSpec() {
    let cases: [((inout WeatherFrame) -> Void, LayoutField, Int)] = [
      ({ $0.current.temperature = 1_001 }, S.temperature, 1_001),
      ({ $0.current.humidity = 101 }, S.humidity, 101),
      ({ $0.current.windDirection = 360 }, S.windDirection, 360),
      ({ $0.current.weatherCode = 100 }, S.weatherCode, 100),
      ({ $0.latitude = 9_000_001 }, S.latitude, 9_000_001),
      ({ $0.longitude = -18_000_001 }, S.longitude, -18_000_001),
      ({ $0.utcOffsetMinutes = 841 }, S.utcOffset, 841),
      ({ $0.observedAt = 0 }, S.observedAt, 0),
      ({ $0.slotIndex = 1 }, S.slotIndex, 1),
      ({ $0.slotCount = 0 }, S.slotCount, 0),
      ({ $0.daily[6].maximum = Int16.min }, S.dailyMaximum, Int(Int16.min)),
      ({ $0.hourly[11].precipitationProbability = 101 }, S.hourlyPrecipitationProbability, 101),
    ]
    for (change, field, value) in cases {
      var frame = WeatherFrame()
      change(&frame)
      #expect(throws: FrameError.outOfRange(field: "\(field.name)", value: value)) {
        try frame.encoded()
      }
    }
  }

  @Test func encodeNeedsAWholeFrameOfBuffer() {
    var small = [UInt8](repeating: 0, count: 100)
    _ = small.withUnsafeMutableBytes { buffer in
      #expect(throws: FrameError.bufferTooSmall(count: 100)) {
        try WeatherFrame().encode(into: buffer)
      }
    }
  }

  @Test func namesAreCutAfterTheLastWholeCharacter() {
    #expect(FrameName(truncating: "Frankfurt am Main").string == "Frankfurt am Main")
    // 13 three-byte characters: 8 fit in 24 bytes.
    #expect(FrameName(truncating: "東京都千代田区丸の内一丁目").string == "東京都千代田区丸")
    // 23 ASCII bytes then a two-byte letter: the letter does not fit.
    let cut = FrameName(truncating: String(repeating: "a", count: 23) + "é")
    #expect(cut.count == 23)
    // "e" + combining acute is one character: it is kept whole or dropped whole.
    let combining = FrameName(truncating: String(repeating: "b", count: 22) + "e\u{301}x")
    #expect(combining.string == String(repeating: "b", count: 22))
    // A flag is two scalars, eight bytes, one character.
    #expect(FrameName(truncating: "Zürich 🇨🇭 Hauptbahnhof").string == "Zürich 🇨🇭 Hauptba")
  }

  @Test func countryCodesAreTwoLetters() {
    #expect(CountryCode("de")?.string == "DE")
    #expect(CountryCode("DEU") == nil)
    #expect(CountryCode("D1") == nil)
    #expect(CountryCode("") == nil)
  }
}

/// Puts a correct CRC back after a test changed bytes on purpose.
func rewriteCRC(_ bytes: inout [UInt8]) {
  let crc = CRC32.checksum(Array(bytes[0..<188]))
  for index in 0..<4 { bytes[188 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
}

@Suite struct FrameRewriteTests {
  @Test func aRewrittenFrameIsTheFrameEncodedWithTheNewValues() throws {
    var original = WeatherFrame()
    original.status = .ok
    original.current.temperature = -23
    original.name = FrameName(truncating: "Cell 52.52")
    original.latitude = 5_252_000
    original.longitude = 1_341_000
    var bytes = try original.encoded()

    bytes.withUnsafeMutableBytes { buffer in
      WeatherFrame.rewrite(
        buffer, status: .stale, requestID: 42, slotIndex: 2, slotCount: 3, latitude: 5_251_000,
        longitude: nil, name: FrameName(truncating: "Berlin"), country: CountryCode("DE"))
    }
    var expected = original
    expected.status = .stale
    expected.requestID = 42
    expected.slotIndex = 2
    expected.slotCount = 3
    expected.latitude = 5_251_000
    expected.longitude = nil
    expected.name = FrameName(truncating: "Berlin")
    expected.country = CountryCode("DE")
    #expect(try WeatherFrame(decoding: bytes) == expected)
    #expect(bytes == (try expected.encoded()))
  }

  /// The CRC is carried over from the sealed frame and the bytes that changed: after any rewrite
  /// of any frame it is the CRC of the whole frame, as the encoder would write it.
  @Test func theCarriedOverCRCIsTheWholeFramesCRC() throws {
    var random = SeededRandom(seed: 0xC0FFEE)
    for _ in 0..<2_000 {
      var bytes = try randomFrame(&random).encoded()
      for _ in 0..<3 {
        let slotCount = UInt8.random(in: 1...16, using: &random)
        let name = String(
          repeating: "Zürich-", count: Int.random(in: 0...4, using: &random))
        bytes.withUnsafeMutableBytes { buffer in
          WeatherFrame.rewrite(
            buffer, status: .stale, requestID: UInt16.random(in: 0...UInt16.max, using: &random),
            slotIndex: UInt8.random(in: 0..<slotCount, using: &random), slotCount: slotCount,
            latitude: Int32.random(in: -9_000_000...9_000_000, using: &random),
            longitude: Bool.random(using: &random) ? nil : 1_341_000,
            name: FrameName(truncating: name),
            country: Bool.random(using: &random) ? CountryCode("CH") : nil,
            nextUpdateSeconds: UInt16.random(in: 0...UInt16.max, using: &random))
        }
        #expect(
          CRC32.checksum(Array(bytes[0..<188]))
            == bytes[188..<192].reversed().reduce(0) {
              $0 << 8 | UInt32($1)
            })
        #expect(try WeatherFrame(decoding: bytes).encoded() == bytes)
      }
    }
  }
}

@Suite struct ValidatedFrameTests {
  @Test func readsFieldsInPlaceAndMaterializesTheSameFrame() throws {
    var random = SeededRandom(seed: 0xF1E1D)
    for _ in 0..<2_000 {
      let frame = randomFrame(&random)
      let bytes = try frame.encoded()
      let checked = try bytes.withUnsafeBytes { raw throws(FrameError) in
        try ValidatedFrame(decoding: raw)
      }
      #expect(checked.frame == frame)
      #expect(checked.status == frame.status)
      #expect(checked.requestID == frame.requestID)
      #expect(checked.value(S.temperature) == frame.current.temperature.map(Int.init))
      #expect(checked.value(S.observedAt) == frame.observedAt.map(Int.init))
      #expect(checked.value(S.latitude) == frame.latitude.map(Int.init))
      #expect(checked.value(S.humidity) == frame.current.humidity.map(Int.init))
      #expect(
        checked.value(S.hourlyTemperature, at: 11) == frame.hourly[11].temperature.map(Int.init))
      #expect(
        checked.value(S.dailyPrecipitationProbability, at: 6)
          == frame.daily[6].precipitationProbability.map(Int.init))
      #expect(checked.value(S.slotCount) == Int(frame.slotCount))
    }
  }

  @Test func checksTheSameWayAsTheFullDecoder() throws {
    var bytes = try WeatherFrame(status: .ok).encoded()
    bytes[50] ^= 1
    let flipped = bytes
    #expect(throws: FrameError.self) {
      try flipped.withUnsafeBytes { raw throws(FrameError) in try ValidatedFrame(decoding: raw) }
    }
    #expect(throws: FrameError.truncated(count: 3)) {
      try [UInt8]([0x53, 0x46, 1]).withUnsafeBytes { raw throws(FrameError) in
        try ValidatedFrame(decoding: raw)
      }
    }
  }
}
