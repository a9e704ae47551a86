import Foundation
import SkyframeProviders
import SkyframeTestSupport
import Synchronization
import Testing

@testable import SkyframeGateway

/// Batch windows and waits run on the gateway clock: a test moves time instead of sleeping.
@Suite struct GatewayClockTests {
  @Test func theSystemClocksUnixTimeAgreesWithTheWallClockAndWithItsReading() throws {
    let clock = GatewayClock.system
    for _ in 0..<1_000 {
      let wall = Int64(Date().timeIntervalSince1970)
      let reading = clock.reading()
      let (direct, fromReading) = (clock.unixTime(), clock.unixTime(atReading: reading))
      // Read within microseconds of each other: at most a second boundary apart.
      #expect(abs(direct - wall) <= 1)
      #expect(abs(fromReading - direct) <= 1)
      #expect(fromReading <= clock.unixTime())
    }
    // Anchored elsewhere, the same arithmetic from the given Unix time.
    let anchored = GatewayClock.system(unixTimeAtStart: 1_000)
    #expect((1_000...1_001).contains(anchored.unixTime()))
    #expect(anchored.unixTime(atReading: anchored.reading() + 90_000_000_000) >= 1_090)
    // Any other clock: its reading is its own time since it was made, so a test's clock drives
    // durations and the Unix time read from them alike.
    let manual = ManualClock()
    let other = GatewayClock(manual, unixTimeAtStart: 1_000)
    #expect(other.reading() == 0)
    manual.advance(by: .milliseconds(90_250))
    #expect(other.reading() == 90_250_000_000)
    #expect(other.unixTime(atReading: other.reading()) == 1_090)
  }

  @Test func aBatchWindowEndsWhenTheGatewayClockSaysSo() async throws {
    let manual = ManualClock()
    let calls = Mutex<[[GeoPoint]]>([])
    let batcher = PointBatcher<Int>(
      maximumBatchSize: 10, window: .milliseconds(50), clock: GatewayClock(manual)
    ) { points async throws(ProviderError) in
      calls.withLock { $0.append(points) }
      return points.map { Int($0.latitude) }
    }
    async let first = batcher.value(at: GeoPoint(latitude: 1, longitude: 1))
    async let second = batcher.value(at: GeoPoint(latitude: 2, longitude: 2))
    // The window's timer is the one sleeper, on the gateway clock; until that clock passes
    // 50 ms nothing is fetched.
    while manual.sleeping == 0 { await Task.yield() }
    for _ in 0..<100 { await Task.yield() }
    #expect(calls.withLock { $0.isEmpty })
    manual.advance(by: .milliseconds(50))
    let answers = await [first, second]
    #expect(answers.map { try? $0.get() } == [1, 2])
    #expect(calls.withLock { $0.count } == 1)
  }

  /// A fetch two callers stopped waiting for at their deadline is made once and goes on in the
  /// background service's group; callers after it has finished start a new one.
  @Test func aFetchGoesOnInTheBackgroundAfterItsCallersStopWaiting() async throws {
    let manual = ManualClock()
    let clock = GatewayClock(manual)
    let background = BackgroundWork(limit: 8)
    let service = Task { await background.run() }
    let coalescer = Coalescer<Int, String>(background: background)
    let (gate, open) = AsyncStream<Void>.makeStream()
    let started = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
    let work: @Sendable () async -> String = {
      started.add(1, ordering: .relaxed)
      for await _ in gate { break }
      finished.add(1, ordering: .relaxed)
      return "frame"
    }
    async let first = coalescer.run(1, until: .milliseconds(100), on: clock, work)
    async let second = coalescer.run(1, until: .milliseconds(100), on: clock, work)
    while manual.sleeping < 2 { await Task.yield() }
    manual.advance(by: .milliseconds(100))
    #expect(await [first, second] == [nil, nil])
    #expect(started.load(ordering: .relaxed) == 1)
    #expect(finished.load(ordering: .relaxed) == 0)
    open.yield()
    while finished.load(ordering: .relaxed) == 0 { await Task.yield() }
    open.yield()
    #expect(await coalescer.run(1, work) == "frame")
    #expect(started.load(ordering: .relaxed) == 2)
    service.cancel()
    await service.value
  }

  /// Background jobs are bounded: past the limit `start` refuses and the caller does the work.
  @Test func backgroundWorkRefusesPastItsLimit() async throws {
    let background = BackgroundWork(limit: 1)
    let service = Task { await background.run() }
    let (gate, open) = AsyncStream<Void>.makeStream()
    #expect(background.start { for await _ in gate { break } })
    #expect(!background.start {})
    #expect(background.count == 1)
    open.yield()
    while background.count > 0 { await Task.yield() }
    #expect(background.start {})
    service.cancel()
    await service.value
  }

  @Test func aWaiterGetsTheArrivalOrNilWhenCancelled() async {
    let waiters = ArrivalWaiters<Int, String>()
    async let arrived = waiters.wait(for: 7)
    while waiters.count == 0 { await Task.yield() }
    waiters.arrived("frame", for: 8)
    waiters.arrived("frame", for: 7)
    #expect(await arrived == "frame")
    #expect(waiters.count == 0)

    let waiting = Task { await waiters.wait(for: 9) }
    while waiters.count == 0 { await Task.yield() }
    waiting.cancel()
    #expect(await waiting.value == nil)
    #expect(waiters.count == 0)

    // Cancelled before it began to wait: nil at once, and nothing left behind.
    let early = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return await waiters.wait(for: 10)
    }
    #expect(await early.value == nil)
    #expect(waiters.count == 0)
  }

  @Test func sleepingUntilAPassedDeadlineReturnsAtOnce() async throws {
    let manual = ManualClock()
    let clock = GatewayClock(manual)
    manual.advance(by: .seconds(5))
    try await clock.sleep(until: .seconds(3))
    #expect(manual.sleeping == 0)
  }
}
