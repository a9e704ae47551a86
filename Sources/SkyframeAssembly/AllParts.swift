import SkyframeCluster
import SkyframeCoAP
import SkyframeGateway
import SkyframeHTTP
import SkyframeHomeAssistant
import SkyframeLoRaWAN

extension PartKind {
  /// The gateway `skyframe` runs: every part, in the order their routes are tried and their
  /// services start. A new part is its own module (or folder of the core) and one entry here.
  public static let all: [PartKind] = [
    .cluster, .presence, .namedPlaces, .watches, .homeAssistant, .lorawan, .http, .coap, .fastLane,
  ]
}
