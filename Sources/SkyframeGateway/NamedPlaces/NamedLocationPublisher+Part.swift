import ServiceLifecycle

/// Named places as a part: published retained on their schedule by the publisher's own service,
/// and all of them soon after every connect (a broker that lost its retained messages).
extension NamedLocationPublisher: GatewayPart {
  func connected(sessionPresent: Bool) { publishAllSoon() }

  func apply(_ configuration: GatewayConfiguration) { update(configuration) }

  var services: [any Service] { [self] }
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
