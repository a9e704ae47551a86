import CoreMetrics
import Metrics
import SkyframeCodec

import class Prometheus.PrometheusCollectorRegistry
import struct Prometheus.PrometheusMetricsFactory

/// What the gateway records about itself, through swift-metrics into its own Prometheus registry
/// (one per gateway, so several can run in one process), plus the running totals the stats
/// message and `/health` summarize. Every handle is made once, here: recording on a request's
/// path is an atomic add, never a lookup by label.
final class GatewayMetrics: Sendable {
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
  }

  let registry = PrometheusCollectorRegistry()
  private let factory: PrometheusMetricsFactory
  private let answers: [Counter]
  private let answersOther: Counter
  /// Answers in `large` and `tiny` (standard is the rest), and `unchanged` answers per profile.
  private let profileAnswers: [Counter]
  private let unchangedAnswers: [Counter]
  /// Recorded for every request, on the hit path: our own lock-free histogram (see there).
  let requestDuration: NanosecondHistogram
  let queueDepth: Gauge
  let queueDropped: Counter
  let cacheHits: Counter
  let cacheMisses: Counter
  let cacheStale: Counter
  let brokerConnected: Gauge
  let reconnects: Counter
  let publishFailures: Counter
  let upstreamRefused: Counter
  let responseTopicsRefused: Counter
  let unansweredOverLimit: Counter
  /// Second copies of requests that came on the fast lane and in the stream (`FastLane`).
  let unansweredSecondCopies: Counter
  /// Devices on the fast lane now.
  let fastLaneDevices: Gauge
  /// The running totals, counted without a lock: the named ones, then one per answer status.
  private let totals = AtomicCounters(count: Total.answers.rawValue + Totals().answers.count)

  private enum Total: Int {
    case queueDropped, cacheHits, cacheMisses, cacheStale, upstreamCalls, upstreamFailures
    case upstreamRefused, upstreamPaused, responseTopicsRefused, unansweredOverLimit
    case publishFailures, reconnects
    /// The first of the answers by status.
    case answers
  }

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
    answers = FrameStatus.allKnown.map { status in
      Counter(
        label: "skyframe_requests_total", dimensions: [("status", "\(status.name!)")],
        factory: factory)
    }
    answersOther = Counter(
      label: "skyframe_requests_total", dimensions: [("status", "other")], factory: factory)
    profileAnswers = FrameProfile.allCases.map { profile in
      Counter(
        label: "skyframe_answers_by_profile_total", dimensions: [("profile", "\(profile.name)")],
        factory: factory)
    }
    unchangedAnswers = FrameProfile.allCases.map { profile in
      Counter(
        label: "skyframe_unchanged_answers_total", dimensions: [("profile", "\(profile.name)")],
        factory: factory)
    }
    requestDuration = NanosecondHistogram(
      name: "skyframe_request_duration_seconds", bounds: fine)
    queueDepth = Gauge(label: "skyframe_queue_depth", factory: factory)
    queueDropped = Counter(label: "skyframe_queue_dropped_total", factory: factory)
    cacheHits = Counter(
      label: "skyframe_cache_lookups_total", dimensions: [("result", "hit")], factory: factory)
    cacheMisses = Counter(
      label: "skyframe_cache_lookups_total", dimensions: [("result", "miss")], factory: factory)
    cacheStale = Counter(
      label: "skyframe_cache_lookups_total", dimensions: [("result", "stale")], factory: factory)
    brokerConnected = Gauge(label: "skyframe_broker_connected", factory: factory)
    reconnects = Counter(label: "skyframe_broker_reconnects_total", factory: factory)
    publishFailures = Counter(label: "skyframe_publish_failures_total", factory: factory)
    upstreamRefused = Counter(
      label: "skyframe_upstream_refused_total", dimensions: [("reason", "new-cell-limit")],
      factory: factory)
    responseTopicsRefused = Counter(
      label: "skyframe_response_topics_refused_total", factory: factory)
    unansweredOverLimit = Counter(
      label: "skyframe_requests_unanswered_total", dimensions: [("reason", "over-limit")],
      factory: factory)
    unansweredSecondCopies = Counter(
      label: "skyframe_requests_unanswered_total", dimensions: [("reason", "second-copy")],
      factory: factory)
    fastLaneDevices = Gauge(label: "skyframe_fast_lane_devices", factory: factory)
  }

  // MARK: Requests

  /// One frame sent in answer to a request (a request for several places counts once per place).
  func answered(_ status: FrameStatus, profile: FrameProfile = .standard, unchanged: Bool = false) {
    let index = min(Int(status.rawValue), answers.count)
    if index < answers.count { answers[index].increment() } else { answersOther.increment() }
    totals.add(at: Total.answers.rawValue + index)
    // Standard answers without a check, the hot path, touch nothing more.
    if profile != .standard { profileAnswers[Int(profile.rawValue)].increment() }
    if unchanged { unchangedAnswers[Int(profile.rawValue)].increment() }
  }

  func dropped() {
    queueDropped.increment()
    count(.queueDropped)
  }

  /// A request whose MQTT v5 response topic was not the device's own: answered `bad_request` on
  /// its frame topic.
  func refusedResponseTopic() {
    responseTopicsRefused.increment()
    count(.responseTopicsRefused)
  }

  /// A request from a device already told `rate_limited` this minute: dropped unparsed.
  func leftUnanswered() {
    unansweredOverLimit.increment()
    count(.unansweredOverLimit)
  }

  /// The second copy of a request that came both on the fast lane and in the stream: dropped.
  func droppedSecondCopy() {
    unansweredSecondCopies.increment()
  }

  func refusedNewCell() {
    upstreamRefused.increment()
    count(.upstreamRefused)
  }

  // MARK: Cache

  func cacheHit() {
    cacheHits.increment()
    count(.cacheHits)
  }

  func cacheMiss() {
    cacheMisses.increment()
    count(.cacheMisses)
  }

  func servedStale() {
    cacheStale.increment()
    count(.cacheStale)
  }

  func cacheEntries(_ table: String) -> Gauge {
    Gauge(label: "skyframe_cache_entries", dimensions: [("table", table)], factory: factory)
  }

  // MARK: Upstream

  /// The handles for one weather service's calls, made when the service is assembled.
  struct Upstream: Sendable {
    let results: [String: Counter]
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

  func upstream(service: String) -> Upstream {
    Upstream(
      results: Dictionary(
        uniqueKeysWithValues: Self.upstreamResults.map { result in
          (
            result,
            Counter(
              label: "skyframe_upstream_calls_total",
              dimensions: [("service", service), ("result", result)], factory: factory)
          )
        }),
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
    upstream.results[result]?.increment()
    if let duration { upstream.duration.recordNanoseconds(duration.nanoseconds) }
    if result == "ok" {
      count(.upstreamCalls)
    } else if result == "paused" {
      count(.upstreamPaused)
    } else if result != "over_budget" {
      count(.upstreamCalls)
      count(.upstreamFailures)
    }
  }

  // MARK: Broker

  func connected() {
    brokerConnected.record(1)
  }

  func disconnected() {
    brokerConnected.record(0)
    reconnects.increment()
    count(.reconnects)
  }

  func publishFailed() {
    publishFailures.increment()
    count(.publishFailures)
  }

  /// Where each named total goes in a snapshot.
  private static let snapshotFields: [(Total, any WritableKeyPath<Totals, Int> & Sendable)] = [
    (.queueDropped, \.queueDropped), (.cacheHits, \.cacheHits), (.cacheMisses, \.cacheMisses),
    (.cacheStale, \.cacheStale), (.upstreamCalls, \.upstreamCalls),
    (.upstreamFailures, \.upstreamFailures), (.upstreamRefused, \.upstreamRefused),
    (.upstreamPaused, \.upstreamPaused), (.responseTopicsRefused, \.responseTopicsRefused),
    (.unansweredOverLimit, \.unansweredOverLimit), (.publishFailures, \.publishFailures),
    (.reconnects, \.reconnects),
  ]

  var snapshot: Totals {
    var snapshot = Totals()
    for index in snapshot.answers.indices {
      snapshot.answers[index] = totals[Total.answers.rawValue + index]
    }
    for (total, field) in Self.snapshotFields { snapshot[keyPath: field] = totals[total.rawValue] }
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

  /// The Prometheus text exposition of everything above.
  func exposition() -> [UInt8] {
    var buffer = registry.emitToBuffer()
    requestDuration.emit(into: &buffer)
    return buffer
  }
}

extension Duration {
  var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
