/// The gateway's retained state when it runs alone: online at every connect, offline when it
/// stops (its last will says offline when it dies). In a cluster `ClusterRole` writes the fleet's
/// state instead.
struct StandalonePresence: GatewayPart {
  let topics: GatewayConfiguration.Topics
  let own: OwnMessages

  func connected(sessionPresent: Bool) { own.send(topics.state, Gateway.online) }

  func leaving() { own.send(topics.state, Gateway.offline) }
}

extension StandalonePresence {
  /// Alone only: in a cluster the fleet's state is `ClusterRole`'s.
  static func part(_ context: PartContext) -> StandalonePresence? {
    context.members == nil
      ? StandalonePresence(topics: context.configuration.topics, own: context.own) : nil
  }
}
