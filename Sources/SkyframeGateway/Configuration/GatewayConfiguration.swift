import SkyframeCodec
import SkyframeMQTT
import SkyframeProviders

/// Everything the gateway is told by its configuration file and environment. Keys and defaults
/// are documented in `config/skyframe.example.yaml`. Each section reads, checks and describes
/// itself (`GatewayConfiguration+EndpointSections.swift`, `+WeatherSections`, `+LimitSections`,
/// `+Locations`); `GatewayConfiguration+ConfigReader.swift` reads the sections in order.
public struct GatewayConfiguration: Sendable, Equatable {
  public var mqtt = MQTT()
  public var topics = Topics()
  public var weather = Weather()
  /// Each weather service's own section, read and described by its descriptor.
  public var services = ServiceSections()
  public var places = Places()
  public var watches = Watches()
  public var cache = Cache()
  public var runs = Runs()
  public var requests = Requests()
  public var upstream = Upstream()
  public var metrics = Metrics()
  public var airQuality = AirQualitySettings()
  public var alerts = Alerts()
  public var cluster = ClusterSettings()
  /// The parts the gateway is made of, in the order their routes are tried and their services
  /// start: the core's unless the program that reads the file lists more (`skyframe` lists every
  /// part in `SkyframeAssembly` (`PartKind.all`)). Their sections are read after the core's.
  public var parts = PartKind.core
  /// The sections of the parts that have one (LoRaWAN's `lorawan`, Home Assistant's
  /// `homeassistant`), each read, described and typed by its own module.
  public var sections = PartSections()

  /// Weather alerts in frames (v1.1): from the weather service's own answer where it has them
  /// (WeatherAPI.com `alerts=yes`, OpenWeatherMap One Call), in the same call; for places in the
  /// United States from the National Weather Service, whatever the weather service.
  public struct Alerts: Sendable, Equatable {
    /// false: the frame says "absent", not "none".
    public var enabled = true
    public var nws = NWS()

    /// `api.weather.gov` active alerts, one call per cell per `ttlSeconds`, for points in the
    /// areas it covers. Needs an identifying `User-Agent`; without one it stays off.
    public struct NWS: Sendable, Equatable {
      public var enabled = true
      public var url = "https://api.weather.gov"
      public var userAgent: String?
      public var timeoutSeconds = 10
      public var ttlSeconds = 300
      /// How long a frame waits for the alerts of its cell; a later answer serves the next frame.
      public var waitMilliseconds = 2_000
      public var budget = Budget(perMinute: 60, perDay: 20_000)

      public init() {}

      /// On, and able to identify itself.
      public var isUsable: Bool { enabled && userAgent != nil }
    }

    public init() {}
  }
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
    /// libmosquitto's window of unacknowledged QoS 1 publishes to the broker; 0: no limit of ours.
    /// 100 by default: libmosquitto walks every unacknowledged publish each time it queues one, so
    /// an unbounded window costs more CPU per answer the more answers are in flight.
    public var maximumInflight = 100
    /// MQTT 5 receive maximum: unacknowledged QoS 1 requests the broker may send us; 0: 65 535.
    public var receiveMaximum = 0
    /// Connections that share the request subscription (MQTT 5 shared subscription), each with
    /// its own network thread; the first also carries everything else. 1: no sharing.
    public var requestConnections = 1
    /// Devices that behave given a connection of their own while the gateway is flooded
    /// (`FastLane`); 0: no fast lane.
    public var fastLaneDevices = 1_024

    public init() {}
  }

  public struct Topics: Sendable, Equatable {
    public var base = "skyframe"
    /// A v5 response topic must be `{responsePrefix}{device}` or below it, or the device gets
    /// `bad_request` on its own frame topic (`ResponseTopicRule`).
    public var responsePrefix = "skyframe/v1/resp/"
    /// Longer response topics are refused.
    public var responseTopicMaximumLength = 128
    /// Mirror each answer as JSON on the same topic + "/json", for `mosquitto_sub -v`.
    public var debugJSON = false
    /// The QoS of answers to requests: the request's own, or always 0 or 1. Retained frames
    /// (named places, watches, state) are always QoS 1.
    public var answerQoS = AnswerQoS.request

    public enum AnswerQoS: String, Sendable, Equatable, CaseIterable {
      case request
      case zero = "0"
      case one = "1"

      /// The QoS to answer a request that arrived at `requestQoS` with.
      public func qos(answering requestQoS: Int) -> Int {
        switch self {
        case .request: min(requestQoS, 1)
        case .zero: 0
        case .one: 1
        }
      }
    }

    public init() {}

    public var requests: String { "\(base)/v1/req/+" }
    public func request(device: String) -> String { "\(base)/v1/req/\(device)" }
    public func frame(device: String) -> String { "\(base)/v1/frame/\(device)" }
    public func location(name: String) -> String { "\(base)/v1/loc/\(name)" }
    /// Where a named place is published in `profile`.
    public func location(name: String, profile: FrameProfile) -> String {
      profile == .standard ? location(name: name) : "\(base)/v1/loc/\(name)/\(profile.name)"
    }
    public var watches: String { "\(base)/v1/watch/+" }

    public var state: String { "\(base)/v1/gateway/state" }
    public var stats: String { "\(base)/v1/gateway/stats" }
    /// A named place's or watched place's state for Home Assistant: `{base}/v1/state/{path}`.
    public func displayState(_ path: String) -> String { "\(base)/v1/state/\(path)" }
    public var info: String { "\(base)/v1/gateway/info" }
    /// A cluster member's retained presence.
    public func instance(_ id: String) -> String { "\(base)/v1/gateway/instances/\(id)" }
    public var instances: String { "\(base)/v1/gateway/instances/+" }
    /// Cells a member asks another (the cell's owner) to fetch for the fleet.
    public func wants(_ id: String) -> String { "\(base)/v1/gateway/want/\(id)" }
    /// The cluster's shared cache: one retained, signed entry per cell.
    public var cacheEntries: String { "\(base)/v1/gateway/cache/" }
    /// A member's takeover of `id`, gone by its last will (not retained; the taker's id): it
    /// lands in the gone member's session among the requests, so when it returns it tells the
    /// requests nobody answered (before it) from those the taker answered (after it).
    public func takeover(_ id: String) -> String { "\(base)/v1/gateway/takeover/\(id)" }
    /// `{cacheUnavailable}{cell}`: a cell's owner could not fetch it (not retained, empty).
    public var cacheUnavailable: String { "\(base)/v1/gateway/unavailable/" }
    /// The cluster's shared place names: `{base}/v1/gateway/names/{16 hex digits}`.
    public var nameEntries: String { "\(base)/v1/gateway/names/" }
  }

  public struct Weather: Sendable, Equatable {
    /// The name of a service in `WeatherServiceRegistry`.
    public var service = OpenMeteoService.name
    /// Tried in order when the service before is unavailable, rate limited or over its budget.
    public var fallback: [String] = []
    /// Cache misses for several cells within this window go upstream in one call where the
    /// service takes several points (Open-Meteo).
    public var batchWindowMilliseconds = 50

    public init() {}

    /// The service, then its fallbacks, each once.
    public var order: [String] {
      var order = [service]
      for name in fallback where !order.contains(name) { order.append(name) }
      return order
    }
  }

  /// Upstream calls allowed per minute and per UTC day; 0 is no limit.
  public typealias Budget = ServiceBudget

  /// Names for positions (reverse geocoding).
  public struct Places: Sendable, Equatable {
    public enum ReverseGeocoding: Sendable, Equatable {
      /// The first service that names positions and is configured to work (OpenWeatherMap with
      /// a key), else the GeoNames file when there is one, else none.
      case auto
      /// A service that names positions (`reverseGeocodes`), by its name.
      case service(String)
      case geonames
      /// The name field says the coordinates.
      case none

      public var name: String {
        switch self {
        case .auto: "auto"
        case .service(let name): name
        case .geonames: "geonames"
        case .none: "none"
        }
      }

      /// Every value the configuration may name.
      static var choices: [ReverseGeocoding] {
        [.auto]
          + WeatherServiceRegistry.all.filter { $0.reverseGeocodes }.map { .service($0.name) }
          + [.geonames, .none]
      }
    }

    public var reverseGeocoding = ReverseGeocoding.auto
    /// A GeoNames `cities*.txt` file for offline nearest-place names.
    public var geonamesFile: String?
    /// A position farther than this from every place in the file keeps its coordinates as name.
    public var geonamesMaximumKilometres = 20.0

    public init() {}
  }

  /// Saved places: devices publish a retained watch to `{base}/v1/watch/{device}`.
  public struct Watches: Sendable, Equatable {
    public var defaultSeconds = 1_800
    public var minimumSeconds = 60
    public var maximumWatches = 10_000
    /// Watch pushes resolved at once (each may make an upstream call); the others wait their
    /// turn.
    public var concurrency = 16

    public init() {}
  }

  /// Fetching at the models' pace (`runs` section): an Open-Meteo cell is fetched again when one
  /// of `models` has a newer run available (plus `marginSeconds`), not at every time-to-live;
  /// at `maximumAgeSeconds`, the safety net while the metadata cannot be read. Between runs the
  /// cell's frames are composed from the call's data at each moment (`ForecastSeries`).
  /// No models: the time-to-live alone.
  public struct Runs: Sendable, Equatable {
    /// Open-Meteo model names as its model-updates page lists them (`dwd_icon_d2`).
    public var models: [String] = []
    /// Where each model's `{model}/static/meta.json` is.
    public var url = "https://api.open-meteo.com/data"
    public var pollSeconds = 60
    /// Open-Meteo's servers are eventually consistent: a run is asked for this long after it
    /// became available (about 10 minutes, by its documentation).
    public var marginSeconds = 600
    public var maximumAgeSeconds = 10_800

    public var isEnabled: Bool { !models.isEmpty }

    public init() {}
  }

  public struct Cache: Sendable, Equatable {
    public var ttlSeconds = 600
    /// Coordinates are rounded to cells of this many degrees (0.01° ≈ 1.1 km north–south).
    public var gridDegrees = 0.01
    /// How long an expired entry may still be served as `stale` when the service fails.
    public var staleSeconds = 86_400
    public var geocodingTTLSeconds = 86_400
    /// Cells whose frames (and names) are kept; the least recently asked go first.
    public var maximumCells = 10_000
    /// Place names (geocoding results, misses included) kept; the least recently asked go first.
    public var maximumNames = 2_000

    public init() {}
  }

  public struct Requests: Sendable, Equatable {
    public var maximumLocations = 7
    /// Requests one device may send a minute; beyond, `rate_limited` and no upstream call. 0: no limit.
    public var perDevicePerMinute = 30
    /// Requests waiting for a worker; past it a request is answered `rate_limited` at once.
    public var queueLimit = 1_024
    /// Requests answered concurrently when they need an upstream call (cache hits are answered
    /// on arrival and never wait for a worker).
    public var workers = 32
    /// Device ids remembered (rate limit windows, last places for `refresh`, frame topics); the
    /// least recently seen go first.
    public var maximumDevices = 10_000
    /// How long a device waits, from its request's arrival, before a place whose weather is
    /// still being fetched is answered `stale` from the cache (when the cache has a frame within
    /// `cache.stale-seconds`); the fetch goes on for the next asker. 0: wait for the fetch.
    public var deadlineMilliseconds = 3_000
    /// A QoS 1 request with an id that the broker delivers again within this many seconds of
    /// the first, in the first 30 s after a reconnect that found the gateway's session (the
    /// broker's replay of its last saved database after a restart), is not answered again.
    /// Cover the broker's `autosave_interval`; 0: every copy is answered.
    public var replayWindowSeconds = 1_800

    public init() {}
  }

  /// How upstream calls are shared out: scheduled refreshes (named places, watches) first, then
  /// devices; cells nobody has asked for before are admitted at a bounded rate.
  public struct Upstream: Sendable, Equatable {
    /// Cells (and place names) not in the cache that devices may make the gateway fetch, per
    /// minute in all; 0: no limit.
    public var newCellsPerMinute = 120
    /// The same per device id; 0: no limit.
    public var newCellsPerDevicePerMinute = 20
    /// The share of every service budget kept for scheduled refreshes: device requests may
    /// spend only the rest.
    public var reservePercent = 25
    /// Failed calls in a row (refused connection, timeout, 5xx, malformed answer, bad key) after
    /// which a service's circuit breaker opens.
    public var breakerFailures = 2
    /// The first pause after the breaker opens; it doubles with each failed probe, up to
    /// `backoffMaximumSeconds`. Half of each pause is random (jitter).
    public var backoffInitialSeconds = 2
    public var backoffMaximumSeconds = 300
    /// How long a 429 without `Retry-After` stops calls to the service, at least.
    public var rateLimitedPauseSeconds = 60

    public init() {}

    var breakerPolicy: CircuitBreaker.Policy {
      CircuitBreaker.Policy(
        failures: breakerFailures, initial: .seconds(backoffInitialSeconds),
        maximum: .seconds(max(backoffMaximumSeconds, backoffInitialSeconds)),
        rateLimitPause: .seconds(rateLimitedPauseSeconds))
    }
  }

  /// The Prometheus endpoint (`/metrics`, `/health`) and the stats message.
  /// The air quality index in frames (v1.1): from Open-Meteo's air-quality API (CAMS data),
  /// cached per cell for its own TTL, batched like forecasts, with its own budget and breaker.
  public struct AirQualitySettings: Sendable, Equatable {
    public enum Service: String, Sendable, CaseIterable {
      case openMeteo = "open-meteo"
      case none
    }

    public var service = Service.openMeteo
    public var scale = AirQuality.Scale.europeanAQI
    public var url = "https://air-quality-api.open-meteo.com/v1/air-quality"
    /// The index is hourly data.
    public var ttlSeconds = 3_600
    /// How long a frame waits for the index of its cell; a later answer serves the next frame.
    public var waitMilliseconds = 2_000
    public var budget = Budget(perMinute: 300, perDay: 5_000)

    public init() {}
  }

  public struct Metrics: Sendable, Equatable {
    public var host = "127.0.0.1"
    /// 0 turns the HTTP listener off.
    public var port = 9464
    /// How often the summary goes retained to `{base}/v1/gateway/stats`; 0: never.
    public var statsSeconds = 60

    public init() {}
  }

  /// A place the gateway keeps fresh and publishes retained, for displays that only subscribe.
  public struct NamedLocation: Sendable, Equatable {
    public var name: String
    public var place: Place
    public var refreshSeconds: Int
    /// Published in each: `standard` on `{base}/v1/loc/{name}`, the others on
    /// `{base}/v1/loc/{name}/{profile}`.
    public var profiles: [FrameProfile]

    public enum Place: Sendable, Equatable {
      case coordinates(latitude: Double, longitude: Double)
      case named(String, countryCode: String?)
    }

    public init(
      name: String, place: Place, refreshSeconds: Int, profiles: [FrameProfile] = [.standard]
    ) {
      self.name = name
      self.place = place
      self.refreshSeconds = refreshSeconds
      self.profiles = profiles
    }
  }
}

extension GatewayConfiguration {
  public var mqttConfiguration: MQTTConfiguration {
    let instance = cluster.resolvedInstanceID()
    var configuration = MQTTConfiguration(
      clientID: instance ?? mqtt.clientID, host: mqtt.host, port: mqtt.port)
    configuration.username = mqtt.username
    configuration.password = mqtt.password
    configuration.keepAlive = .seconds(mqtt.keepAliveSeconds)
    configuration.protocolVersion = mqtt.protocolVersion == "3.1.1" ? .v311 : .v5
    configuration.settingNames = MQTT.settingNames
    if let caFile = mqtt.caFile {
      configuration.tls = .init(caFile: caFile, certFile: mqtt.certFile, keyFile: mqtt.keyFile)
    }
    configuration.cleanSession = false
    configuration.sendMaximum = mqtt.maximumInflight
    configuration.receiveMaximum = mqtt.receiveMaximum
    if let instance {
      // A member's session outlives it only for the failover window. Its will says which member
      // went offline: a member still alive clears that one's presence and says the fleet is
      // online with the members left; with none left, the fleet's state stays offline.
      configuration.sessionExpiry = .seconds(cluster.sessionExpirySeconds)
      configuration.will = .init(
        topic: topics.state, payload: FleetState.offline(instance), qos: 1, retain: true)
    } else {
      configuration.will = .init(
        topic: topics.state, payload: Array(#"{"state":"offline"}"#.utf8), qos: 1, retain: true)
    }
    return configuration
  }

  /// Open-Meteo's provider settings, with the air-quality API's URL.
  public var openMeteoConfiguration: OpenMeteoConfiguration {
    services[OpenMeteoService.self].configuration(airQualityURL: airQuality.url)
  }

  /// The budget of the service named `name` (unlimited for a name nobody registered).
  public func budget(of name: String) -> Budget {
    services[name]?.budget ?? Budget(perMinute: 0, perDay: 0)
  }
}

/// Every registered weather service's configuration section, by service name.
public struct ServiceSections: Sendable, Equatable {
  private var sections: [String: any ServiceDescriptor]

  public init() {
    sections = Dictionary(
      uniqueKeysWithValues: WeatherServiceRegistry.all.map { ($0.name, $0.init()) })
  }

  /// The section of service `type`.
  public subscript<Section: ServiceDescriptor>(_ type: Section.Type) -> Section {
    get { sections[Section.name] as? Section ?? Section() }
    set { sections[Section.name] = newValue }
  }

  /// The section of the service named `name`.
  public subscript(name: String) -> (any ServiceDescriptor)? {
    get { sections[name] }
    set { sections[name] = newValue }
  }

  public static func == (lhs: ServiceSections, rhs: ServiceSections) -> Bool {
    lhs.sections.count == rhs.sections.count
      && lhs.sections.allSatisfy { name, section in
        rhs.sections[name].map { section.isEqual(to: $0) } ?? false
      }
  }
}
