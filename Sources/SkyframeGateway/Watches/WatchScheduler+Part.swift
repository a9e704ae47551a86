import ServiceLifecycle
import SkyframeMQTT
import Synchronization

/// Watches as a part: retained watch messages on `{base}/v1/watch/{device}`, pushed on their
/// schedule by the scheduler's own service.
extension WatchScheduler: GatewayPart {
  var subscriptions: [String] { [settings.withLock { $0.topics.watches }] }

  var claims: [TopicClaim] {
    [.device(under: settings.withLock { $0.topics.base } + "/v1/watch/")]
  }

  func receive(claim: Int, rest: String, _ message: MQTTIncoming) {
    receive(device: rest, payload: [UInt8](message.payload), retained: message.retain)
  }

  func apply(_ configuration: GatewayConfiguration) { update(configuration) }

  /// A broker that kept nothing of the gateway may have lost the retained frames too
  /// (restarted without persistence): every watch is pushed again soon, at its interval after.
  func connected(sessionPresent: Bool) {
    if !sessionPresent { pushAllSoon() }
  }

  var services: [any Service] { [self] }

  func report(into status: inout GatewayStatus) { status.watches = count }
}

extension WatchScheduler {
  static func part(_ context: PartContext) -> WatchScheduler {
    WatchScheduler(
      resolver: context.resolver, outbox: context.outbox, configuration: context.configuration,
      clock: context.clock, scheduled: context.scheduled, members: context.members,
      board: context.board, clear: { topic in _ = context.own.send(topic, []) },
      logger: context.logger)
  }
}
