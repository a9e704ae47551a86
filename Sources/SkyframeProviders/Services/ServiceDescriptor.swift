import AsyncHTTPClient
import Logging
import SkyframeCodec

/// One weather service as the gateway knows it. Each service's folder has one type conforming:
/// its static members say what the service is (its name in the configuration, its frame id, the
/// credit its data needs); a value is the service's configuration section (read, checked and
/// described by the type itself) and builds the provider. `WeatherServiceRegistry.all` lists
/// them; nothing else in the gateway names a service.
public protocol ServiceDescriptor: Sendable, Equatable {
  /// The service's name in `weather.service`, `weather.fallback` and `/health`, and the name of
  /// its configuration section.
  static var name: String { get }
  /// The id frames carry in their `service` byte (frame-v1.md §5.1).
  static var frameService: WeatherService { get }
  /// The credit displays should show next to the data (`skyframe/v1/gateway/info`).
  static var attribution: Attribution { get }
  /// Whether the service can name a position (`places.reverse-geocoding`).
  static var reverseGeocodes: Bool { get }
  /// Keys of the section whose values are secrets (never printed, not even from the
  /// environment).
  static var secretKeys: [String] { get }

  /// The section's defaults.
  init()
  /// Reads the section through `keys` (keys are `{name}.{key}`). `inUse`: the configuration
  /// names the service, so what it needs to work (a key, a contact) must be there.
  mutating func read(_ keys: any SectionReader, inUse: Bool)
  /// Upstream calls allowed per minute and per UTC day.
  var budget: ServiceBudget { get }
  /// The section as `skyframe config check` prints it, one `key: value` per line, secrets
  /// redacted.
  var describedLines: [String] { get }
  /// The service's provider, or nil when the section lacks what the service needs.
  func provider(_ context: ProviderContext) -> (any WeatherProvider)?
}

extension ServiceDescriptor {
  public static var reverseGeocodes: Bool { false }
  public static var secretKeys: [String] { [] }

  /// Whether `other` is a section of the same service with the same values.
  public func isEqual(to other: any ServiceDescriptor) -> Bool {
    (other as? Self) == self
  }
}

/// What every provider is built with besides its own section.
public struct ProviderContext: Sendable {
  public var httpClient: HTTPClient
  public var logger: Logger
  /// Weather alerts wanted in frames (`alerts.enabled`).
  public var alerts: Bool
  /// Unix seconds on the gateway's clock (for services that say when to ask again).
  public var now: @Sendable () -> Int64
  /// The gateway's clock, for the calls' deadlines and durations.
  public var clock: ProviderClock
  /// How long the gateway composes frames from one call's data (`runs.maximum-age-seconds` under
  /// the models' runs): a service that can serve short steps that far ahead should; 0: none.
  public var seriesSeconds = 0

  public init(
    httpClient: HTTPClient, logger: Logger, alerts: Bool, now: @escaping @Sendable () -> Int64,
    clock: ProviderClock = .system
  ) {
    self.httpClient = httpClient
    self.logger = logger
    self.alerts = alerts
    self.now = now
    self.clock = clock
  }
}

/// The credit a service's data needs.
public struct Attribution: Sendable, Equatable {
  /// The text to show next to the data.
  public var text: String
  public var license: String
  public var url: String

  public init(text: String, license: String, url: String) {
    self.text = text
    self.license = license
    self.url = url
  }
}

/// Upstream calls allowed per minute and per UTC day; 0 is no limit.
public struct ServiceBudget: Sendable, Equatable {
  public var perMinute: Int
  public var perDay: Int

  public init(perMinute: Int, perDay: Int) {
    self.perMinute = perMinute
    self.perDay = perDay
  }

  /// `budget-per-minute` and `budget-per-day`, the last of a section's `describedLines`.
  public var describedLines: [String] {
    ["budget-per-minute: \(perMinute)", "budget-per-day: \(perDay)"]
  }
}

/// How a service reads its configuration section: the gateway's key reader, which checks values,
/// collects every problem and remembers which keys exist.
public protocol SectionReader: AnyObject {
  /// The value, or nil when the key is absent or empty.
  func text(_ key: String, secret: Bool) -> String?
  func integer(_ key: String, _ current: Int, _ range: ClosedRange<Int>, _ allowed: String) -> Int
  func flag(_ key: String, _ current: Bool) -> Bool
  /// An http:// or https:// URL.
  func url(_ key: String) -> String?
  /// A secret given inline (`key`) or in a file (`key-file`).
  func secretFromValueOrFile(_ key: String) -> String?
  /// `{section}.budget-per-minute` and `{section}.budget-per-day`.
  func budget(_ section: String, _ current: ServiceBudget) -> ServiceBudget
  /// Records that `key` holds `value`, which is not one of `allowed`.
  func fail(_ key: String, _ value: String?, _ allowed: String)
}

extension SectionReader {
  public func text(_ key: String) -> String? { text(key, secret: false) }

  /// `{section}.timeout-seconds`: how long one upstream call may take, 1 to 120 seconds.
  public func timeoutSeconds(_ section: String, _ current: Int) -> Int {
    integer("\(section).timeout-seconds", current, 1...120, "seconds, 1-120")
  }

  /// `{section}.api-key` (or `api-key-file`), required when the service is in use.
  public func apiKey(_ section: String, inUse: Bool) -> String? {
    let key = secretFromValueOrFile("\(section).api-key")
    if inUse, key == nil {
      fail("\(section).api-key", nil, "an API key, since the configuration uses \(section)")
    }
    return key
  }
}

/// A service reached at `base-url` with an API key it cannot do without (OpenWeatherMap,
/// WeatherAPI.com): the keys its section shares with the others of its kind, read and described
/// here around the service's own (`options`).
protocol APIKeyService: ServiceDescriptor {
  var apiKey: String? { get set }
  var baseURL: String { get set }
  var timeoutSeconds: Int { get set }
  var budget: ServiceBudget { get set }
}

extension APIKeyService {
  /// Reads `api-key` (required when `inUse`), `base-url` and `timeout-seconds`, then the
  /// service's own keys with `options`, then the budget.
  mutating func read(_ keys: any SectionReader, inUse: Bool, options: (inout Self) -> Void) {
    apiKey = keys.apiKey(Self.name, inUse: inUse)
    baseURL = keys.url("\(Self.name).base-url") ?? baseURL
    timeoutSeconds = keys.timeoutSeconds(Self.name, timeoutSeconds)
    options(&self)
    budget = keys.budget(Self.name, budget)
  }

  /// The section's lines, the key redacted, with `options` (the service's own keys) in the order
  /// `read` reads them.
  func describedLines(options: [String]) -> [String] {
    [
      "api-key: \(apiKey == nil ? "~" : "<redacted>")",
      "base-url: \"\(baseURL)\"",
      "timeout-seconds: \(timeoutSeconds)",
    ] + options + budget.describedLines
  }
}

/// Whether `agent` is a `User-Agent` that names an application and a contact (an e-mail address
/// or an http(s) URL) in at most 200 printable ASCII characters, as MET Norway and the NWS ask.
public func identifiesOperator(_ agent: String) -> Bool {
  let printable = agent.unicodeScalars.allSatisfy { (0x20...0x7E).contains($0.value) }
  let contact = agent.contains("@") || agent.contains("http://") || agent.contains("https://")
  let name = agent.split(separator: " ").contains { !$0.contains("@") && !$0.contains("://") }
  return printable && contact && name && agent.utf8.count <= 200
}

/// What a configuration error says a `User-Agent` must be (`identifiesOperator`).
public let identifyingAgentRule =
  "an application name and a contact (an e-mail address or an http(s) URL), printable ASCII, at most 200 characters"

/// The gateway's weather services: adding one is a folder and a line here.
public enum WeatherServiceRegistry {
  public static let all: [any ServiceDescriptor.Type] = [
    OpenMeteoService.self, OpenWeatherMapService.self, WeatherAPIService.self,
    METNorwayService.self,
  ]

  public static var names: [String] { all.map { $0.name } }

  /// The descriptor named `name` in the configuration.
  public static func descriptor(named name: String) -> (any ServiceDescriptor.Type)? {
    all.first { $0.name == name }
  }

  /// The descriptor of the service with frame id `service`.
  public static func descriptor(for service: WeatherService) -> (any ServiceDescriptor.Type)? {
    all.first { $0.frameService == service }
  }
}
