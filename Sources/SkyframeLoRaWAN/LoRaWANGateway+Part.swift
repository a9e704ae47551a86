import ServiceLifecycle
import SkyframeGateway
import SkyframeMQTT

/// LoRaWAN as a part: a Service per network server connection (each a lease of the fleet in a
/// cluster), its settings swapped on reload, its connections in the status document.
extension LoRaWANGateway: GatewayPart {
  var services: [any Service] { connections }

  func apply(_ configuration: GatewayConfiguration) { update(configuration) }

  func report(into status: inout GatewayStatus) { status.lorawan = connections.map(\.status) }
}

extension LoRaWANGateway {
  /// Nil without `lorawan.servers`.
  static func part(_ context: PartContext) throws(MQTTError) -> LoRaWANGateway? {
    try make(
      configuration: context.configuration, rooms: context.rooms, members: context.members,
      clock: context.clock, logger: context.logger)
  }
}
