import SkyframeProviders
import SkyframeTestSupport
import Testing

@Suite("OpenWeatherMap failures")
struct OpenWeatherMapErrorTests {
  static let point = GeoPoint(latitude: 18.5204, longitude: 73.8567)

  /// The error `forecasts(for:)` throws when the current-weather call is answered with
  /// `response` and the forecast call succeeds.
  private func forecastError(
    for response: StubHTTPResponse, timeout: Duration = .seconds(30), oneCall: Bool = false
  ) async throws -> ProviderError? {
    let configuration = OpenWeatherMapConfiguration(
      apiKey: "owm-test-key", timeout: timeout, useOneCall: oneCall)
    return try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": response, "/data/3.0/onecall": response,
        "/data/2.5/forecast": .json(OpenWeatherMapFixtures.puneForecast),
      ]),
      configuration: configuration
    ) { provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.forecasts(for: [Self.point])
      }
    }
  }

  @Test("401 with a numeric cod is unauthorized, with the service's message")
  func unauthorized() async throws {
    let error = try await forecastError(
      for: .json(OpenWeatherMapFixtures.error401, status: 401))
    #expect(error == .unauthorized("Key not accepted: check the appid."))
  }

  @Test("404 with a string cod is rejected, with the service's message")
  func notFound() async throws {
    let error = try await forecastError(
      for: .json(OpenWeatherMapFixtures.error404, status: 404))
    #expect(error == .rejected(status: 404, reason: "no such place"))
  }

  @Test("400 is rejected")
  func badRequest() async throws {
    let error = try await forecastError(
      for: .json(OpenWeatherMapFixtures.error400, status: 400))
    #expect(error == .rejected(status: 400, reason: "lat is not a number"))
  }

  @Test("429 is rate limiting")
  func rateLimited() async throws {
    let error = try await forecastError(
      for: .json(OpenWeatherMapFixtures.error429, status: 429))
    #expect(error == .rateLimited("Call rate over the plan's allowance."))
  }

  @Test("5xx is unavailable, with the body or the status text")
  func serverErrors() async throws {
    let plain = StubHTTPResponse(
      status: 503, body: Array("backend busy\n".utf8), headers: [("Content-Type", "text/plain")])
    #expect(try await forecastError(for: plain) == .unavailable("HTTP 503: backend busy"))
    #expect(
      try await forecastError(for: StubHTTPResponse(status: 500))
        == .unavailable("HTTP 500: Internal Server Error"))
  }

  @Test("a failing forecast call fails the point even when the current weather succeeds")
  func forecastCallFails() async throws {
    let error = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": .json(OpenWeatherMapFixtures.puneWeather),
        "/data/2.5/forecast": .json(OpenWeatherMapFixtures.error429, status: 429),
      ])
    ) { provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.forecasts(for: [Self.point])
      }
    }
    #expect(error == .rateLimited("Call rate over the plan's allowance."))
  }

  @Test("an upstream slower than the timeout is unavailable, without the key in the text")
  func timeout() async throws {
    var slow = StubHTTPResponse.json(OpenWeatherMapFixtures.puneWeather)
    slow.delay = .seconds(10)
    // Cut off at its own 0.3 s timeout (the reason says so); the stub would answer in 10 s.
    let error = try await forecastError(for: slow, timeout: .milliseconds(300))
    guard case .unavailable(let reason) = error else {
      Issue.record("expected .unavailable, got \(String(describing: error))")
      return
    }
    #expect(reason.hasPrefix("timeout after 0.3 s (http://127.0.0.1:"))
    #expect(reason.hasSuffix("/data/2.5/weather)"))
    #expect(!reason.contains("owm-test-key"))
  }

  @Test("a 200 that is not JSON, or has a value of the wrong type, is malformed")
  func malformed() async throws {
    let html = try await forecastError(for: .json("<html>maintenance</html>"))
    guard case .malformed(let htmlReason) = html else {
      Issue.record("expected .malformed, got \(String(describing: html))")
      return
    }
    #expect(htmlReason.hasPrefix("body is not valid JSON"))

    let wrongType = try await forecastError(for: .json(#"{"dt":1,"main":{"temp":"warm"}}"#))
    guard case .malformed(let reason) = wrongType else {
      Issue.record("expected .malformed, got \(String(describing: wrongType))")
      return
    }
    #expect(reason.hasPrefix("main.temp:"))
  }

  @Test("without a UTC offset in either answer no date can be placed: malformed")
  func missingOffset() async throws {
    let error = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": .json(#"{"dt":1741596600,"cod":200}"#),
        "/data/2.5/forecast": .json(#"{"cod":"200","list":[]}"#),
      ])
    ) { provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.forecasts(for: [Self.point])
      }
    }
    #expect(
      error == .malformed("timezone is missing from both the weather and the forecast answer"))
  }

  @Test("One Call shares the error mapping and needs timezone_offset or a known timezone")
  func oneCallErrors() async throws {
    #expect(
      try await forecastError(
        for: .json(OpenWeatherMapFixtures.error401, status: 401), oneCall: true)
        == .unauthorized("Key not accepted: check the appid."))
    #expect(
      try await forecastError(for: .json(#"{"lat":1,"lon":2}"#), oneCall: true)
        == .malformed("timezone_offset and timezone are missing"))
    #expect(
      try await forecastError(
        for: .json(#"{"lat":1,"lon":2,"timezone":"Atlantis/Poseidonia","current":{"dt":1}}"#),
        oneCall: true)
        == .malformed(
          "timezone_offset is missing and timezone \"Atlantis/Poseidonia\" is no IANA zone"))
  }

  @Test("the key is sent as appid but never logged; each call logs URL, status and duration")
  func apiKeyNeverLogged() async throws {
    let capture = LogCapture()
    let configuration = OpenWeatherMapConfiguration(apiKey: "s3cr3t-owm")
    let requests = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/data/2.5/weather": .json(OpenWeatherMapFixtures.puneWeather),
        "/data/2.5/forecast": .json(OpenWeatherMapFixtures.puneForecast),
        "/geo/1.0/direct": .json(OpenWeatherMapFixtures.error401, status: 401),
      ]),
      configuration: configuration, logger: capture.logger
    ) { provider, server in
      _ = try await provider.forecasts(for: [Self.point])
      _ = try? await provider.geocode(name: "Pune", countryCode: "IN")
      return server.requests
    }
    #expect(requests.count == 3)
    #expect(requests.allSatisfy { $0.query["appid"] == "s3cr3t-owm" })
    let calls = capture.lines.filter { $0.metadata["url"] != nil }
    let urls = calls.compactMap { $0.metadata["url"] }
    #expect(urls.count == 3)
    #expect(
      urls.contains { $0.hasSuffix("/data/2.5/weather?lat=18.5204&lon=73.8567&units=metric") })
    #expect(urls.contains { $0.hasSuffix("/geo/1.0/direct?q=Pune,IN&limit=5") })
    #expect(calls.allSatisfy { $0.metadata["duration_ms"] != nil && $0.metadata["status"] != nil })
    #expect(!capture.lines.contains { "\($0.message) \($0.metadata)".contains("s3cr3t") })
  }
}
