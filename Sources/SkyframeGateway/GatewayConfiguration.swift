import SkyframeCodec
import SkyframeMQTT
import SkyframeProviders

/// Everything the gateway is told by its configuration file and environment. Keys and defaults
/// are documented in `config/skyframe.example.yaml`; `GatewayConfiguration+ConfigReader.swift`
/// reads and checks them.
public struct GatewayConfiguration: Sendable, Equatable {
  public var mqtt = MQTT()
  public var topics = Topics()
  public var openMeteo = OpenMeteo()
  public var cache = Cache()
  public var requests = Requests()
  public var locations: [NamedLocation] = []
  public var logLevel = "info"

  public init() {}

  public struct MQTT: Sendable, Equatable {
    public var host = "127.0.0.1"
    public var port = 1883
    public var clientID = "skyframe-gateway"
    public var username: String?
    public var password: String?
    public var keepAliveSeconds = 30
    /// "5" or "3.1.1".
    public var protocolVersion = "5"
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?

    public init() {}
  }

  public struct Topics: Sendable, Equatable {
    public var base = "skyframe"
    /// A v5 response topic must start with this, or the device gets `bad_request` on its own topic.
    public var responsePrefix = "skyframe/v1/"
    /// Mirror each answer as JSON on the same topic + "/json", for `mosquitto_sub -v`.
    public var debugJSON = false

    public init() {}

    public var requests: String { "\(base)/v1/req/+" }
    public func request(device: String) -> String { "\(base)/v1/req/\(device)" }
    public func frame(device: String) -> String { "\(base)/v1/frame/\(device)" }
    public func location(name: String) -> String { "\(base)/v1/loc/\(name)" }
    public var state: String { "\(base)/v1/gateway/state" }

    /// The device id of a request topic, or nil when the topic is not one.
    public func device(inRequestTopic topic: String) -> Substring? {
      // Compared piecewise so that no prefix string is built per request.
      var rest = Substring(topic)
      for part in [base, "/v1/req/"] {
        guard rest.hasPrefix(part) else { return nil }
        rest = rest.dropFirst(part.count)
      }
      return rest
    }
  }

  public struct OpenMeteo: Sendable, Equatable {
    public var forecastURL = "https://api.open-meteo.com/v1/forecast"
    public var geocodingURL = "https://geocoding-api.open-meteo.com/v1/search"
    public var timeoutSeconds = 10
    public var apiKey: String?

    public init() {}
  }

  public struct Cache: Sendable, Equatable {
    public var ttlSeconds = 600
    /// Coordinates are rounded to cells of this many degrees (0.01° ≈ 1.1 km north–south).
    public var gridDegrees = 0.01
    /// How long an expired entry may still be served as `stale` when the service fails.
    public var staleSeconds = 86_400
    public var geocodingTTLSeconds = 86_400

    public init() {}
  }

  public struct Requests: Sendable, Equatable {
    public var maximumLocations = 7

    public init() {}
  }

  /// A place the gateway keeps fresh and publishes retained, for displays that only subscribe.
  public struct NamedLocation: Sendable, Equatable {
    public var name: String
    public var place: Place
    public var refreshSeconds: Int

    public enum Place: Sendable, Equatable {
      case coordinates(latitude: Double, longitude: Double)
      case named(String, countryCode: String?)
    }

    public init(name: String, place: Place, refreshSeconds: Int) {
      self.name = name
      self.place = place
      self.refreshSeconds = refreshSeconds
    }
  }
}

extension GatewayConfiguration {
  public var mqttConfiguration: MQTTConfiguration {
    var configuration = MQTTConfiguration(clientID: mqtt.clientID, host: mqtt.host, port: mqtt.port)
    configuration.username = mqtt.username
    configuration.password = mqtt.password
    configuration.keepAlive = .seconds(mqtt.keepAliveSeconds)
    configuration.protocolVersion = mqtt.protocolVersion == "3.1.1" ? .v311 : .v5
    if let caFile = mqtt.caFile {
      configuration.tls = .init(caFile: caFile, certFile: mqtt.certFile, keyFile: mqtt.keyFile)
    }
    configuration.cleanSession = false
    configuration.will = .init(
      topic: topics.state, payload: Array(#"{"state":"offline"}"#.utf8), qos: 1, retain: true)
    return configuration
  }

  public var openMeteoConfiguration: OpenMeteoConfiguration {
    var configuration = OpenMeteoConfiguration()
    configuration.forecastURL = openMeteo.forecastURL
    configuration.geocodingURL = openMeteo.geocodingURL
    configuration.timeout = .seconds(openMeteo.timeoutSeconds)
    configuration.apiKey = openMeteo.apiKey
    return configuration
  }
}
