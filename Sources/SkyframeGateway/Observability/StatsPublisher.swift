import Logging
import ServiceLifecycle
import SkyframeMQTT
import Synchronization

/// The status document, retained on `{base}/v1/gateway/stats` every `metrics.stats-seconds` (and
/// at every connect, by the gateway), for people who only have MQTT:
/// `mosquitto_sub -t skyframe/v1/gateway/stats`.
final class StatsPublisher: Service, Sendable {
  private let gateway: Gateway
  private let logger: Logger

  init(gateway: Gateway, logger: Logger) {
    self.gateway = gateway
    self.logger = logger
  }

  func run() async {
    // The wait between messages ends at once on shutdown.
    await cancelWhenGracefulShutdown { await self.publishEvery() }
  }

  private func publishEvery() async {
    while !Task.isCancelled {
      let seconds = gateway.configuration.withLock { $0.metrics.statsSeconds }
      try? await gateway.clock.sleep(for: .seconds(seconds > 0 ? seconds : 60))
      // 0 turns it off; a reload may turn it on again. The first went out at the connect.
      if gateway.isConnected { gateway.publishStats() }
    }
  }
}
