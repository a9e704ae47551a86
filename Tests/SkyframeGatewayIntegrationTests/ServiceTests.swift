import Foundation
import SkyframeCodec
import SkyframeGateway
import SkyframeProviders
import SkyframeTestSupport
import Testing

/// Every way to ask for a place, against each weather service, through a real broker.
@Suite(.serialized) struct ServiceTests {
  static let services = ServiceFixtures.Service.allCases

  static func expected(_ service: ServiceFixtures.Service) -> (WeatherService, UInt8) {
    switch service {
    case .openMeteo: (.openMeteo, 1)
    case .openWeatherMap: (.openWeatherMap, 3)
    case .weatherAPI: (.weatherAPI, 1)
    case .metNorway: (.metNorway, 1)
    }
  }

  @Test(arguments: services)
  func coordinatesCitiesSeveralPlacesAndRefresh(_ service: ServiceFixtures.Service) async throws {
    let harness = try await GatewayHarness.make(service: service)
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    let (id, step) = Self.expected(service)

    try device.ask("#1 59.91,10.75")
    let position = try #require(try await device.frames(1).first)
    #expect(position.status == .ok)
    #expect(position.service == id)
    #expect(position.hourlyStepHours == step)
    #expect(position.current.temperature == 125)
    #expect(position.name.string == "59.91,10.75")

    try device.ask("#2 Paris;Atlantis;Oslo,NO")
    let frames = try await device.frames(3)
    #expect(frames.map(\.status) == [.ok, .notFound, .ok])
    #expect(frames.map(\.slotIndex) == [0, 1, 2])
    #expect(frames.map { $0.name.string } == ["Paris", "Atlantis", "Oslo"])
    #expect(frames[0].country == CountryCode("FR"))
    #expect(frames.allSatisfy { $0.requestID == 2 && $0.slotCount == 3 })
    #expect(frames[0].service == id)

    try device.ask("#3 refresh")
    let again = try await device.frames(3)
    #expect(again.map { $0.name.string } == ["Paris", "Atlantis", "Oslo"])
    #expect(again.allSatisfy { $0.requestID == 3 })

    try device.ask("#4 A;B;C;D;E;F;G;H")
    #expect(try await device.frames(1).first?.status == .tooManyLocations)
  }

  @Test(arguments: services)
  func serviceErrorsBecomeStatuses(_ service: ServiceFixtures.Service) async throws {
    // Each error on its own: the breaker opens only for the 429 (asked last), whose pause makes
    // every later answer rate_limited (FailureTests has the breaker's side).
    let harness = try await GatewayHarness.make(service: service) {
      $0.upstream.breakerFailures = 100
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    let unauthorized: GatewayHarness.Mode =
      switch service {
      case .openWeatherMap: .status(401, #"{"cod":401,"message":"Invalid API key."}"#)
      case .weatherAPI: .status(401, #"{"error":{"code":2006,"message":"API key is invalid."}}"#)
      case .openMeteo: .status(400, OpenMeteoFixtures.badRequest)
      case .metNorway: .status(403, "Forbidden: identify yourself in the User-Agent")
      }
    let quota: GatewayHarness.Mode =
      switch service {
      case .weatherAPI:
        .status(403, #"{"error":{"code":2007,"message":"Monthly quota exceeded."}}"#)
      default: .status(429, OpenMeteoFixtures.rateLimited)
      }
    for (index, (mode, status)) in [
      (unauthorized, FrameStatus.internalError),
      (.status(503, ""), .upstreamUnavailable),
      (.garbage, .upstreamUnavailable),
      (quota, .rateLimited),
    ].enumerated() {
      harness.set(mode)
      try device.ask("#\(index) \(30 + index).5,\(40 + index).5")
      #expect(
        try await device.frames(1, timeout: .seconds(15)).first?.status == status,
        "\(service) \(mode)")
    }
  }

  /// Data that ended hours ago (a service serving what it no longer updates) is the service
  /// failing, for every service alike: `upstream_unavailable` with nothing cached, and the last
  /// good frame as `stale` once there is one (frame-v1.md §5.1).
  @Test(arguments: services)
  func dataThatEndedHoursAgoIsAFailure(_ service: ServiceFixtures.Service) async throws {
    let harness = try await GatewayHarness.make(service: service) {
      $0.cache.ttlSeconds = 1
      $0.weather.batchWindowMilliseconds = 0
      $0.upstream.breakerFailures = 100
    }
    defer { Task { await harness.shutdown() } }
    let yearsAgo = ServiceFixtures.now() - 3 * 365 * 86_400
    let old: GatewayHarness.Mode = .answer { request in
      ServiceFixtures.answer(request, places: GatewayHarness.places, temperature: 3, now: yearsAgo)
    }
    harness.set(old)
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)

    try device.ask("#1 59.91,10.75")
    let first = try #require(try await device.frames(1).first)
    #expect(first.status == .upstreamUnavailable)
    #expect(first.observedAt == nil)

    harness.set(.normal)
    try device.ask("#2 59.91,10.75")
    let fresh = try #require(try await device.frames(1).first)
    #expect(fresh.status == .ok)
    #expect(fresh.current.temperature == 125)

    // Past the 1 s time-to-live the service answers old data again: the frame of #2, stale.
    try await Task.sleep(for: .milliseconds(1_500))
    harness.set(old)
    try device.ask("#3 59.91,10.75")
    let stale = try #require(try await device.frames(1).first)
    #expect(stale.status == .stale)
    #expect(stale.fetchedAt == fresh.fetchedAt)
    #expect(stale.current.temperature == 125)
  }

  /// The fixtures' services are named as in the configuration.
  static func name(_ service: ServiceFixtures.Service) -> String {
    service.rawValue
  }

  /// Budgets and per-device limits count in whole-minute windows: a test that must stay inside
  /// one window starts early in a minute.
  static func startEarlyInAMinute() async throws {
    let second = Date().timeIntervalSince1970.truncatingRemainder(dividingBy: 60)
    if second > 45 { try await Task.sleep(for: .seconds(61 - second)) }
  }

  /// HTTP calls one forecast costs.
  static func callsPerForecast(_ service: ServiceFixtures.Service) -> Int {
    service == .openWeatherMap ? 2 : 1
  }

  @Test(arguments: services)
  func theFallbackServiceAnswersWhenTheFirstIsDown(_ primary: ServiceFixtures.Service) async throws
  {
    let fallback: ServiceFixtures.Service = primary == .openMeteo ? .weatherAPI : .openMeteo
    let harness = try await GatewayHarness.make(service: primary) {
      $0.weather.fallback = [Self.name(fallback)]
    }
    defer { Task { await harness.shutdown() } }
    harness.set(.status(503, "down for maintenance"), only: primary)
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("52.52,13.41")
    let frame = try #require(try await device.frames(1).first)
    #expect(frame.status == .ok)
    #expect(frame.service == Self.expected(fallback).0)
    #expect(harness.calls(to: primary) >= 1)
    #expect(harness.calls(to: fallback) == Self.callsPerForecast(fallback))
  }

  @Test(arguments: services)
  func pastItsBudgetNoCallIsSentAndTheAnswerIsStaleOrRateLimited(_ service: ServiceFixtures.Service)
    async throws
  {
    try await Self.startEarlyInAMinute()
    let perForecast = Self.callsPerForecast(service)
    let harness = try await GatewayHarness.make(service: service) {
      let budget = GatewayConfiguration.Budget(perMinute: 2 * perForecast, perDay: 100)
      $0.services[OpenMeteoService.self].budget = budget
      $0.services[OpenWeatherMapService.self].budget = budget
      $0.services[WeatherAPIService.self].budget = budget
      $0.services[METNorwayService.self].budget = budget
      $0.cache.ttlSeconds = 1
      $0.weather.batchWindowMilliseconds = 0
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("10.5,10.5")
    _ = try await device.frames(1)
    try device.ask("11.5,11.5")
    _ = try await device.frames(1)
    #expect(harness.calls(to: service) == 2 * perForecast)
    try await Task.sleep(for: .milliseconds(1_100))
    try device.ask("10.5,10.5;12.5,12.5")
    let frames = try await device.frames(2)
    #expect(frames.map(\.status) == [.stale, .rateLimited])
    #expect(harness.calls(to: service) == 2 * perForecast)
  }

  @Test func cellsMissingTogetherGoUpstreamInOneCall() async throws {
    let harness = try await GatewayHarness.make {
      $0.weather.batchWindowMilliseconds = 300
      $0.services[OpenMeteoService.self].batchSize = 5
    }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("1.5,1.5;2.5,2.5;3.5,3.5;4.5,4.5;5.5,5.5;6.5,6.5")
    let six = try await device.frames(6)
    #expect(six.allSatisfy { $0.status == .ok })
    try device.ask("7.5,7.5;8.5,8.5;9.5,9.5;10.5,10.5;11.5,11.5;12.5,12.5")
    _ = try await device.frames(6)
    // 12 cells, batches of 5, two windows: ⌈6/5⌉ + ⌈6/5⌉ = 4 calls instead of 12.
    let forecasts = harness.http.requests.filter { $0.path == "/v1/forecast" }
    #expect(forecasts.count == 4)
    #expect(
      forecasts.map { $0.query["latitude"]?.split(separator: ",").count ?? 0 }.sorted() == [
        1, 1, 5, 5,
      ])
  }

  @Test func aDeviceThatAsksTooOftenIsRateLimitedWithoutUpstreamCalls() async throws {
    try await Self.startEarlyInAMinute()
    let harness = try await GatewayHarness.make { $0.requests.perDevicePerMinute = 3 }
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    for index in 0..<3 { try device.ask("#\(index) \(20 + index).5,20.5") }
    #expect(try await device.frames(3).allSatisfy { $0.status == .ok })
    let calls = harness.calls(to: .openMeteo)
    try device.ask("#9 25.5,25.5")
    let limited = try #require(try await device.frames(1).first)
    #expect(limited.status == .rateLimited)
    #expect(limited.requestID == 9)
    #expect(harness.calls(to: .openMeteo) == calls)
    // Another device is not affected.
    let other = try await Device.frames(port: harness.broker.port)
    try other.ask("25.5,25.5")
    #expect(try await other.frames(1).first?.status == .ok)
  }

  @Test func positionsGetTheNameOfTheNearestPlace() async throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "cities-\(UUID().uuidString).txt")
    let line = [
      "2950159", "Berlin", "Berlin", "", "52.52437", "13.41053", "P", "PPLC", "DE", "", "16", "00",
      "11000", "11000000", "3426354", "74", "43", "Europe/Berlin", "2024-01-01",
    ]
    try (line.joined(separator: "\t") + "\n").write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    let geonames = try await GatewayHarness.make {
      $0.places.reverseGeocoding = .geonames
      $0.places.geonamesFile = file.path
    }
    defer { Task { await geonames.shutdown() } }
    try await geonames.start()
    let device = try await Device.frames(port: geonames.broker.port)
    try device.ask("52.51,13.40;-33.86,151.2")
    let frames = try await device.frames(2)
    #expect(frames[0].name.string == "Berlin")
    #expect(frames[0].country == CountryCode("DE"))
    #expect(frames[1].name.string == "-33.86,151.2")

    let owm = try await GatewayHarness.make(service: .openWeatherMap) {
      $0.places.reverseGeocoding = .auto
    }
    defer { Task { await owm.shutdown() } }
    try await owm.start()
    let second = try await Device.frames(port: owm.broker.port)
    try second.ask("59.9,10.7")
    let frame = try #require(try await second.frames(1).first)
    #expect(frame.name.string == "Oslo")
    #expect(owm.http.requests.contains { $0.path == "/geo/1.0/reverse" })
  }
}
