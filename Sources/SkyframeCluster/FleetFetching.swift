import Logging
import SkyframeGateway
import SkyframeMQTT
import SkyframeProviders

/// The fleet in front of the desk's fetcher (with `cluster.key`): a miss of a cell another member
/// owns asks that member (`wants`) and waits `cluster.owner-wait-ms` for its shared entry or its
/// word that it could not fetch the cell; what is fetched here, and every name looked up here, is
/// shared with the others.
final class FleetFetching: DeskMiddleware {
  /// What the owner of a cell made of a miss here.
  enum OwnerReply: Sendable {
    /// Its shared entry came.
    case frame(WeatherDesk.CachedFrame)
    /// It said it could not fetch the cell (its service fails or is paused).
    case unavailable
    /// Nothing in time, or no owner to ask: fetch it here.
    case none
  }

  private let desk: WeatherDesk
  private let sharedCache: SharedFrameCache
  private let sharedNames: SharedNames
  private let members: ClusterMembers
  private let topics: GatewayConfiguration.Topics
  private let client: MQTTClient
  private let own: OwnMessages
  private let clock: GatewayClock
  private let logger: Logger
  /// How long a miss waits for the owner's entry; nil: it does not ask.
  private let ownerWait: Duration?
  /// Whether every weather service is paused: then no member fetches, and waiting for the
  /// owner's entry would only delay the `stale` answer from the cache.
  private let servicesPaused: @Sendable () -> Bool
  /// Misses waiting for a cell whose owner said it could not fetch it (`ownerUnavailable`).
  private let unavailable = ArrivalWaiters<WeatherDesk.Cell, Bool>()

  init(
    desk: WeatherDesk, sharedCache: SharedFrameCache, sharedNames: SharedNames,
    members: ClusterMembers, configuration: GatewayConfiguration, client: MQTTClient,
    own: OwnMessages, clock: GatewayClock, logger: Logger,
    servicesPaused: @escaping @Sendable () -> Bool
  ) {
    self.desk = desk
    self.sharedCache = sharedCache
    self.sharedNames = sharedNames
    self.members = members
    topics = configuration.topics
    self.client = client
    self.own = own
    self.clock = clock
    self.logger = logger
    let wait = configuration.cluster.ownerWaitMilliseconds
    ownerWait = wait > 0 ? .milliseconds(wait) : nil
    self.servicesPaused = servicesPaused
  }

  package func fetch(_ cell: WeatherDesk.Cell, needs: ProfileSet, next: CellFetch) async -> Result<
    FetchedCell, ProviderError
  > {
    // The cell's owner fetches it once for the fleet (standard frames only: a shared entry
    // holds 192 bytes).
    if needs == .standard {
      switch await askOwner(for: cell) {
      case .frame(let frame):
        return .success(FetchedCell(entry: frame, series: nil, isNew: false))
      case .unavailable:
        // The owner just tried and could not: the last good frame, at once; with none, this
        // member tries (the owner's trouble may be its own: its budget share, its network).
        if desk.staleFrame(for: cell) != nil {
          return .failure(.unavailable("the cell's owner could not fetch it"))
        }
      case .none:
        break
      }
    }
    let result = await next(cell, needs)
    if case .success(let fetched) = result, fetched.isNew {
      share(fetched.entry, series: fetched.series, for: cell)
    }
    return result
  }

  package func lookedUp(_ place: WeatherDesk.CachedPlace, for key: WeatherDesk.GeocodeKey) {
    if !sharedNames.share(place, for: key, with: client, now: clock.unixTime()) {
      logger.debug("could not share a place name")
    }
  }

  /// Shares a cell's entry (retained, signed) for the others to adopt.
  func share(_ frame: WeatherDesk.CachedFrame, series: FrameSeries?, for cell: WeatherDesk.Cell) {
    if !sharedCache.share(frame, for: cell, series: series, with: client, now: clock.unixTime()) {
      logger.debug("could not share a cached frame")
    }
  }

  /// The owner's answer to a miss of `cell` here: `.none` at once when this member owns it,
  /// when nobody is asked (`cluster.owner-wait-ms` 0) or when every service is paused.
  private func askOwner(for cell: WeatherDesk.Cell) async -> OwnerReply {
    guard let ownerWait, !servicesPaused() else { return .none }
    let key = sharedCache.cellText(cell)
    guard let owner = members.owner(of: "cell:" + key), owner != members.own else { return .none }
    let (own, topics) = (own, topics)
    return await ownerReply(for: cell, by: clock.now + ownerWait) {
      // QoS 0: a want is worth something only while its asker waits. At QoS 1 the broker
      // kept it for an owner that was away (killed, or not back yet from a broker restart)
      // and the asker's client kept it while the asker was; delivered at a return, after
      // the asker had fetched the cell itself, it made the owner fetch the cell again.
      own.send(topics.wants(owner), Array(key.utf8), qos: 0, retain: false)
    }
  }

  /// Asks (`ask`: the question to the cell's owner) and waits: the fresh frame of `cell` as soon
  /// as one is here (adopted from another member), or word that its owner could not fetch it, or
  /// `.none` at `deadline` (a reading of the gateway clock). The places in line are taken before
  /// the question goes out, so an answer that comes at once is not missed.
  func ownerReply(for cell: WeatherDesk.Cell, by deadline: Duration, asking ask: () -> Void)
    async -> OwnerReply
  {
    if let frame = desk.freshFrame(for: cell) { return .frame(frame) }
    let (arrivals, unavailable, clock, desk) = (desk.cache.arrivals, unavailable, clock, desk)
    let (arrival, refusal) = (arrivals.register(cell), unavailable.register(cell))
    ask()
    return await withTaskGroup(of: OwnerReply?.self) { group in
      group.addTask { await arrivals.wait(arrival).map { .frame($0) } }
      group.addTask { await unavailable.wait(refusal) == true ? .unavailable : nil }
      group.addTask {
        try? await clock.sleep(until: deadline)
        return OwnerReply.none
      }
      defer { group.cancelAll() }
      // The first that says something: a waiter cancelled by another's answer says nothing.
      while let reply = await group.next() {
        if let reply {
          // Stored between the first look and the tickets: the last look finds it.
          if case .none = reply, let frame = desk.freshFrame(for: cell) { return .frame(frame) }
          return reply
        }
      }
      return desk.freshFrame(for: cell).map { .frame($0) } ?? OwnerReply.none
    }
  }

  /// The owner of `cell` said it could not fetch it: the misses waiting for it here stop.
  func ownerUnavailable(_ cell: WeatherDesk.Cell) {
    unavailable.arrived(true, for: cell)
  }
}
