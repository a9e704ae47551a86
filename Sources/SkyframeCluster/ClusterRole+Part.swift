import SkyframeGateway

extension PartKind {
  /// This member's part in a cluster (`cluster.group`); none alone.
  public static let cluster = PartKind(name: "cluster") { ClusterRole.part($0) }
}

extension ClusterRole {
  /// This member's part in the cluster; nil alone.
  static func part(_ context: PartContext) -> ClusterRole? {
    context.members.map { members in
      ClusterRole(
        members: members, fleet: context.fleet, configuration: context.configuration,
        desk: context.desk, client: context.client, own: context.own, clock: context.clock,
        logger: context.logger, limiter: context.logLimiter, background: context.background,
        isConnected: context.isConnected, servicesPaused: context.servicesPaused)
    }
  }
}
