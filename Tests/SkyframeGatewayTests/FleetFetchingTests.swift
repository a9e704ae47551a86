import Logging
import SkyframeCodec
import SkyframeGatewayTesting
import SkyframeMQTT
import SkyframeProviders
import SkyframeWeather
import Synchronization
import Testing

@testable import SkyframeCluster
@testable import SkyframeGateway

/// The fleet in front of the desk's fetcher, without a broker: a member's miss of a cell another
/// member owns asks the owner and takes its entry, its word, or nothing by the deadline, on the
/// manual clock.
@Suite struct FleetFetchingTests {
  /// What the member sent (its wants), kept in memory.
  final class Sent: FrameSink {
    let messages = Mutex<[(topic: String, qos: Int)]>([])
    func publish(
      _ topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool,
      correlationData: [UInt8]?
    ) throws(MQTTError) {
      messages.withLock { $0.append((topic, qos)) }
    }
  }

  static let start: Int64 = 1_800_000_000
  let manual = ManualClock()
  let clock: GatewayClock
  let desk: WeatherDesk
  let fetching: FleetFetching
  let sent = Sent()
  /// A cell `gw-b` owns, and one this member (`gw-a`) owns.
  let theirs: WeatherDesk.Cell
  let mine: WeatherDesk.Cell
  /// Fetches that reached the fetcher behind.
  final class Counter: Sendable {
    let count = Atomic<Int>(0)
  }
  let fetches = Counter()

  init() throws {
    clock = GatewayClock(manual, unixTimeAtStart: Self.start)
    var configuration = GatewayConfiguration()
    configuration.cluster.key = Array("a cluster key of 32 bytes, here!".utf8)
    configuration.cluster.ownerWaitMilliseconds = 1_500
    let logger = Logger(label: "fleet")
    desk = WeatherDesk(
      settings: WeatherDesk.Settings(provider: ScriptedWeather(), cache: configuration.cache),
      clock: clock, logger: logger)
    let members = ClusterMembers(own: "gw-a")
    members.receive(id: "gw-b", payload: Gateway.online)
    let sharedCache = SharedFrameCache(
      key: configuration.cluster.key!, topics: configuration.topics,
      staleSeconds: configuration.cache.staleSeconds)
    let cells = (0..<64).map { WeatherDesk.Cell(row: 5_252, column: Int64($0)) }
    let owners = cells.map { members.owner(of: "cell:" + sharedCache.cellText($0)) }
    theirs = try #require(zip(cells, owners).first { $0.1 == "gw-b" }?.0)
    mine = try #require(zip(cells, owners).first { $0.1 == "gw-a" }?.0)
    fetching = FleetFetching(
      desk: desk, sharedCache: sharedCache,
      sharedNames: SharedNames(key: configuration.cluster.key!, topics: configuration.topics),
      members: members, configuration: configuration,
      client: try MQTTClient(configuration: .init(clientID: "unconnected"), logger: logger),
      own: OwnMessages(
        sink: sent, metrics: GatewayMetrics(), logger: logger,
        limiter: DeviceLogLimiter(capacity: 16, clock: clock)),
      clock: clock, logger: logger, servicesPaused: { false })
  }

  /// The fetcher behind: counts, and gives a frame fetched now.
  var next: CellFetch {
    let (fetches, clock) = (fetches, clock)
    return { _, _ in
      fetches.count.add(1, ordering: .relaxed)
      return .success(
        FetchedCell(
          entry: WeatherDesk.CachedFrame(bytes: [], fetchedAt: clock.unixTime()), series: nil,
          isNew: true))
    }
  }

  /// An entry as the owner shares it, fetched `age` seconds ago.
  func entry(age: Int64) throws -> WeatherDesk.CachedFrame {
    WeatherDesk.CachedFrame(
      bytes: try WeatherFrame().encoded(), fetchedAt: clock.unixTime() - age)
  }

  /// Runs the miss until it waits for the owner (its place in line taken, its want sent).
  func waitingMiss(_ cell: WeatherDesk.Cell) async -> Task<
    Result<FetchedCell, ProviderError>, Never
  > {
    let (fetching, next) = (fetching, next)
    let miss = Task { await fetching.fetch(cell, needs: .standard, next: next) }
    while manual.sleeping == 0 { await Task.yield() }
    return miss
  }

  @Test func aMissOfAnotherMembersCellTakesItsEntryAndFetchesNothing() async throws {
    let miss = await waitingMiss(theirs)
    // At QoS 0: kept by nobody for an owner that is away.
    #expect(sent.messages.withLock { $0.map(\.topic) } == ["skyframe/v1/gateway/want/gw-b"])
    #expect(sent.messages.withLock { $0.map(\.qos) } == [0])
    #expect(desk.adopt(try entry(age: 1), for: theirs))
    guard case .success(let got) = await miss.value else {
      Issue.record("no entry")
      return
    }
    #expect(!got.isNew)
    #expect(fetches.count.load(ordering: .relaxed) == 0)
  }

  @Test func theOwnersWordThatItCouldNotMeansTheStaleFrameWithoutAFetch() async throws {
    // Past its time-to-live, still within the stale window.
    desk.cache.store(try entry(age: 3_600), series: nil, for: theirs)
    let miss = await waitingMiss(theirs)
    fetching.ownerUnavailable(theirs)
    guard case .failure(.unavailable) = await miss.value else {
      Issue.record("not answered from the stale frame")
      return
    }
    #expect(fetches.count.load(ordering: .relaxed) == 0)
  }

  @Test func theOwnersWordWithNothingHeldMeansThisMemberTries() async throws {
    let miss = await waitingMiss(theirs)
    fetching.ownerUnavailable(theirs)
    guard case .success(let got) = await miss.value else {
      Issue.record("not fetched")
      return
    }
    #expect(got.isNew)
    #expect(fetches.count.load(ordering: .relaxed) == 1)
  }

  @Test func noWordByTheDeadlineMeansThisMemberFetches() async throws {
    let miss = await waitingMiss(theirs)
    manual.advance(by: .milliseconds(1_499))
    #expect(fetches.count.load(ordering: .relaxed) == 0)
    manual.advance(by: .milliseconds(1))
    guard case .success(let got) = await miss.value else {
      Issue.record("not fetched")
      return
    }
    #expect(got.isNew)
    #expect(fetches.count.load(ordering: .relaxed) == 1)
  }

  @Test func aCellOfItsOwnOrALargeFrameIsFetchedWithoutAsking() async throws {
    _ = await fetching.fetch(mine, needs: .standard, next: next)
    // A shared entry holds the standard frame only: the owner cannot serve a large one.
    _ = await fetching.fetch(theirs, needs: [.standard, .large], next: next)
    #expect(fetches.count.load(ordering: .relaxed) == 2)
    #expect(sent.messages.withLock { $0.isEmpty })
    #expect(manual.sleeping == 0)
  }
}
