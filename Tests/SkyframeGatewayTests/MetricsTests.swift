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
}
