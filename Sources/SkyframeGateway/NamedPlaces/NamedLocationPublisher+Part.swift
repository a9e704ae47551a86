import ServiceLifecycle
import SkyframeCodec
import SkyframeMQTT
import Synchronization

/// Named places as a part: published retained on their schedule by the publisher's own service;
/// all of them soon after a connect that found no session (a broker that lost its retained
/// messages). It also reads the places' retained frames and every push of them, its own and
/// other members': a place is next due an interval after its last push, so a member that starts
/// or takes a place over does not push it again before its time.
extension NamedLocationPublisher: GatewayPart {
  /// At a start nothing is due yet anyway; a reset then would also forget what the retained
  /// frames, arriving meanwhile, said of the last pushes.
  func connected(sessionPresent: Bool) {
    if !sessionPresent, connects.add(1, ordering: .relaxed).newValue > 1 { publishAllSoon() }
  }

  func apply(_ configuration: GatewayConfiguration) { update(configuration) }

  var services: [any Service] { [self] }

  var subscriptions: [String] { [topics.location(name: "+")] }

  var claims: [TopicClaim] { [.prefix(topics.location(name: ""))] }

  /// A place's standard frame: pushed now (a live message), or some time after the weather it
  /// carries was fetched (a retained one, from before this member subscribed).
  func receive(claim: Int, rest: String, _ message: MQTTIncoming) {
    guard !rest.contains("/"), message.payload.count == WeatherFrame.size else { return }
    let fetchedAt = Int64(
      UInt32(littleEndian: message.payload.loadUnaligned(fromByteOffset: 24, as: UInt32.self)))
    if message.retain {
      noteRetainedPush(rest, fetchedSecondsAgo: clock.unixTime() - fetchedAt)
    } else {
      notePushed(rest, at: clock.now)
    }
  }
}

extension NamedLocationPublisher {
  static func part(_ context: PartContext) -> NamedLocationPublisher {
    NamedLocationPublisher(
      locations: context.configuration.locations, resolver: context.resolver,
      outbox: context.outbox, topics: context.configuration.topics, clock: context.clock,
      scheduled: context.scheduled, members: context.members, board: context.board,
      clear: { topic in _ = context.own.send(topic, []) }, logger: context.logger)
  }
}
