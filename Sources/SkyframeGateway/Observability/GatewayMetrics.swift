import CoreMetrics
import Metrics
import SkyframeCodec
import Synchronization

import class Prometheus.PrometheusCollectorRegistry
import struct Prometheus.PrometheusMetricsFactory

/// What the gateway records about itself. Each event is counted once: the counters that the
/// stats message and `/health` also sum are single relaxed atomics (`AtomicCounters`), written
/// into the Prometheus text beside the registry's own metrics (as the request histogram is);
/// the rest (gauges, the upstream call timer, the profile counters) go through swift-metrics into
/// the gateway's own Prometheus registry (one per gateway, so several can run in one process).
/// Every handle is made once, here: recording on a request's path is an atomic add, never a
/// lookup by label.
package final class GatewayMetrics: Sendable {
  /// Running totals, for the stats message.
  struct Totals: Sendable, Equatable {
    /// By status byte; the last slot counts statuses this version does not know.
    var answers = [Int](repeating: 0, count: FrameStatus.allKnown.count + 1)
    var queueDropped = 0
    var cacheHits = 0
    var cacheMisses = 0
    var cacheStale = 0
    var upstreamCalls = 0
    var upstreamFailures = 0
    var upstreamRefused = 0
    var upstreamPaused = 0
    var responseTopicsRefused = 0
    var unansweredOverLimit = 0
    var publishFailures = 0
    var reconnects = 0
    var savedSameRun = 0
  }

  package let registry = PrometheusCollectorRegistry()
  private let factory: PrometheusMetricsFactory
  /// Answers in `large` and `tiny` (standard is the rest), and `unchanged` answers per profile.
  private let unchangedAnswers: [Counter]
  /// Recorded for every request, on the hit path: our own lock-free histogram (see there).
  let requestDuration: NanosecondHistogram
  /// Under the models' runs, the age of the newest run behind each weather answer (now minus its
  /// initialisation), by the hour.
  let runAge: NanosecondHistogram
  let queueDepth: Gauge
  let brokerConnected: Gauge
  /// Devices on the fast lane now.
  let fastLaneDevices: Gauge
  /// The counters counted once: the named ones, then one per answer status.
  private let totals = AtomicCounters(count: Total.answers.rawValue + Totals().answers.count)
  /// Every weather service's handles, as they are made (one per service, at assembly).
  private let upstreams = Mutex<[Upstream]>([])

  private enum Total: Int, CaseIterable {
    case queueDropped, cacheHits, cacheMisses, cacheStale, upstreamRefused
    case responseTopicsRefused, unansweredOverLimit, unansweredSecondCopies, unansweredReplayed
    case unansweredTakenOver, publishFailures
    case reconnects, savedSameRun
    /// Answers in the `large` and `tiny` profiles (`standard`: every other answer).
    case largeAnswers, tinyAnswers
    /// The first of the answers by status.
    case answers
  }

  /// How each counter is shown in the Prometheus text: its name and labels, in order (one
  /// `# TYPE` line per name, before its first series).
  private static let exposed: [(Total, String, String)] = [
    (.queueDropped, "skyframe_queue_dropped_total", ""),
    (.cacheHits, "skyframe_cache_lookups_total", "{result=\"hit\"}"),
    (.cacheMisses, "skyframe_cache_lookups_total", "{result=\"miss\"}"),
    (.cacheStale, "skyframe_cache_lookups_total", "{result=\"stale\"}"),
    (.upstreamRefused, "skyframe_upstream_refused_total", "{reason=\"new-cell-limit\"}"),
    (.responseTopicsRefused, "skyframe_response_topics_refused_total", ""),
    (.unansweredOverLimit, "skyframe_requests_unanswered_total", "{reason=\"over-limit\"}"),
    (.unansweredSecondCopies, "skyframe_requests_unanswered_total", "{reason=\"second-copy\"}"),
    (.unansweredReplayed, "skyframe_requests_unanswered_total", "{reason=\"replayed\"}"),
    (.unansweredTakenOver, "skyframe_requests_unanswered_total", "{reason=\"taken-over\"}"),
    (.publishFailures, "skyframe_publish_failures_total", ""),
    (.reconnects, "skyframe_broker_reconnects_total", ""),
    (.savedSameRun, "skyframe_upstream_calls_skipped_total", "{reason=\"same-run\"}"),
  ]

  private func count(_ total: Total) { totals.add(at: total.rawValue) }

  init() {
    var factory = PrometheusMetricsFactory(registry: registry)
    let fine: [Duration] = [
      .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
      .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
      .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
      .seconds(1), .milliseconds(2_500), .seconds(5), .seconds(10),
    ]
    factory.durationHistogramBuckets["skyframe_upstream_duration_seconds"] = fine
    self.factory = factory
    unchangedAnswers = FrameProfile.allCases.map { profile in
      Counter(
        label: "skyframe_unchanged_answers_total", dimensions: [("profile", "\(profile.name)")],
        factory: factory)
    }
    requestDuration = NanosecondHistogram(
      name: "skyframe_request_duration_seconds", bounds: fine)
    runAge = NanosecondHistogram(
      name: "skyframe_answer_run_age_seconds",
      bounds: [1, 2, 3, 4, 6, 8, 12, 24].map { Duration.seconds($0 * 3_600) })
    queueDepth = Gauge(label: "skyframe_queue_depth", factory: factory)
    brokerConnected = Gauge(label: "skyframe_broker_connected", factory: factory)
    fastLaneDevices = Gauge(label: "skyframe_fast_lane_devices", factory: factory)
  }

  // MARK: Requests

  /// One frame sent in answer to a request (a request for several places counts once per place).
  package func answered(
    _ status: FrameStatus, profile: FrameProfile = .standard, unchanged: Bool = false
  ) {
    totals.add(at: Total.answers.rawValue + min(Int(status.rawValue), FrameStatus.allKnown.count))
    // Standard answers without a check, the hot path, touch nothing more.
    if profile != .standard { count(profile == .large ? .largeAnswers : .tinyAnswers) }
    if unchanged { unchangedAnswers[Int(profile.rawValue)].increment() }
  }

  /// For a weather answer from a frame fetched under the models' runs, the age of the run behind
  /// it (the clock is read only for those): a comparison or a few and two relaxed atomic adds.
  package func answered(_ outcome: Outcome, at time: @autoclosure () -> Int64) {
    guard case .weather(let frame, _, _) = outcome, frame.runStartedAt > 0 else { return }
    runAge.recordNanoseconds((time() &- frame.runStartedAt) &* 1_000_000_000)
  }

  func dropped() {
    count(.queueDropped)
  }

  /// A request whose MQTT v5 response topic was not the device's own: answered `bad_request` on
  /// its frame topic.
  func refusedResponseTopic() {
    count(.responseTopicsRefused)
  }

  /// A request from a device already told `rate_limited` this minute: dropped unparsed.
  func leftUnanswered() {
    count(.unansweredOverLimit)
  }

  /// The second copy of a request that came both on the fast lane and in the stream: dropped.
  func droppedSecondCopy() {
    count(.unansweredSecondCopies)
  }

  /// A QoS 1 request taken before, delivered again by the broker after a restart: dropped.
  func droppedReplay() {
    count(.unansweredReplayed)
  }

  /// A request a member's session held from before it started, answered meanwhile by the
  /// members that took its devices over: dropped.
  func droppedTakenOver() {
    count(.unansweredTakenOver)
  }

  /// A cell kept past its time-to-live because no model has a newer run: a call saved.
  func savedSameRun() { count(.savedSameRun) }

  func refusedNewCell() {
    count(.upstreamRefused)
  }

  // MARK: Cache

  package func cacheHit() {
    count(.cacheHits)
  }

  func cacheMiss() {
    count(.cacheMisses)
  }

  func servedStale() {
    count(.cacheStale)
  }

  func cacheEntries(_ table: String) -> Gauge {
    Gauge(label: "skyframe_cache_entries", dimensions: [("table", table)], factory: factory)
  }

  // MARK: Upstream

  /// The handles for one weather service's calls, made when the service is assembled.
  struct Upstream: Sendable {
    let service: String
    /// Calls by result, in `upstreamResults` order: counted once, here.
    let results = AtomicCounters(count: GatewayMetrics.upstreamResults.count)
    let duration: CoreMetrics.Timer
    let remainingMinute: Gauge
    let remainingDay: Gauge
    /// 0 closed, 1 open, 2 half-open (a probe is out).
    let breakerState: Gauge
    /// Failed calls in a row.
    let breakerFailures: Gauge
    let breakerOpenings: Counter
  }

  /// `over_budget` and `paused` were not sent.
  static let upstreamResults = [
    "ok", "rate_limited", "rejected", "unauthorized", "unavailable", "malformed", "over_budget",
    "paused",
  ]

  /// The handles of `service`: made once per name (a second call gets the same), so that its
  /// series appear once in the exposition.
  func upstream(service: String) -> Upstream {
    upstreams.withLock { upstreams in
      if let made = upstreams.first(where: { $0.service == service }) { return made }
      let upstream = makeUpstream(service)
      upstreams.append(upstream)
      return upstream
    }
  }

  private func makeUpstream(_ service: String) -> Upstream {
    Upstream(
      service: service,
      duration: CoreMetrics.Timer(
        label: "skyframe_upstream_duration_seconds", dimensions: [("service", service)],
        factory: factory),
      remainingMinute: Gauge(
        label: "skyframe_budget_remaining",
        dimensions: [("service", service), ("window", "minute")],
        factory: factory),
      remainingDay: Gauge(
        label: "skyframe_budget_remaining", dimensions: [("service", service), ("window", "day")],
        factory: factory),
      breakerState: Gauge(
        label: "skyframe_upstream_breaker_state", dimensions: [("service", service)],
        factory: factory),
      breakerFailures: Gauge(
        label: "skyframe_upstream_consecutive_failures", dimensions: [("service", service)],
        factory: factory),
      breakerOpenings: Counter(
        label: "skyframe_upstream_breaker_openings_total", dimensions: [("service", service)],
        factory: factory))
  }

  func upstreamCall(_ upstream: Upstream, result: String, duration: Duration?) {
    if let slot = Self.upstreamResults.firstIndex(of: result) { upstream.results.add(at: slot) }
    if let duration { upstream.duration.recordNanoseconds(duration.nanoseconds) }
  }

  // MARK: Broker

  func connected() {
    brokerConnected.record(1)
  }

  func disconnected() {
    brokerConnected.record(0)
    count(.reconnects)
  }

  func publishFailed() {
    count(.publishFailures)
  }

  /// Where each named total goes in a snapshot.
  private static let snapshotFields: [(Total, any WritableKeyPath<Totals, Int> & Sendable)] = [
    (.queueDropped, \.queueDropped), (.cacheHits, \.cacheHits), (.cacheMisses, \.cacheMisses),
    (.cacheStale, \.cacheStale), (.upstreamRefused, \.upstreamRefused),
    (.responseTopicsRefused, \.responseTopicsRefused),
    (.unansweredOverLimit, \.unansweredOverLimit), (.publishFailures, \.publishFailures),
    (.reconnects, \.reconnects), (.savedSameRun, \.savedSameRun),
  ]

  var snapshot: Totals {
    var snapshot = Totals()
    for index in snapshot.answers.indices {
      snapshot.answers[index] = totals[Total.answers.rawValue + index]
    }
    for (total, field) in Self.snapshotFields { snapshot[keyPath: field] = totals[total.rawValue] }
    // The upstream totals are sums of the per-service counts: `paused` and `over_budget` were
    // not sent; every other result but `ok` is a failed call.
    for upstream in upstreams.withLock({ $0 }) {
      for (slot, result) in Self.upstreamResults.enumerated() {
        let calls = upstream.results[slot]
        switch result {
        case "ok": snapshot.upstreamCalls += calls
        case "paused": snapshot.upstreamPaused += calls
        case "over_budget": break
        default:
          snapshot.upstreamCalls += calls
          snapshot.upstreamFailures += calls
        }
      }
    }
    return snapshot
  }

  /// Answers by status name, for people.
  static func byName(_ answers: [Int]) -> [String: Int] {
    var named: [String: Int] = [:]
    for (index, count) in answers.enumerated() where count > 0 {
      let name =
        index < FrameStatus.allKnown.count
        ? FrameStatus.allKnown[index].name.map { "\($0)" } ?? "other" : "other"
      named[name, default: 0] += count
    }
    return named
  }

  /// The Prometheus text exposition of everything above: the registry's metrics, then the
  /// counters counted here and the request histogram.
  func exposition() -> [UInt8] {
    var buffer = registry.emitToBuffer()
    var named: String?
    func series(_ name: String, _ labels: String, _ value: Int) {
      if name != named {
        buffer.append(contentsOf: "# TYPE \(name) counter\n".utf8)
        named = name
      }
      buffer.append(contentsOf: "\(name)\(labels) \(value)\n".utf8)
    }
    for (slot, status) in FrameStatus.allKnown.enumerated() {
      series(
        "skyframe_requests_total", "{status=\"\(status.name!)\"}",
        totals[Total.answers.rawValue + slot])
    }
    series(
      "skyframe_requests_total", "{status=\"other\"}",
      totals[Total.answers.rawValue + FrameStatus.allKnown.count])
    for (total, name, labels) in Self.exposed { series(name, labels, totals[total.rawValue]) }
    // Standard answers, the hot path, are not counted apart: they are all the others.
    let (large, tiny) = (totals[Total.largeAnswers.rawValue], totals[Total.tinyAnswers.rawValue])
    let all = (0...FrameStatus.allKnown.count).reduce(0) {
      $0 + totals[Total.answers.rawValue + $1]
    }
    series("skyframe_answers_by_profile_total", "{profile=\"standard\"}", all - large - tiny)
    series("skyframe_answers_by_profile_total", "{profile=\"large\"}", large)
    series("skyframe_answers_by_profile_total", "{profile=\"tiny\"}", tiny)
    for upstream in upstreams.withLock({ $0 }) {
      for (slot, result) in Self.upstreamResults.enumerated() {
        series(
          "skyframe_upstream_calls_total",
          "{service=\"\(upstream.service)\",result=\"\(result)\"}", upstream.results[slot])
      }
    }
    requestDuration.emit(into: &buffer)
    runAge.emit(into: &buffer)
    return buffer
  }
}

extension Duration {
  var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
