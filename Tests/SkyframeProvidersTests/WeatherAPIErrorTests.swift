import SkyframeProviders
import SkyframeTestSupport
import Testing

@Suite("WeatherAPI.com failures")
struct WeatherAPIErrorTests {
  static let point = GeoPoint(latitude: 27.72, longitude: 85.32)

  /// The error `forecasts(for:)` throws when the stub answers with `response`.
  private func forecastError(
    for response: StubHTTPResponse, timeout: Duration = .seconds(30)
  ) async throws -> ProviderError? {
    try await withStubbedWeatherAPI(
      answering: routing(["/v1/forecast.json": response]),
      configuration: WeatherAPIConfiguration(apiKey: "wapi-test-key", timeout: timeout)
    ) { provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.forecasts(for: [Self.point])
      }
    }
  }

  private func serviceError(_ code: Int, _ message: String, status: Int) async throws
    -> ProviderError?
  {
    try await forecastError(for: .json(WeatherAPIFixtures.error(code, message), status: status))
  }

  @Test("1006, no location at these coordinates, is rejected as a bad request")
  func noLocation() async throws {
    #expect(
      try await serviceError(1006, "Nothing here.", status: 400)
        == .rejected(status: 400, reason: "Nothing here."))
  }

  @Test("1002 and 2006 (key missing or wrong, HTTP 401) are unauthorized")
  func badKey() async throws {
    #expect(
      try await serviceError(2006, "Key unknown.", status: 401) == .unauthorized("Key unknown."))
    #expect(
      try await serviceError(1002, "Key missing.", status: 401) == .unauthorized("Key missing."))
  }

  @Test("2007 (quota, HTTP 403) is rate limiting; 2008 and 2009 (key disabled) are unauthorized")
  func forbidden() async throws {
    #expect(
      try await serviceError(2007, "Monthly calls used up.", status: 403)
        == .rateLimited("Monthly calls used up."))
    #expect(
      try await serviceError(2008, "Key switched off.", status: 403)
        == .unauthorized("Key switched off."))
    #expect(
      try await serviceError(2009, "Not in this plan.", status: 403)
        == .unauthorized("Not in this plan."))
  }

  @Test("1003 and 1005 (q missing, bad URL) are rejected")
  func badRequest() async throws {
    #expect(
      try await serviceError(1003, "q is empty.", status: 400)
        == .rejected(status: 400, reason: "q is empty."))
    #expect(
      try await serviceError(1005, "Bad request URL.", status: 400)
        == .rejected(status: 400, reason: "Bad request URL."))
  }

  @Test("9999 (the service's internal error) and 5xx are unavailable")
  func unavailable() async throws {
    #expect(
      try await serviceError(9999, "Something broke.", status: 400)
        == .unavailable("error 9999: Something broke."))
    let plain = StubHTTPResponse(
      status: 502, body: Array("gateway trouble".utf8), headers: [("Content-Type", "text/plain")])
    #expect(try await forecastError(for: plain) == .unavailable("HTTP 502: gateway trouble"))
  }

  @Test("without a known code the HTTP status decides")
  func unknownCode() async throws {
    #expect(
      try await forecastError(for: StubHTTPResponse(status: 429))
        == .rateLimited("Too Many Requests"))
    #expect(
      try await serviceError(4242, "New kind of trouble.", status: 404)
        == .rejected(status: 404, reason: "New kind of trouble."))
  }

  @Test("an upstream slower than the timeout is unavailable, without the key in the text")
  func timeout() async throws {
    var slow = StubHTTPResponse.json(WeatherAPIFixtures.kathmandu)
    slow.delay = .seconds(10)
    // Cut off at its own 0.3 s timeout (the reason says so); the stub would answer in 10 s.
    let error = try await forecastError(for: slow, timeout: .milliseconds(300))
    guard case .unavailable(let reason) = error else {
      Issue.record("expected .unavailable, got \(String(describing: error))")
      return
    }
    #expect(reason.hasPrefix("timeout after 0.3 s (http://127.0.0.1:"))
    #expect(reason.hasSuffix("/v1/forecast.json)"))
    #expect(!reason.contains("wapi-test-key"))
  }

  @Test("a 200 that is not JSON, or has a value of the wrong type, is malformed")
  func malformed() async throws {
    let garbage = try await forecastError(for: .json("Service temporarily down"))
    guard case .malformed(let garbageReason) = garbage else {
      Issue.record("expected .malformed, got \(String(describing: garbage))")
      return
    }
    #expect(garbageReason.hasPrefix("body is not valid JSON"))

    let wrongType = try await forecastError(
      for: .json(
        #"{"location":{"localtime_epoch":1,"localtime":"1970-01-01 0:00"},"current":{"temp_c":"hot"}}"#
      ))
    guard case .malformed(let reason) = wrongType else {
      Issue.record("expected .malformed, got \(String(describing: wrongType))")
      return
    }
    #expect(reason.hasPrefix("current.temp_c:"))
  }

  @Test("without a readable local time no date can be placed: malformed")
  func localTime() async throws {
    #expect(
      try await forecastError(for: .json(#"{"current":{"temp_c":3.0}}"#))
        == .malformed("location.localtime or location.localtime_epoch is missing"))
    #expect(
      try await forecastError(
        for: .json(#"{"location":{"localtime_epoch":1741576837,"localtime":"10/03/2025 9:05"}}"#))
        == .malformed(
          "location.localtime \"10/03/2025 9:05\" is not a local time near 1741576837"))
    #expect(
      try await forecastError(
        for: .json(#"{"location":{"localtime_epoch":1741576837,"localtime":"2025-03-12 9:05"}}"#))
        == .malformed(
          "location.localtime \"2025-03-12 9:05\" is not a local time near 1741576837"))
  }

  @Test("the key is sent as key but never logged; each call logs URL, status and duration")
  func apiKeyNeverLogged() async throws {
    let capture = LogCapture()
    let requests = try await withStubbedWeatherAPI(
      answering: routing([
        "/v1/forecast.json": .json(WeatherAPIFixtures.kathmandu),
        "/v1/search.json": .json(WeatherAPIFixtures.error(2006, "Key unknown."), status: 401),
      ]),
      configuration: WeatherAPIConfiguration(apiKey: "s3cr3t-wapi"), logger: capture.logger
    ) { provider, server in
      _ = try await provider.forecasts(for: [Self.point])
      let error = await #expect(throws: ProviderError.self) {
        try await provider.geocode(name: "Kathmandu", countryCode: nil)
      }
      #expect(error?.description.contains("s3cr3t") == false)
      return server.requests
    }
    #expect(requests.count == 2)
    #expect(requests.allSatisfy { $0.query["key"] == "s3cr3t-wapi" })
    let calls = capture.lines.filter { $0.metadata["url"] != nil }
    let urls = calls.compactMap { $0.metadata["url"] }
    #expect(urls.count == 2)
    #expect(
      urls.first?.hasSuffix("/v1/forecast.json?q=27.72,85.32&days=3&aqi=no&alerts=no") == true)
    #expect(urls.last?.hasSuffix("/v1/search.json?q=Kathmandu") == true)
    #expect(calls.map { $0.metadata["status"] } == ["200", "401"])
    #expect(!capture.lines.contains { "\($0.message) \($0.metadata)".contains("s3cr3t") })
  }
}
