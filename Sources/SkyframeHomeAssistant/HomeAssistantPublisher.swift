import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import Synchronization

/// Keeps Home Assistant's view of the displays in step with the board
/// (docs/integrations/home-assistant.md): a device's discovery message when its place is first
/// published, its state on every publish, an empty retained discovery message (which removes the
/// device) when it goes. Everything again when Home Assistant says `online` on `{prefix}/status`
/// (it restarted) and on every connect.
final class HomeAssistantPublisher: DisplayBoard.Listener, Sendable {
  private struct Settings {
    var homeAssistant: HomeAssistantSettings
    var topics: GatewayConfiguration.Topics
  }

  private let settings: Mutex<Settings>
  /// Displays whose discovery message is out, with the device name it gave: a subset of the
  /// board's keys, so bounded as it is. A display whose place changes name is announced again.
  private let announced = Mutex<[DisplayBoard.Key: String]>([:])
  private let own: OwnMessages
  private let logger: Logger
  /// The MQTT client id: names the gateway's own device.
  private let clientID: String
  /// The services whose breakers the gateway device shows.
  private let services: @Sendable () -> [String]

  init(
    configuration: GatewayConfiguration, clientID: String, own: OwnMessages, logger: Logger,
    services: @escaping @Sendable () -> [String]
  ) {
    settings = Mutex(
      Settings(homeAssistant: configuration.homeAssistant, topics: configuration.topics))
    self.clientID = clientID
    self.own = own
    self.logger = logger
    self.services = services
  }

  var isEnabled: Bool { settings.withLock { $0.homeAssistant.enabled } }

  /// `{prefix}/status`, where Home Assistant says `online` when it starts.
  static func statusTopic(_ settings: HomeAssistantSettings) -> String {
    "\(settings.discoveryPrefix)/status"
  }

  private var gatewayID: String {
    HomeAssistantDiscovery.gatewayObjectID(
      base: settings.withLock { $0.topics.base }, clientID: clientID)
  }

  func displayChanged(_ entry: DisplayBoard.Entry) {
    let (ha, topics) = settings.withLock { ($0.homeAssistant, $0.topics) }
    guard ha.enabled, let frame = try? WeatherFrame(decoding: entry.frame) else { return }
    let name = Self.deviceName(entry.key, frame)
    if announced.withLock({ $0.updateValue(name, forKey: entry.key) != name }) {
      announce(entry.key, frame: frame, settings: ha, topics: topics)
    }
    own.send(topics.displayState(entry.key.path), DisplayState(frame: frame).json())
  }

  func displayRemoved(_ key: DisplayBoard.Key) {
    guard announced.withLock({ $0.removeValue(forKey: key) != nil }) else { return }
    let (ha, topics) = settings.withLock { ($0.homeAssistant, $0.topics) }
    let id = HomeAssistantDiscovery.objectID(for: key, base: topics.base)
    own.send(HomeAssistantDiscovery.configTopic(prefix: ha.discoveryPrefix, objectID: id), [])
    own.send(topics.displayState(key.path), [])
  }

  /// The gateway's device and every display's, with each display's state: after a connect, and
  /// when Home Assistant (re)starts.
  func announceAll(_ entries: [DisplayBoard.Entry]) {
    let (ha, topics) = settings.withLock { ($0.homeAssistant, $0.topics) }
    guard ha.enabled else { return }
    let gateway = HomeAssistantDiscovery.gateway(
      id: gatewayID, clientID: clientID, topics: topics, services: services())
    own.send(
      HomeAssistantDiscovery.configTopic(prefix: ha.discoveryPrefix, objectID: gatewayID),
      HomeAssistantDiscovery.json(gateway))
    for entry in entries {
      guard let frame = try? WeatherFrame(decoding: entry.frame) else { continue }
      announced.withLock { $0[entry.key] = Self.deviceName(entry.key, frame) }
      announce(entry.key, frame: frame, settings: ha, topics: topics)
      own.send(topics.displayState(entry.key.path), DisplayState(frame: frame).json())
    }
    logger.debug("announced \(entries.count) display(s) to Home Assistant")
  }

  /// Takes a reloaded configuration. Turning discovery off removes every device it announced.
  func update(_ configuration: GatewayConfiguration, entries: [DisplayBoard.Entry]) {
    let wasEnabled = isEnabled
    if wasEnabled, !configuration.homeAssistant.enabled {
      let keys = announced.withLock { Array($0.keys) }
      for key in keys { displayRemoved(key) }
      let prefix = settings.withLock { $0.homeAssistant.discoveryPrefix }
      own.send(HomeAssistantDiscovery.configTopic(prefix: prefix, objectID: gatewayID), [])
    }
    settings.withLock {
      $0 = Settings(homeAssistant: configuration.homeAssistant, topics: configuration.topics)
    }
    if !wasEnabled, configuration.homeAssistant.enabled { announceAll(entries) }
  }

  /// The place's own name once the frame has one; its path until then (an error frame).
  static func deviceName(_ key: DisplayBoard.Key, _ frame: WeatherFrame) -> String {
    frame.status.hasWeather ? frame.name.string : key.path
  }

  private func announce(
    _ key: DisplayBoard.Key, frame: WeatherFrame, settings: HomeAssistantSettings,
    topics: GatewayConfiguration.Topics
  ) {
    let name = Self.deviceName(key, frame)
    let message = HomeAssistantDiscovery.display(
      key, name: name, topics: topics, gatewayID: gatewayID)
    let id = HomeAssistantDiscovery.objectID(for: key, base: topics.base)
    own.send(
      HomeAssistantDiscovery.configTopic(prefix: settings.discoveryPrefix, objectID: id),
      HomeAssistantDiscovery.json(message))
  }
}
