import AsyncHTTPClient
import Logging
import SkyframeProviders
import SkyframeTestSupport

/// A handler that answers by path from `routes`, and 404 with an empty body for any other path.
func routing(_ routes: [String: StubHTTPResponse])
  -> @Sendable (StubHTTPRequest) async ->
  StubHTTPResponse
{
  { request in routes[request.path] ?? StubHTTPResponse(status: 404) }
}

/// Runs `body` with a provider made by `makeProvider` for a fresh stub server's base URL; the
/// client and the server are shut down however `body` ends.
private func withStubbedProvider<Provider, Result>(
  answering handler: @escaping @Sendable (StubHTTPRequest) async -> StubHTTPResponse,
  makeProvider: (String, HTTPClient) -> Provider,
  _ body: (Provider, StubHTTPServer) async throws -> Result
) async throws -> Result {
  let server = try await StubHTTPServer.start(handler)
  let client = HTTPClient(eventLoopGroupProvider: .singleton)
  let provider = makeProvider(server.baseURL, client)
  let result: Result
  do {
    result = try await body(provider, server)
  } catch {
    try? await client.shutdown()
    try? await server.stop()
    throw error
  }
  try await client.shutdown()
  try await server.stop()
  return result
}

/// An `OpenWeatherMapProvider` pointed at a stub answering with `handler`; the base URL of
/// `configuration` is replaced by the stub's.
func withStubbedOpenWeatherMap<Result>(
  answering handler: @escaping @Sendable (StubHTTPRequest) async -> StubHTTPResponse,
  configuration: OpenWeatherMapConfiguration = OpenWeatherMapConfiguration(
    apiKey: "owm-test-key", timeout: .seconds(30)),
  logger: Logger = Logger(label: "skyframe.providers.test"),
  _ body: (OpenWeatherMapProvider, StubHTTPServer) async throws -> Result
) async throws -> Result {
  try await withStubbedProvider(
    answering: handler,
    makeProvider: { baseURL, client in
      var configuration = configuration
      configuration.baseURL = baseURL
      return OpenWeatherMapProvider(
        configuration: configuration, httpClient: client, logger: logger)
    }, body)
}

/// A `WeatherAPIProvider` pointed at a stub answering with `handler`; the base URL of
/// `configuration` is replaced by the stub's.
func withStubbedWeatherAPI<Result>(
  answering handler: @escaping @Sendable (StubHTTPRequest) async -> StubHTTPResponse,
  configuration: WeatherAPIConfiguration = WeatherAPIConfiguration(
    apiKey: "wapi-test-key", timeout: .seconds(30)),
  logger: Logger = Logger(label: "skyframe.providers.test"),
  _ body: (WeatherAPIProvider, StubHTTPServer) async throws -> Result
) async throws -> Result {
  try await withStubbedProvider(
    answering: handler,
    makeProvider: { baseURL, client in
      var configuration = configuration
      configuration.baseURL = baseURL
      return WeatherAPIProvider(configuration: configuration, httpClient: client, logger: logger)
    }, body)
}
