extension GatewayConfiguration {
  /// The core's keys bound at start, in the order `keepingRestartOnlyKeys` checks them.
  static let coreRestartOnlyKeys = [
    "mqtt", "topics.base", "requests.workers", "metrics.host", "metrics.port", "cluster",
  ]

  /// Every key that keeps its running value until a restart: the core's, then each part's.
  package static func restartOnlyKeys(parts: [PartKind]) -> [String] {
    coreRestartOnlyKeys + parts.compactMap(\.section).flatMap { $0.restartOnlyKeys }
  }

  /// This configuration with the values bound at start (the MQTT connection, the topic base, the
  /// number of workers, the metrics listener, the cluster; parts name their own) taken from
  /// `running`, and the names of those it would have changed: a reload keeps them until a
  /// restart.
  func keepingRestartOnlyKeys(of running: GatewayConfiguration) -> (
    GatewayConfiguration, changed: [String]
  ) {
    var kept = self
    let restartOnly: [(String, Bool)] = Array(
      zip(
        Self.coreRestartOnlyKeys,
        [
          running.mqtt != mqtt, running.topics.base != topics.base,
          running.requests.workers != requests.workers, running.metrics.host != metrics.host,
          running.metrics.port != metrics.port, running.cluster != cluster,
        ]))
    kept.mqtt = running.mqtt
    kept.topics.base = running.topics.base
    kept.requests.workers = running.requests.workers
    kept.metrics.host = running.metrics.host
    kept.metrics.port = running.metrics.port
    kept.cluster = running.cluster
    return (kept, restartOnly.filter(\.1).map(\.0))
  }
}
