import Foundation
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeTestSupport
import Testing

/// Frame profiles end to end (`schemas/frame-profiles.md`): a real mosquitto, the Open-Meteo
/// stand-in, answers checked with the profile decoders as a display would.
@Suite(.serialized) struct ProfileTests {
  /// The raw payloads of the next `count` messages on the device's frame topic.
  private func payloads(_ device: Device, _ count: Int) async throws -> [[UInt8]] {
    var result: [[UInt8]] = []
    while result.count < count {
      let message = try await device.next { $0.topic == "skyframe/v1/frame/\(device.id)" }
      result.append(message.payload)
    }
    return result
  }

  private func view(_ bytes: [UInt8], _ body: (ProfileView) throws -> Void) throws {
    try bytes.withUnsafeBytes { buffer in try body(try ProfileView(checking: buffer)) }
  }

  @Test func textAndBinaryRequestsGetEachProfileAtItsSize() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 ~large 52.52,13.41")
    // The first is a miss, answered by a worker; the rest are cache hits, answered in order.
    var answers = try await payloads(device, 1)
    try device.ask("#2 ~TINY 52.52,13.41")
    try device.ask("#3 ~standard 52.52,13.41")
    var binary = try BinaryRequest.encoded(
      DeviceRequest(
        id: 4,
        body: .locations(
          LocationList([.coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000))])),
        profile: .tiny))
    try device.client.publish("skyframe/v1/req/\(device.id)", payload: binary)
    binary = try BinaryRequest.encoded(
      DeviceRequest(
        id: 5,
        body: .locations(
          LocationList([.coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000))]))))
    try device.client.publish("skyframe/v1/req/\(device.id)", payload: binary)
    answers += try await payloads(device, 4)
    #expect(answers.map(\.count) == [960, 48, 192, 48, 192])

    let standard = try WeatherFrame(decoding: answers[2])
    try view(answers[0]) { large in
      #expect(large.kind == .large)
      #expect(large.value(LargeLayout.requestID) == 1)
      #expect(large.value(LargeLayout.status) == 0)
      #expect(large.value(LargeLayout.temperature) == Int64(standard.current.temperature!))
      #expect(large.value(LargeLayout.dailyMaximum, 0) == Int64(standard.daily[0].maximum!))
      #expect(large.value(LargeLayout.hourlyStart) == Int64(standard.hourlyStart!))
      // The stand-in has more than 12 hours: the large frame carries what standard cannot.
      #expect(large.value(LargeLayout.hourlyTemperature, 20) != nil)
      #expect(String(decoding: large.text(LargeLayout.name), as: UTF8.self) == "52.52,13.41")
      // What only large carries, from the stand-in's answer: dew point 5.1 °C, the day's sum,
      // UV and wind maxima (9.4 m/s → 19 half metres), winds and amounts per hour.
      #expect(large.value(LargeLayout.dewPoint) == 51)
      #expect(large.value(LargeLayout.dailyPrecipitationSum, 0) == 42)
      #expect(large.value(LargeLayout.dailyUVMaximum, 0) == 19)
      #expect(large.value(LargeLayout.dailyWindMaximum, 0) == 19)
      #expect(large.value(LargeLayout.dailySunrise, 1) != nil)
      #expect(large.value(LargeLayout.dailySun, 1) == 0)
      #expect((6...22).contains(large.value(LargeLayout.hourlyWindSpeed, 5) ?? 0))
      #expect(large.value(LargeLayout.hourlyPrecipitationAmount, 5) != nil)
      #expect(large.value(LargeLayout.minutelyStart) != nil)
      #expect(large.value(LargeLayout.dailyMinimum, 7) == nil)
    }
    try view(answers[1]) { tiny in
      #expect(tiny.kind == .tiny)
      #expect(tiny.value(TinyLayout.requestID) == 2)
      #expect(tiny.value(TinyLayout.temperature) == Int64(standard.current.temperature!))
      #expect(tiny.value(TinyLayout.fetchedAt) == Int64(standard.fetchedAt!))
      #expect(tiny.value(TinyLayout.utcOffset) == 4)
      let maximum = Int64(standard.daily[0].maximum!)
      #expect(tiny.value(TinyLayout.dailyMaximum, 0) == (maximum + (maximum >= 0 ? 5 : -5)) / 10)
    }
    try view(answers[3]) { tiny in #expect(tiny.value(TinyLayout.requestID) == 4) }
  }

  @Test func aDeviceShowingTheSameWeatherGetsUnchanged() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 ~tiny 52.52,13.41")
    let first = try #require(try await payloads(device, 1).first)
    let check = try first.withUnsafeBytes { try ProfileView(checking: $0).contentCheck }
    let hex = String(format: "%08x", check)
    try device.ask("#2 ~tiny ~check=\(hex) 52.52,13.41")
    try device.ask("#3 ~tiny ~check=00000000 52.52,13.41")
    // A refresh keeps the profile; the check still applies.
    try device.ask("#4 ~check=\(hex.uppercased()) refresh")
    let answers = try await payloads(device, 3)
    #expect(answers.map(\.count) == [16, 48, 16])
    try view(answers[0]) { unchanged in
      #expect(unchanged.kind == .unchanged)
      #expect(unchanged.value(UnchangedLayout.requestID) == 2)
      #expect(unchanged.value(UnchangedLayout.profile) == 2)
      #expect((1...600).contains(unchanged.value(UnchangedLayout.nextUpdate) ?? 0))
    }
    // A binary request with the check in bytes 56-59, asking large, whose check differs.
    var binary = [UInt8](repeating: 0, count: 64)
    try binary.withUnsafeMutableBytes { buffer in
      try BinaryRequest.writeRefresh(id: 5, into: buffer)
      try BinaryRequest.setOptions(profile: .large, check: check, in: buffer)
    }
    try device.client.publish("skyframe/v1/req/\(device.id)", payload: binary)
    let large = try #require(try await payloads(device, 1).first)
    #expect(large.count == 960)
    let largeCheck = try large.withUnsafeBytes { try ProfileView(checking: $0).contentCheck }
    binary.withUnsafeMutableBytes { buffer in
      try! BinaryRequest.writeRefresh(id: 6, into: buffer)
      try! BinaryRequest.setOptions(profile: .large, check: largeCheck, in: buffer)
    }
    try device.client.publish("skyframe/v1/req/\(device.id)", payload: binary)
    let again = try #require(try await payloads(device, 1).first)
    #expect(again.count == 16)
  }

  @Test func unknownProfilesAndOptionsAreRefusedWithTheReason() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#8 ~huge 52.52,13.41")
    try device.ask("#9 ~check=123 52.52,13.41")
    var binary = try BinaryRequest.encoded(DeviceRequest(id: 10, body: .refresh))
    binary[6] = 7
    binary.withUnsafeMutableBytes { buffer in
      let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<60]))
      buffer.storeBytes(of: crc.littleEndian, toByteOffset: 60, as: UInt32.self)
    }
    try device.client.publish("skyframe/v1/req/\(device.id)", payload: binary)
    let frames = try await device.frames(3)
    #expect(frames.map(\.status) == [.badRequest, .badRequest, .badRequest])
    #expect(frames.map(\.requestID) == [8, 9, 10])
    #expect(frames[0].name.string == "unknown option ~huge")
    #expect(frames[1].name.string.hasPrefix("bad option ~check"))
    #expect(frames[2].name.string.hasPrefix("unknown profile 7"))
  }

  @Test func watchesAndNamedPlacesPublishInTheirProfiles() async throws {
    let harness = try await GatewayHarness.make {
      $0.watches.minimumSeconds = 1
      $0.locations = [
        .init(
          name: "home", place: .coordinates(latitude: 52.52, longitude: 13.405), refreshSeconds: 60,
          profiles: [.standard, .large, .tiny])
      ]
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let display = try await Device.connect(
      port: harness.broker.port, id: "wall", subscribe: ["skyframe/v1/loc/home/#"])
    var sizes: [String: Int] = [:]
    while sizes.count < 3 {
      let message = try await display.next(timeout: .seconds(30))
      sizes[message.topic] = message.payload.count
    }
    #expect(
      sizes == [
        "skyframe/v1/loc/home": 192, "skyframe/v1/loc/home/large": 960,
        "skyframe/v1/loc/home/tiny": 48,
      ])

    let pin = try await Device.connect(
      port: harness.broker.port, id: "pin-t", subscribe: ["skyframe/v1/frame/pin-t/#"])
    try pin.client.publish(
      "skyframe/v1/watch/pin-t", payload: Array("~tiny 52.52,13.41 @1".utf8), qos: 1, retain: true)
    let pushed = try await pin.next { $0.topic == "skyframe/v1/frame/pin-t" }
    #expect(pushed.payload.count == 48)
    // A retained watch cannot know what the display shows: a check is refused.
    try pin.client.publish(
      "skyframe/v1/watch/pin-t", payload: Array("~check=00000000 Oslo".utf8), qos: 1, retain: true)
    let refusal = try await pin.next {
      $0.topic == "skyframe/v1/frame/pin-t" && $0.payload.count == 192
    }
    #expect(try WeatherFrame(decoding: refusal.payload).status == .badRequest)
    try pin.client.publish("skyframe/v1/watch/pin-t", payload: [], qos: 1, retain: true)
  }

  /// A cell holds the large frame only once something asked for it: standard and tiny answers
  /// come from the 192-byte entry; the first large request fetches the cell again (one upstream
  /// call) so that its answer carries what only large holds; after that the entry serves both.
  @Test func theCacheKeepsTheLargeFrameOnlyOnceAsked() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 52.52,13.41")
    _ = try await payloads(device, 1)
    try device.ask("#2 ~tiny 52.52,13.41")
    #expect(try await payloads(device, 1)[0].count == TinyLayout.size)
    #expect(harness.forecastCalls == 1)

    try device.ask("#3 ~large 52.52,13.41")
    let first = try await payloads(device, 1)[0]
    #expect(harness.forecastCalls == 2)
    try device.ask("#4 ~large 52.52,13.41")
    try device.ask("#5 52.52,13.41")
    let answers = try await payloads(device, 2)
    #expect(answers.map(\.count) == [LargeLayout.size, WeatherFrame.size])
    #expect(harness.forecastCalls == 2)
    for large in [first, answers[0]] {
      try view(large) { view in
        // Only in the forecast, not in the standard frame: the large frame was compacted.
        #expect(view.value(LargeLayout.dewPoint) == 51)
        #expect(view.value(LargeLayout.hourlyTemperature, 20) != nil)
      }
    }
  }

  /// Every answer comes in the profile the request named, errors included: a 48-byte decoder
  /// must be able to read the `bad_request` or `rate_limited` that answers its `~tiny` request,
  /// whether the request parsed or not, and whatever refused it.
  @Test func errorsComeInTheProfileTheRequestNamed() async throws {
    let harness = try await GatewayHarness.make(clock: GatewayHarness.minuteAlignedClock()) {
      $0.requests.perDevicePerMinute = 7
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    // Refused while parsing: an unknown option after the profile, a refresh with nothing asked.
    try device.ask("#1 ~tiny ~huge 52.52,13.41")
    try device.ask("#2 ~large ~huge 52.52,13.41")
    try device.ask("#3 ~tiny refresh")
    // The binary form: profile tiny in byte 6, then a CRC that does not match.
    var binary = try BinaryRequest.encoded(
      DeviceRequest(
        id: 4,
        body: .locations(
          LocationList([.coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000))])),
        profile: .tiny))
    binary[binary.count - 1] ^= 0xFF
    try device.client.publish("skyframe/v1/req/\(device.id)", payload: binary)
    // A name the service does not know: not_found, from a worker.
    try device.ask("#5 ~large Nowhereville")
    var answers = try await payloads(device, 5)
    #expect(answers.map(\.count) == [48, 960, 48, 48, 960])
    for (index, expected) in [
      (0, FrameStatus.badRequest), (1, .badRequest), (2, .badRequest), (3, .badRequest),
      (4, .notFound),
    ] {
      try view(answers[index]) { view in
        let status = view.kind == .tiny ? TinyLayout.status : LargeLayout.status
        let id = view.kind == .tiny ? TinyLayout.requestID : LargeLayout.requestID
        #expect(view.value(status) == Int64(expected.rawValue), "answer \(index)")
        #expect(view.value(id) == Int64(index + 1), "answer \(index)")
      }
    }
    // Over the device's 7 requests a minute: the eighth is refused unparsed, still in its profile.
    try device.ask("#6 ~tiny 52.52,13.41")
    try device.ask("#7 ~tiny 52.52,13.41")
    answers = try await payloads(device, 2)
    try device.ask("#8 ~tiny 52.52,13.41")
    let refused = try await payloads(device, 1)[0]
    #expect(refused.count == TinyLayout.size)
    try view(refused) { view in
      #expect(view.value(TinyLayout.status) == Int64(FrameStatus.rateLimited.rawValue))
      #expect(view.value(TinyLayout.requestID) == 8)
    }
  }

  /// A refresh that names a profile makes it the one a later plain refresh keeps.
  @Test func aRefreshWithAProfileIsRemembered() async throws {
    let harness = try await GatewayHarness.make()
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    // The cell's large frame first, answered before anything else is asked, so that every
    // answer below is a cache hit, sent in order (two misses of one cell share its fetch and
    // are answered in either order).
    try device.ask("#0 ~large 52.52,13.41")
    #expect(try await payloads(device, 1).map(\.count) == [960])
    try device.ask("#1 ~tiny 52.52,13.41")
    #expect(try await payloads(device, 1).map(\.count) == [48])
    try device.ask("#2 ~large refresh")
    try device.ask("#3 refresh")
    try device.ask("#4 ~standard refresh")
    try device.ask("#5 refresh")
    let answers = try await payloads(device, 4)
    #expect(answers.map(\.count) == [960, 960, 192, 192])
  }
}
