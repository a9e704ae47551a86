import Synchronization

/// A Prometheus histogram of durations given in integer nanoseconds, for the request path: a
/// record is a comparison or a few and two relaxed atomic adds, with no lock. swift-prometheus's
/// histogram takes a lock and walks every bucket on each record, which measured about 120 ns of a
/// 1 µs cache hit (`Gateway_request_cache_hit`). The exposition is the text swift-prometheus
/// writes for its own histograms, appended after the registry's.
final class NanosecondHistogram: Sendable {
  let name: String
  /// Upper bounds (`le`), ascending, in nanoseconds.
  private let bounds: [Int64]
  /// Per bucket, not cumulative: `counts[i]` holds the values in `(bounds[i-1], bounds[i]]`, and
  /// the last slot those above every bound.
  private let counts: AtomicCounters
  private let sum = Atomic<Int64>(0)

  init(name: String, bounds: [Duration]) {
    self.name = name
    self.bounds = bounds.map(\.nanoseconds).sorted()
    counts = AtomicCounters(count: bounds.count + 1)
  }

  func recordNanoseconds(_ nanoseconds: Int64) {
    let value = max(nanoseconds, 0)
    var slot = 0
    while slot < bounds.count, value > bounds[slot] { slot += 1 }
    counts.add(at: slot)
    sum.wrappingAdd(value, ordering: .relaxed)
  }

  /// `# TYPE`, the cumulative buckets, `+Inf`, `_sum` in seconds and `_count`. Read while
  /// requests are recorded, the sum may be a record ahead of or behind the counts.
  func emit(into buffer: inout [UInt8]) {
    buffer.append(contentsOf: "# TYPE \(name) histogram\n".utf8)
    var cumulative = 0
    for slot in 0...bounds.count {
      cumulative += counts[slot]
      let bound = slot < bounds.count ? Self.seconds(bounds[slot]) : "+Inf"
      buffer.append(contentsOf: "\(name)_bucket{le=\"\(bound)\"} \(cumulative)\n".utf8)
    }
    buffer.append(
      contentsOf: "\(name)_sum \(Self.seconds(sum.load(ordering: .relaxed)))\n".utf8)
    buffer.append(contentsOf: "\(name)_count \(cumulative)\n".utf8)
  }

  /// Nanoseconds as decimal seconds, as swift-prometheus writes a `Duration`: "0.00025", "1.0".
  static func seconds(_ nanoseconds: Int64) -> String {
    let fraction = nanoseconds % 1_000_000_000
    guard fraction > 0 else { return "\(nanoseconds / 1_000_000_000).0" }
    var digits = String(fraction)
    digits = String(repeating: "0", count: 9 - digits.count) + digits
    while digits.last == "0" { digits.removeLast() }
    return "\(nanoseconds / 1_000_000_000).\(digits)"
  }
}
