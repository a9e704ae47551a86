import AsyncHTTPClient
import Logging
import NIOHTTPCompression
import ServiceLifecycle
import UnixSignals

/// Wires the gateway from a configuration: what `skyframe run` starts, and what the tests start
/// in-process with a configuration of their own.
public enum SkyframeApplication {
  /// Runs until SIGTERM or SIGINT (or `body`'s group is shut down), then stops gracefully.
  ///
  /// - Parameter configurationPath: reloaded on SIGHUP when given.
  public static func run(
    configuration: GatewayConfiguration, configurationPath: String?, logger: Logger,
    signals: Bool = true, clock: GatewayClock = .system,
    started: (@Sendable (ServiceGroup) -> Void)? = nil
  ) async throws {
    try await run(
      configuration: configuration, configurationPath: configurationPath, logger: logger,
      signals: signals, clock: clock, extraParts: [], started: started)
  }

  /// `run` with parts a test brings besides the listed ones (`Gateway.init(extraParts:)`).
  static func run(
    configuration: GatewayConfiguration, configurationPath: String?, logger: Logger,
    signals: Bool = true, clock: GatewayClock = .system,
    extraParts: [@Sendable (PartContext) -> (any GatewayPart)?],
    started: (@Sendable (ServiceGroup) -> Void)? = nil
  ) async throws {
    var http = HTTPClient.Configuration()
    // A refused connection fails the call at once (and the answer is stale from the cache at
    // once) instead of being retried until the request's whole timeout has passed.
    http.connectionPool.retryConnectionEstablishment = false
    // Bodies may come gzip-compressed (MET Norway asks clients to accept it); the client then
    // sends `Accept-Encoding` itself.
    http.decompression = .enabled(limit: .size(64 << 20))
    let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
    do {
      let gateway = try Gateway(
        configuration: configuration, httpClient: httpClient, logger: logger, clock: clock,
        extraParts: extraParts)
      // Started in this order, stopped in reverse: the connection outlives the workers that
      // publish through it.
      // The metrics listener opens first: a taken port stops the gateway before it connects to
      // the broker, with an error that names metrics.port.
      var metricsServer: MetricsServer?
      if configuration.metrics.port > 0 {
        let server = MetricsServer(
          host: configuration.metrics.host, port: configuration.metrics.port, gateway: gateway,
          logger: logger)
        try await server.bind()
        metricsServer = server
      }
      var services: [any Service] = gateway.runningServices
      if let metricsServer { services.append(metricsServer) }
      services.append(StatsPublisher(gateway: gateway, logger: logger))
      if let configurationPath {
        services.append(ConfigReloader(path: configurationPath, gateway: gateway, logger: logger))
      }
      let group = ServiceGroup(
        configuration: ServiceGroupConfiguration(
          services: services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
          gracefulShutdownSignals: signals ? [.sigterm, .sigint] : [],
          logger: logger))
      started?(group)
      try await group.run()
    } catch {
      try? await httpClient.shutdown()
      throw error
    }
    try await httpClient.shutdown()
  }
}
