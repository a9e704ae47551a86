import Testing

@testable import SkyframeCodec

/// Seeded property tests: the same cases on every run and every machine.
@Suite struct FramePropertyTests {
  static let cases = 100_000

  @Test func anyValidFrameDecodesToTheSameValues() async throws {
    var random = SeededRandom(seed: 0x5EED_F4A3)
    for index in 0..<Self.cases {
      // Long CPU-bound loops let the integration tests beside them use the executor's threads.
      if index % 500 == 0 { await Task.yield() }
      let frame = randomFrame(&random)
      let bytes = try frame.encoded()
      let decoded = try WeatherFrame(decoding: bytes)
      guard decoded == frame else {
        Issue.record("case \(index): \(frame) decoded as \(decoded)")
        return
      }
    }
  }

  @Test func randomBytesNeverTrapTheDecoder() async {
    var random = SeededRandom(seed: 0xBAD_B17E5)
    var decodedCount = 0
    var buffer = [UInt8](repeating: 0, count: 256)
    for index in 0..<Self.cases {
      if index % 500 == 0 { await Task.yield() }
      let length = index % 4 == 0 ? Int.random(in: 0...256, using: &random) : WeatherFrame.size
      for position in 0..<length { buffer[position] = UInt8.random(in: 0...255, using: &random) }
      var bytes = Array(buffer[0..<length])
      // Most cases get a valid header and CRC so that the field readers see random values too.
      if length == WeatherFrame.size, index % 4 != 1 {
        bytes[0] = 0x53
        bytes[1] = 0x46
        bytes[2] = 1
        rewriteCRC(&bytes)
      }
      if (try? WeatherFrame(decoding: bytes)) != nil { decodedCount += 1 }
    }
    // Every frame-sized input with a valid header and CRC decodes: the decoder is total.
    #expect(decodedCount >= Self.cases / 2)
  }
}

func randomFrame(_ random: inout SeededRandom) -> WeatherFrame {
  var frame = WeatherFrame()
  frame.status = FrameStatus(rawValue: UInt8.random(in: 0...9, using: &random))
  frame.requestID = UInt16.random(in: 0...UInt16.max, using: &random)
  frame.slotCount = UInt8.random(in: 1...16, using: &random)
  frame.slotIndex = UInt8.random(in: 0..<frame.slotCount, using: &random)
  frame.service = WeatherService(rawValue: UInt8.random(in: 0...4, using: &random))
  frame.isDay = random.maybe { Bool.random(using: &$0) }
  frame.sun = random.maybe { SunState.allCases.randomElement(using: &$0)! }
  frame.hourlyStepHours = UInt8.random(in: 0...24, using: &random)
  frame.latitude = random.maybe { Int32.random(in: -9_000_000...9_000_000, using: &$0) }
  frame.longitude = random.maybe { Int32.random(in: -18_000_000...18_000_000, using: &$0) }
  let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
  frame.country = random.maybe {
    CountryCode(letters.randomElement(using: &$0)!, letters.randomElement(using: &$0)!)!
  }
  let words = ["Berlin", "São Paulo", "東京", "Київ", "Zürich", "🇳🇵", "नेपाल", " ", "e\u{301}"]
  var name = ""
  for _ in 0..<Int.random(in: 0...6, using: &random) {
    name += words.randomElement(using: &random)!
  }
  frame.name = FrameName(truncating: name)
  frame.observedAt = random.maybe { UInt32.random(in: 1...UInt32.max, using: &$0) }
  frame.fetchedAt = random.maybe { UInt32.random(in: 1...UInt32.max, using: &$0) }
  frame.hourlyStart = random.maybe { UInt32.random(in: 1...UInt32.max, using: &$0) }
  frame.utcOffsetMinutes = random.maybe { Int16.random(in: -720...840, using: &$0) }
  frame.dailyStart = random.maybe { UInt16.random(in: 0...0xFFFE, using: &$0) }
  frame.sunrise = random.maybe { UInt32.random(in: 1...UInt32.max, using: &$0) }
  frame.sunset = random.maybe { UInt32.random(in: 1...UInt32.max, using: &$0) }
  frame.current.temperature = random.maybe { Int16.random(in: -1_000...1_000, using: &$0) }
  frame.current.feelsLike = random.maybe { Int16.random(in: -1_000...1_000, using: &$0) }
  frame.current.pressure = random.maybe { UInt16.random(in: 0...20_000, using: &$0) }
  frame.current.windSpeed = random.maybe { UInt16.random(in: 0...5_000, using: &$0) }
  frame.current.windGust = random.maybe { UInt16.random(in: 0...5_000, using: &$0) }
  frame.current.windDirection = random.maybe { UInt16.random(in: 0...359, using: &$0) }
  frame.current.visibility = random.maybe { UInt16.random(in: 0...0xFFFE, using: &$0) }
  frame.current.precipitation = random.maybe { UInt16.random(in: 0...0xFFFE, using: &$0) }
  frame.current.humidity = random.maybe { UInt8.random(in: 0...100, using: &$0) }
  frame.current.weatherCode = random.maybe { UInt8.random(in: 0...99, using: &$0) }
  frame.current.cloudCover = random.maybe { UInt8.random(in: 0...100, using: &$0) }
  frame.current.uvIndex = random.maybe { UInt8.random(in: 0...250, using: &$0) }
  for index in 0..<WeatherFrame.hourlyCount {
    frame.hourly[index] = WeatherFrame.HourlySlot(
      temperature: random.maybe { Int16.random(in: -1_000...1_000, using: &$0) },
      weatherCode: random.maybe { UInt8.random(in: 0...99, using: &$0) },
      precipitationProbability: random.maybe { UInt8.random(in: 0...100, using: &$0) })
  }
  for index in 0..<WeatherFrame.dailyCount {
    frame.daily[index] = WeatherFrame.DailySlot(
      minimum: random.maybe { Int16.random(in: -1_000...1_000, using: &$0) },
      maximum: random.maybe { Int16.random(in: -1_000...1_000, using: &$0) },
      weatherCode: random.maybe { UInt8.random(in: 0...99, using: &$0) },
      precipitationProbability: random.maybe { UInt8.random(in: 0...100, using: &$0) })
  }
  return frame
}
