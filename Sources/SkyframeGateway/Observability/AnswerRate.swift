import Synchronization

/// Answers per minute from samples of the answer count taken whenever the status is asked for
/// (the stats message, `/health`, the status page): the answers since the newest sample at
/// least a minute old, per minute of the time between. Until a minute has passed, over the
/// time since the first sample. At most 32 samples, one every 5 s at most.
final class AnswerRate: Sendable {
  private struct Sample {
    var time: Int64
    var total: Int
  }

  private let samples = Mutex<[Sample]>([])
  static let maximumSamples = 32

  /// Records `total` answers at `time` (Unix seconds) and gives the rate; nil until two samples
  /// are at least a second apart.
  func perMinute(total: Int, at time: Int64) -> Int? {
    samples.withLock { samples in
      if samples.last.map({ time - $0.time >= 5 }) ?? true {
        samples.append(Sample(time: time, total: total))
        if samples.count > Self.maximumSamples { samples.removeFirst() }
      }
      let base = samples.last { time - $0.time >= 60 } ?? samples.first
      guard let base, time - base.time >= 1 else { return nil }
      return Int((Int64(max(0, total - base.total)) * 60) / (time - base.time))
    }
  }
}
