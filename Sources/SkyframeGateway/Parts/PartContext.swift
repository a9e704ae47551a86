import Logging
import SkyframeMQTT

/// What a part is made from: the gateway's core (the answer path's rooms, the cache, the clock,
/// the main connection's way out, the fleet) and the configuration it starts with. A part takes
/// what it needs and nothing reaches into another part.
struct PartContext: Sendable {
  let configuration: GatewayConfiguration
  let resolver: Resolver
  let outbox: MQTTOutbox
  var composer: Composer { outbox.composer }
  let desk: WeatherDesk
  /// The main connection.
  let client: MQTTClient
  /// The gateway's own messages (retained state, discovery): failures counted and logged.
  let own: OwnMessages
  /// What every named place's and watched place's displays show.
  let board: DisplayBoard
  /// The live members of the cluster; nil alone.
  let members: ClusterMembers?
  let fleet: FleetShare?
  let background: BackgroundWork
  let scheduled: ScheduledWork?
  /// The names of the weather services in use.
  let serviceNames: @Sendable () -> [String]
  /// Whether every weather service in use is paused (its breaker open).
  let servicesPaused: @Sendable () -> Bool
  /// The fast lane and its connection; nil without one.
  let fastLane: (lane: FastLane, client: MQTTClient)?
  let metrics: GatewayMetrics
  let clock: GatewayClock
  let logger: Logger
  let logLimiter: DeviceLogLimiter
  let isConnected: @Sendable () -> Bool
}

extension Gateway {
  /// Every part, in the order their routes are tried and their services start (they stop in
  /// reverse). A new part is its own folder and one line here.
  static func makeParts(_ context: PartContext) throws(MQTTError) -> [any GatewayPart] {
    let parts: [(any GatewayPart)?] = [
      ClusterRole.part(context), StandalonePresence.part(context),
      NamedLocationPublisher.part(context),
      WatchScheduler.part(context),
      HomeAssistantPart.part(context),
      try LoRaWANGateway.part(context),
      FastLanePart.part(context),
    ]
    return parts.compactMap { $0 }
  }
}
