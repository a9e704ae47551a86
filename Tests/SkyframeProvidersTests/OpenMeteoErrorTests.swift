import AsyncHTTPClient
import Foundation
import Logging
import SkyframeProviders
import SkyframeTestSupport
import Testing

@Suite("Open-Meteo failures")
struct OpenMeteoErrorTests {
  static let point = GeoPoint(latitude: 52.52, longitude: 13.405)

  /// The error `forecasts(for:)` throws when the stub answers with `response`.
  private func forecastError(
    for response: StubHTTPResponse, timeout: Duration = .seconds(30)
  ) async throws -> ProviderError? {
    var configuration = OpenMeteoConfiguration()
    configuration.timeout = timeout
    return try await withStubbedOpenMeteo(answering: response, configuration: configuration) {
      provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.forecasts(for: [Self.point])
      }
    }
  }

  @Test("HTTP 400 carries Open-Meteo's reason")
  func badRequest() async throws {
    let error = try await forecastError(for: .json(ProviderFixtures.error400, status: 400))
    #expect(
      error == .rejected(status: 400, reason: "Forecast days is invalid. Allowed range 0 to 16."))
  }

  @Test("geocoding shares the error mapping")
  func geocodingBadRequest() async throws {
    let error = try await withStubbedOpenMeteo(
      answering: .json(ProviderFixtures.error400, status: 400)
    ) { provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.geocode(name: "Berlin", countryCode: nil)
      }
    }
    #expect(
      error == .rejected(status: 400, reason: "Forecast days is invalid. Allowed range 0 to 16."))
  }

  @Test("HTTP 429 is rate limiting, with the reason")
  func rateLimited() async throws {
    let error = try await forecastError(for: .json(ProviderFixtures.error429, status: 429))
    #expect(error == .rateLimited("Too many requests from this address. Slow down."))
  }

  @Test("A 429's Retry-After, in seconds or as a date, is passed on")
  func rateLimitedWithRetryAfter() async throws {
    var response = StubHTTPResponse.json(ProviderFixtures.error429, status: 429)
    response.headers.append(("Retry-After", "120"))
    #expect(
      try await forecastError(for: response)
        == .rateLimited("Too many requests from this address. Slow down.", retryAfterSeconds: 120))
    response.headers.removeLast()
    // A date 30 s ahead; the header has whole seconds, so at most 31 s are left when it is read,
    // and fewer the longer a loaded machine takes to get there (20: a date, not a default).
    let ahead = Date().addingTimeInterval(30)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    response.headers.append(("Retry-After", formatter.string(from: ahead)))
    guard case .rateLimited(_, let seconds?) = try await forecastError(for: response) else {
      Issue.record("no Retry-After read from an HTTP date")
      return
    }
    #expect((20...31).contains(seconds))
  }

  @Test("HTTP 401 and 403 are unauthorized")
  func unauthorized() async throws {
    let body = #"{"error":true,"reason":"API key is invalid."}"#
    #expect(
      try await forecastError(for: .json(body, status: 401)) == .unauthorized("API key is invalid.")
    )
    #expect(
      try await forecastError(for: .json(body, status: 403)) == .unauthorized("API key is invalid.")
    )
  }

  @Test("HTTP 503 with a plain-text body is unavailable and says the status")
  func serviceUnavailable() async throws {
    let response = StubHTTPResponse(
      status: 503, body: Array("upstream maintenance\n".utf8),
      headers: [("Content-Type", "text/plain")])
    let error = try await forecastError(for: response)
    #expect(error == .unavailable("HTTP 503: upstream maintenance"))
  }

  @Test("HTTP 502 without a body falls back to the status text")
  func badGatewayWithoutBody() async throws {
    let error = try await forecastError(for: StubHTTPResponse(status: 502))
    #expect(error == .unavailable("HTTP 502: Bad Gateway"))
  }

  @Test("an upstream slower than the timeout is unavailable soon after the timeout")
  func timeout() async throws {
    var response = StubHTTPResponse.json(ProviderFixtures.headerOnly)
    response.delay = .seconds(10)
    // The stub would answer in 10 s; the reason says the call ended at its own 0.3 s timeout
    // (an answer would have been a forecast). No wall-clock bound: a loaded machine is slow.
    let error = try await forecastError(for: response, timeout: .milliseconds(300))
    guard case .unavailable(let reason) = error else {
      Issue.record("expected .unavailable, got \(String(describing: error))")
      return
    }
    #expect(reason.hasPrefix("timeout after 0.3 s (http://127.0.0.1:"))
    #expect(reason.hasSuffix("/v1/forecast)"))
  }

  @Test("an upstream that stalls in the middle of the body is cut off at the timeout")
  func stalledBody() async throws {
    let response = StubHTTPResponse(
      status: 200, body: Array(ProviderFixtures.fullSingle.utf8), bodyDelay: .seconds(10))
    // Cut off at its own 0.3 s timeout (the reason says so); the stub would answer in 10 s.
    let error = try await forecastError(for: response, timeout: .milliseconds(300))
    guard case .unavailable(let reason) = error else {
      Issue.record("expected .unavailable, got \(String(describing: error))")
      return
    }
    #expect(reason.hasPrefix("timeout after 0.3 s"))
  }

  @Test("a connection closed without an answer is unavailable")
  func droppedConnection() async throws {
    // A bare TCP server that closes each connection once the request's head is in, on its event
    // loop. (The HTTP stub's own drop depends on its task and on its HTTP handlers letting the
    // close through, and once waited out a 120 s timeout.)
    let server = try await ClosingTCPServer.start()
    let port = server.port
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    let provider = OpenMeteoProvider(
      configuration: OpenMeteoConfiguration(
        forecastURL: "http://127.0.0.1:\(port)/v1/forecast", timeout: .seconds(60)),
      httpClient: client, logger: Logger(label: "skyframe.providers.test"))
    let error = await #expect(throws: ProviderError.self) {
      try await provider.forecasts(for: [Self.point])
    }
    try await client.shutdown()
    try await server.stop()
    guard case .unavailable(let reason) = error else {
      Issue.record("expected .unavailable, got \(String(describing: error))")
      return
    }
    #expect(reason.contains("connection closed"))
  }

  @Test("a refused connection is unavailable within the timeout")
  func connectionRefused() async throws {
    let server = try await StubHTTPServer.start { _ in .json("{}") }
    let closedURL = server.baseURL
    try await server.stop()
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    let provider = OpenMeteoProvider(
      configuration: OpenMeteoConfiguration(
        forecastURL: closedURL + "/v1/forecast", timeout: .milliseconds(500)),
      httpClient: client, logger: Logger(label: "skyframe.providers.test"))
    let error = await #expect(throws: ProviderError.self) {
      try await provider.forecasts(for: [Self.point])
    }
    try await client.shutdown()
    guard case .unavailable(let reason) = error else {
      Issue.record("expected .unavailable, got \(String(describing: error))")
      return
    }
    #expect(reason.contains(closedURL))
  }

  @Test("a 200 whose body is not JSON is malformed")
  func garbage() async throws {
    let error = try await forecastError(for: .json("<html>Oops</html>"))
    #expect(error == .malformed("body is neither a JSON object nor an array"))
    let truncated = try await forecastError(for: .json(#"{"utc_offset_seconds": 36"#))
    guard case .malformed(let reason) = truncated else {
      Issue.record("expected .malformed, got \(String(describing: truncated))")
      return
    }
    #expect(reason.hasPrefix("body is not valid JSON"))
  }

  @Test("a string where a number belongs is malformed and names the path")
  func wrongType() async throws {
    let error = try await forecastError(for: .json(ProviderFixtures.wrongType))
    guard case .malformed(let reason) = error else {
      Issue.record("expected .malformed, got \(String(describing: error))")
      return
    }
    #expect(reason.hasPrefix("hourly.temperature_2m[1]:"))
  }

  @Test("a block of the wrong kind is malformed and names it")
  func wrongBlock() async throws {
    let error = try await forecastError(for: .json(#"{"utc_offset_seconds":0,"daily":[1,2]}"#))
    guard case .malformed(let reason) = error else {
      Issue.record("expected .malformed, got \(String(describing: error))")
      return
    }
    #expect(reason.hasPrefix("daily:"))
  }

  @Test("without utc_offset_seconds no date can be placed: malformed")
  func missingOffset() async throws {
    let error = try await forecastError(for: .json(#"{"current":{"temperature_2m":3.5}}"#))
    #expect(error == .malformed("utc_offset_seconds is missing"))
  }

  @Test("an array answer must have one element per point")
  func wrongCount() async throws {
    let error = try await withStubbedOpenMeteo(answering: .json(#"[{"utc_offset_seconds":0}]"#)) {
      provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.forecasts(for: [Self.point, GeoPoint(latitude: 1, longitude: 2)])
      }
    }
    #expect(error == .malformed("expected 2 locations, got 1"))
  }

  @Test("in a batch, the failing location is named by its index")
  func batchPath() async throws {
    let error = try await withStubbedOpenMeteo(
      answering: .json(#"[{"utc_offset_seconds":0},{"hourly":{}}]"#)
    ) { provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.forecasts(for: [Self.point, GeoPoint(latitude: 1, longitude: 2)])
      }
    }
    #expect(error == .malformed("[1].utc_offset_seconds is missing"))
  }

  @Test("a body over 4 MiB is not read into memory: malformed")
  func oversizedBody() async throws {
    let padding = String(repeating: " ", count: 4 << 20)
    let error = try await forecastError(for: .json(#"{"utc_offset_seconds":0}"# + padding))
    #expect(error == .malformed("body larger than 4194304 bytes"))
  }
}

@Test("every provider error reads as a sentence for logs and status texts")
func providerErrorDescriptions() {
  #expect(ProviderError.rateLimited("slow down").description == "rate limited: slow down")
  #expect(
    ProviderError.rejected(status: 400, reason: "bad").description == "rejected (HTTP 400): bad")
  #expect(
    ProviderError.rejected(status: 0, reason: "latitude 91.0 is not in -90…90").description
      == "rejected before sending: latitude 91.0 is not in -90…90")
  #expect(ProviderError.unauthorized("no key").description == "unauthorized: no key")
  #expect(ProviderError.unavailable("HTTP 503: x").description == "unavailable: HTTP 503: x")
  #expect(ProviderError.malformed("daily: y").description == "malformed response: daily: y")
  #expect(ProviderError.outdated("z").description == "outdated answer: z")
}
