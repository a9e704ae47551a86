import Logging
import SkyframeMQTT

/// What a part is made from: the gateway's core (the answer path's rooms, the cache, the clock,
/// the main connection's way out, the fleet) and the configuration it starts with. A part takes
/// what it needs and nothing reaches into another part.
package struct PartContext: Sendable {
  package let configuration: GatewayConfiguration
  /// The answer path every way in shares: `rooms.intake(way:configuration:)` makes a way in's
  /// device intake.
  package let rooms: AnswerRooms
  package var resolver: Resolver { rooms.resolver }
  let outbox: MQTTOutbox
  package var composer: Composer { outbox.composer }
  package let desk: WeatherDesk
  /// The main connection.
  package let client: MQTTClient
  /// The gateway's own messages (retained state, discovery): failures counted and logged.
  package let own: OwnMessages
  /// What every named place's and watched place's displays show.
  package let board: DisplayBoard
  /// The live members of the cluster; nil alone.
  package let members: ClusterMembers?
  package let fleet: FleetShare?
  package let background: BackgroundWork
  let scheduled: ScheduledWork?
  /// The names of the weather services in use.
  package let serviceNames: @Sendable () -> [String]
  /// Whether every weather service in use is paused (its breaker open).
  package let servicesPaused: @Sendable () -> Bool
  /// The fast lane and its connection; nil without one.
  let fastLane: (lane: FastLane, client: MQTTClient)?
  package let metrics: GatewayMetrics
  package let clock: GatewayClock
  package let logger: Logger
  package let logLimiter: DeviceLogLimiter
  package let isConnected: @Sendable () -> Bool
}

extension Gateway {
  /// Every part its configuration lists (`GatewayConfiguration.parts`), in that order: the order
  /// their routes are tried and their services start (they stop in reverse).
  package static func makeParts(_ context: PartContext) throws(MQTTError) -> [any GatewayPart] {
    var parts: [any GatewayPart] = []
    for kind in context.configuration.parts {
      if let part = try kind.make(context) { parts.append(part) }
    }
    return parts
  }
}
