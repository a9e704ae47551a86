import AsyncHTTPClient
import Logging
import SkyframeProviders
import SkyframeTestSupport
import Synchronization

/// Runs `body` with an `OpenMeteoProvider` pointed at a fresh stub server that answers with
/// `handler`; the client and the server are shut down however `body` ends. The URLs of
/// `configuration` are replaced by the stub's.
func withStubbedOpenMeteo<Result>(
  answering handler: @escaping @Sendable (StubHTTPRequest) async -> StubHTTPResponse,
  configuration: OpenMeteoConfiguration = OpenMeteoConfiguration(timeout: .seconds(30)),
  logger: Logger = Logger(label: "skyframe.providers.test"),
  _ body: (OpenMeteoProvider, StubHTTPServer) async throws -> Result
) async throws -> Result {
  let server = try await StubHTTPServer.start(handler)
  let client = HTTPClient(eventLoopGroupProvider: .singleton)
  var configuration = configuration
  configuration.forecastURL = server.baseURL + "/v1/forecast"
  configuration.geocodingURL = server.baseURL + "/v1/search"
  let provider = OpenMeteoProvider(configuration: configuration, httpClient: client, logger: logger)
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

/// The same, answering every request with `response`.
func withStubbedOpenMeteo<Result>(
  answering response: StubHTTPResponse,
  configuration: OpenMeteoConfiguration = OpenMeteoConfiguration(timeout: .seconds(30)),
  logger: Logger = Logger(label: "skyframe.providers.test"),
  _ body: (OpenMeteoProvider, StubHTTPServer) async throws -> Result
) async throws -> Result {
  try await withStubbedOpenMeteo(
    answering: { _ in response }, configuration: configuration, logger: logger, body)
}

/// Keeps every log line, to check what the provider logs.
final class LogCapture: Sendable {
  struct Line: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: [String: String]
  }

  private let stored = Mutex<[Line]>([])

  var lines: [Line] { stored.withLock { $0 } }

  var logger: Logger {
    var logger = Logger(label: "skyframe.providers.test") { _ in Handler(capture: self) }
    logger.logLevel = .trace
    return logger
  }

  private struct Handler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      let merged = metadata.merging(event.metadata ?? [:]) { $1 }
      let line = Line(
        level: event.level, message: "\(event.message)",
        metadata: merged.mapValues { "\($0)" })
      capture.stored.withLock { $0.append(line) }
    }
  }
}
