import ServiceLifecycle
import SkyframeCodec
import SkyframeMQTT
import Synchronization

/// Watches as a part: retained watch messages on `{base}/v1/watch/{device}`, pushed on their
/// schedule by the scheduler's own service. In a cluster each member also follows the watched
/// devices' frame topics: a watch is next due an interval after its last push, whoever made it,
/// so a member that starts or takes a watch over does not push it again before its time.
extension WatchScheduler: GatewayPart {
  var subscriptions: [String] { [settings.withLock { $0.topics.watches }] }

  var claims: [TopicClaim] {
    let base = settings.withLock { $0.topics.base }
    var claims: [TopicClaim] = [.device(under: base + "/v1/watch/")]
    if follow != nil { claims.append(.prefix(base + "/v1/frame/")) }
    return claims
  }

  func receive(claim: Int, rest: String, _ message: MQTTIncoming) {
    guard claim == 1 else {
      receive(device: rest, payload: [UInt8](message.payload), retained: message.retain)
      return
    }
    // A frame of a followed device (`{device}` or `{device}/{slot}`): pushed now, or for a
    // retained one from before this member subscribed, some time after its weather was fetched.
    let device = String(rest.prefix { $0 != "/" })
    guard let view = try? ProfileView(checking: message.payload),
      let field = view.kind.fields.first(where: { "\($0.name)" == "fetched_at" }),
      let fetchedAt = view.value(field, 0)
    else { return }
    if message.retain {
      noteRetainedPush(device, fetchedSecondsAgo: clock.unixTime() - fetchedAt)
    } else {
      notePushed(device, at: clock.now)
    }
  }

  func apply(_ configuration: GatewayConfiguration) { update(configuration) }

  /// A broker that kept nothing of the gateway may have lost the retained frames too
  /// (restarted without persistence): every watch is pushed again soon, at its interval after.
  func connected(sessionPresent: Bool) {
    // At a start nothing is due yet anyway; a reset then would also forget what the followed
    // frame topics, arriving meanwhile, said of the last pushes.
    if !sessionPresent, connects.add(1, ordering: .relaxed).newValue > 1 { pushAllSoon() }
  }

  var services: [any Service] { [self] }

  func report(into status: inout GatewayStatus) { status.watches = count }
}

extension WatchScheduler {
  static func part(_ context: PartContext) -> WatchScheduler {
    let client = context.client
    let follow: @Sendable (String, Bool) -> Void = { topic, on in
      if on {
        try? client.subscribe(topic, qos: 0)
        try? client.subscribe(topic + "/+", qos: 0)
      } else {
        client.unsubscribe(topic)
        client.unsubscribe(topic + "/+")
      }
    }
    return WatchScheduler(
      resolver: context.resolver, outbox: context.outbox, configuration: context.configuration,
      clock: context.clock, scheduled: context.scheduled, members: context.members,
      board: context.board, clear: { topic in _ = context.own.send(topic, []) },
      follow: context.members == nil ? nil : follow, logger: context.logger)
  }
}
