import SkyframeGateway
import Synchronization

import class Prometheus.Counter
import class Prometheus.Gauge
import struct Prometheus.MetricNameDescriptor
import class Prometheus.PrometheusCollectorRegistry

/// The LoRaWAN connections' numbers in the gateway's Prometheus registry, by server:
/// `skyframe_lorawan_uplinks_total{server,outcome}`, `skyframe_lorawan_downlinks_total{server,kind}`
/// (`tiny`, `unchanged`, `error`), `skyframe_lorawan_downlinks_withheld_total{server,reason}`
/// (`size`, `data_rate`, `busy`, `publish_failed`) and `skyframe_lorawan_connected{server}`
/// (1 while connected). The series are keyed by configured server names and fixed label
/// values only (nothing an uplink carries), so the tables hold at most servers × labels.
final class LoRaWANMetrics: Sendable {
  private let registry: PrometheusCollectorRegistry
  private let counters = Mutex<[String: Counter]>([:])
  private let gauges = Mutex<[String: Gauge]>([:])

  init(registry: PrometheusCollectorRegistry) {
    self.registry = registry
  }

  func uplink(_ server: String, _ outcome: String) {
    count("skyframe_lorawan_uplinks_total", server, "outcome", outcome)
  }

  func downlink(_ server: String, _ kind: String) {
    count("skyframe_lorawan_downlinks_total", server, "kind", kind)
  }

  func withheld(_ server: String, _ reason: String) {
    count("skyframe_lorawan_downlinks_withheld_total", server, "reason", reason)
  }

  func connected(_ server: String, _ up: Bool) {
    let gauge = gauges.withLock { gauges in
      if let gauge = gauges[server] { return gauge }
      let gauge = registry.makeGauge(
        descriptor: MetricNameDescriptor(
          metricName: "skyframe_lorawan_connected", unitName: "",
          helpText: "1 while the LoRaWAN network server connection is up"),
        labels: [("server", server)])
      gauges[server] = gauge
      return gauge
    }
    gauge.set(up ? 1.0 : 0.0)
  }

  private func count(_ name: String, _ server: String, _ label: String, _ value: String) {
    let key = "\(name)/\(server)/\(value)"
    let counter = counters.withLock { counters in
      if let counter = counters[key] { return counter }
      let counter = registry.makeCounter(
        descriptor: MetricNameDescriptor(metricName: name, unitName: "", helpText: ""),
        labels: [("server", server), (label, value)])
      counters[key] = counter
      return counter
    }
    counter.increment()
  }
}
