import SkyframeCodec
import Testing

@testable import SkyframeGateway

@Suite struct MetricsTests {
  /// The request histogram writes what a Prometheus histogram is: cumulative buckets with `le`
  /// in seconds (a value on a bound counts in it), `+Inf`, the sum in seconds and the count.
  @Test func theRequestHistogramIsExposedAsAPrometheusHistogram() {
    let histogram = NanosecondHistogram(
      name: "test_seconds", bounds: [.milliseconds(1), .microseconds(100), .milliseconds(2_500)])
    for nanoseconds: Int64 in [50_000, 100_000, 500_000, 2_500_000_000, 3_000_000_000, -5] {
      histogram.recordNanoseconds(nanoseconds)
    }
    var buffer: [UInt8] = []
    histogram.emit(into: &buffer)
    #expect(
      String(decoding: buffer, as: UTF8.self) == """
        # TYPE test_seconds histogram
        test_seconds_bucket{le="0.0001"} 3
        test_seconds_bucket{le="0.001"} 4
        test_seconds_bucket{le="2.5"} 5
        test_seconds_bucket{le="+Inf"} 6
        test_seconds_sum 5.50065
        test_seconds_count 6

        """)
  }

  @Test func secondsAreWrittenAsSwiftPrometheusWritesADuration() {
    #expect(NanosecondHistogram.seconds(0) == "0.0")
    #expect(NanosecondHistogram.seconds(1_000_000_000) == "1.0")
    #expect(NanosecondHistogram.seconds(250_000) == "0.00025")
    #expect(NanosecondHistogram.seconds(12_000_000_001) == "12.000000001")
  }

  /// Each running total is counted in its own slot and read back into its own field: every
  /// event below happens a different number of times.
  @Test func everyRunningTotalLandsInItsOwnField() {
    let metrics = GatewayMetrics()
    let upstream = metrics.upstream(service: "test")
    func times(_ count: Int, _ event: () -> Void) { for _ in 0..<count { event() } }
    times(1) { metrics.dropped() }
    times(2) { metrics.cacheHit() }
    times(3) { metrics.cacheMiss() }
    times(4) { metrics.servedStale() }
    times(5) { metrics.upstreamCall(upstream, result: "ok", duration: nil) }
    times(6) { metrics.upstreamCall(upstream, result: "unavailable", duration: nil) }
    times(7) { metrics.refusedNewCell() }
    times(8) { metrics.upstreamCall(upstream, result: "paused", duration: nil) }
    times(9) { metrics.refusedResponseTopic() }
    times(10) { metrics.leftUnanswered() }
    times(11) { metrics.publishFailed() }
    times(12) { metrics.disconnected() }
    times(13) { metrics.answered(.ok) }
    times(14) { metrics.answered(.rateLimited) }
    let totals = metrics.snapshot
    #expect(totals.queueDropped == 1)
    #expect(totals.cacheHits == 2)
    #expect(totals.cacheMisses == 3)
    #expect(totals.cacheStale == 4)
    #expect(totals.upstreamCalls == 11)
    #expect(totals.upstreamFailures == 6)
    #expect(totals.upstreamRefused == 7)
    #expect(totals.upstreamPaused == 8)
    #expect(totals.responseTopicsRefused == 9)
    #expect(totals.unansweredOverLimit == 10)
    #expect(totals.publishFailures == 11)
    #expect(totals.reconnects == 12)
    #expect(GatewayMetrics.byName(totals.answers) == ["ok": 13, "rate_limited": 14])
  }

  /// The gateway's exposition has the registry's metrics and the request histogram.
  @Test func theExpositionHasTheRegistryAndTheRequestHistogram() {
    let metrics = GatewayMetrics()
    metrics.cacheHit()
    metrics.requestDuration.recordNanoseconds(1_500)
    let text = String(decoding: metrics.exposition(), as: UTF8.self)
    #expect(text.contains(#"skyframe_cache_lookups_total{result="hit"} 1"#))
    #expect(text.contains(#"skyframe_request_duration_seconds_bucket{le="0.0001"} 1"#))
    #expect(text.contains("skyframe_request_duration_seconds_count 1\n"))
  }

  /// Each event is counted once, and the Prometheus text and the totals read that one count:
  /// every counted series appears once, under one `# TYPE` line per name.
  @Test func eachEventIsCountedOnceAndShownFromThatCount() {
    let metrics = GatewayMetrics()
    let first = metrics.upstream(service: "one")
    let second = metrics.upstream(service: "two")
    metrics.upstreamCall(first, result: "ok", duration: .milliseconds(3))
    metrics.upstreamCall(second, result: "rejected", duration: nil)
    metrics.upstreamCall(second, result: "rejected", duration: nil)
    metrics.answered(.ok)
    metrics.droppedSecondCopy()
    let text = String(decoding: metrics.exposition(), as: UTF8.self)
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.contains(#"skyframe_upstream_calls_total{service="one",result="ok"} 1"#))
    #expect(lines.contains(#"skyframe_upstream_calls_total{service="two",result="rejected"} 2"#))
    #expect(lines.contains(#"skyframe_requests_total{status="ok"} 1"#))
    #expect(lines.contains(#"skyframe_requests_unanswered_total{reason="second-copy"} 1"#))
    let types = lines.filter { $0.hasPrefix("# TYPE ") }
    #expect(Set(types).count == types.count, "one TYPE line per name: \(types)")
    let series = lines.filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ")[0] }
    #expect(Set(series).count == series.count, "each series once")
    let totals = metrics.snapshot
    #expect(totals.upstreamCalls == 3 && totals.upstreamFailures == 2)
  }

  /// Standard answers (not counted apart on the hot path) show as every answer but the others:
  /// the series was 0 whatever was answered.
  @Test func answersByProfileCountStandardToo() {
    let metrics = GatewayMetrics()
    for _ in 0..<3 { metrics.answered(.ok) }
    metrics.answered(.ok, profile: .tiny)
    metrics.answered(.rateLimited, profile: .large)
    metrics.answered(.ok, profile: .large, unchanged: true)
    let text = String(decoding: metrics.exposition(), as: UTF8.self)
    #expect(text.contains("skyframe_answers_by_profile_total{profile=\"standard\"} 3\n"))
    #expect(text.contains("skyframe_answers_by_profile_total{profile=\"large\"} 2\n"))
    #expect(text.contains("skyframe_answers_by_profile_total{profile=\"tiny\"} 1\n"))
  }
}
