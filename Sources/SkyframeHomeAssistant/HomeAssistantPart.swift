import SkyframeGateway
import SkyframeMQTT

/// Home Assistant MQTT discovery as a part: the displays on the board and the gateway itself are
/// announced at every connect and whenever Home Assistant says it (re)started.
struct HomeAssistantPart: GatewayPart {
  let publisher: HomeAssistantPublisher
  let board: DisplayBoard
  /// `{discovery-prefix}/status`, bound at start.
  let statusTopic: String

  init(publisher: HomeAssistantPublisher, board: DisplayBoard, settings: HomeAssistantSettings) {
    self.publisher = publisher
    self.board = board
    statusTopic = HomeAssistantPublisher.statusTopic(settings)
  }

  var subscriptions: [String] { [statusTopic] }

  var claims: [TopicClaim] { [.exact(statusTopic)] }

  func receive(claim: Int, rest: String, _ message: MQTTIncoming) {
    // Home Assistant (re)started: it forgets devices whose discovery messages are not retained,
    // so every one goes out again.
    guard message.payload.elementsEqual("online".utf8) else { return }
    publisher.announceAll(board.entries)
  }

  func connected(sessionPresent: Bool) { publisher.announceAll(board.entries) }

  func apply(_ configuration: GatewayConfiguration) {
    publisher.update(configuration, entries: board.entries)
  }

  func keepRestartOnlyKeys(of running: GatewayConfiguration, in new: inout GatewayConfiguration)
    -> [String]
  {
    guard running.homeAssistant.discoveryPrefix != new.homeAssistant.discoveryPrefix else {
      return []
    }
    new.homeAssistant.discoveryPrefix = running.homeAssistant.discoveryPrefix
    return ["homeassistant.discovery-prefix"]
  }
}

extension HomeAssistantPart {
  /// Always present: discovery can be turned on by a reload (`homeassistant.enabled`).
  static func part(_ context: PartContext) -> HomeAssistantPart {
    let publisher = HomeAssistantPublisher(
      configuration: context.configuration,
      clientID: context.configuration.mqttConfiguration.clientID, own: context.own,
      logger: context.logger, services: context.serviceNames)
    context.board.listen(publisher)
    return HomeAssistantPart(
      publisher: publisher, board: context.board, settings: context.configuration.homeAssistant)
  }
}
