import Logging
import ServiceLifecycle
import Synchronization
import UnixSignals

/// Reloads the configuration file on SIGHUP and hands it to the gateway, without touching the
/// MQTT connection. A file that does not check out is refused with the same messages as
/// `skyframe config check`, and the running configuration stays.
final class ConfigReloader: Service, Sendable {
  let path: String
  let gateway: Gateway
  let logger: Logger

  init(path: String, gateway: Gateway, logger: Logger) {
    self.path = path
    self.gateway = gateway
    self.logger = logger
  }

  func run() async throws {
    for await _ in await UnixSignalsSequence(trapping: .sighup).cancelOnGracefulShutdown() {
      logger.info("SIGHUP: reloading the configuration", metadata: ["path": "\(path)"])
      // The same parts as the running configuration, so that their sections are read again.
      let parts = gateway.configuration.withLock(\.parts)
      do {
        gateway.apply(
          try await GatewayConfiguration.load(path: path, parts: parts) {
            logger.warning("\($0)")
          })
      } catch {
        logger.error("reload refused, keeping the running configuration:\n\(error)")
      }
    }
  }
}
