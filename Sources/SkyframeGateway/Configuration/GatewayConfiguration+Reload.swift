extension GatewayConfiguration {
  /// This configuration with the values bound at start (the MQTT connection, the topic base, the
  /// number of workers, the metrics listener, the cluster; parts name their own) taken from
  /// `running`, and the names of those it would have changed: a reload keeps them until a
  /// restart.
  func keepingRestartOnlyKeys(of running: GatewayConfiguration) -> (
    GatewayConfiguration, changed: [String]
  ) {
    var kept = self
    let restartOnly: [(String, Bool)] = [
      ("mqtt", running.mqtt != mqtt), ("topics.base", running.topics.base != topics.base),
      ("requests.workers", running.requests.workers != requests.workers),
      ("metrics.host", running.metrics.host != metrics.host),
      ("metrics.port", running.metrics.port != metrics.port),
      ("cluster", running.cluster != cluster),
    ]
    kept.mqtt = running.mqtt
    kept.topics.base = running.topics.base
    kept.requests.workers = running.requests.workers
    kept.metrics.host = running.metrics.host
    kept.metrics.port = running.metrics.port
    kept.cluster = running.cluster
    return (kept, restartOnly.filter(\.1).map(\.0))
  }
}
