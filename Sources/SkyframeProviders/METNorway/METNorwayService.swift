import SkyframeCodec

/// MET Norway (the Norwegian Meteorological Institute) as the gateway knows it: no key, but an
/// identifying `User-Agent` with a contact, one point per call, the configuration section
/// `met-norway`.
public struct METNorwayService: ServiceDescriptor {
  public static let name = "met-norway"
  public static let frameService = WeatherService.metNorway
  public static let attribution = Attribution(
    text: "Weather data from MET Norway (the Norwegian Meteorological Institute)",
    license: "CC BY 4.0", url: "https://api.met.no/")

  public var baseURL = "https://api.met.no/weatherapi/locationforecast/2.0"
  /// Required when the service is used: the application and a contact (an e-mail address or a
  /// web address), which MET Norway's terms ask for; generic agents are refused with 403.
  public var userAgent: String?
  public var timeoutSeconds = 10
  /// Where names are looked up: MET Norway has no geocoding, so Open-Meteo's.
  public var geocodingURL = "https://geocoding-api.open-meteo.com/v1/search"
  /// Points whose last answer is kept for `Expires` and `If-Modified-Since`.
  public var rememberedPoints = 2_000
  /// The terms allow 20 requests a second for a whole application; the default keeps well under.
  public var budget = ServiceBudget(perMinute: 300, perDay: 100_000)

  public init() {}

  public mutating func read(_ keys: any SectionReader, inUse: Bool) {
    let name = Self.name
    baseURL = keys.url("\(name).base-url") ?? baseURL
    userAgent = keys.text("\(name).user-agent")
    timeoutSeconds = keys.timeoutSeconds(name, timeoutSeconds)
    geocodingURL = keys.url("\(name).geocoding-url") ?? geocodingURL
    rememberedPoints = keys.integer(
      "\(name).remembered-points", rememberedPoints, 1...1_000_000, "points, 1-1000000")
    budget = keys.budget(name, budget)
    if let userAgent, !identifiesOperator(userAgent) {
      keys.fail(
        "\(name).user-agent", userAgent, identifyingAgentRule)
    } else if inUse, userAgent == nil {
      keys.fail(
        "\(name).user-agent", nil,
        "an identifying User-Agent with a contact, e.g. \"acme-displays/1.0 ops@example.com\" (MET Norway's terms), since the configuration uses \(name)"
      )
    }
  }

  public var describedLines: [String] {
    [
      "base-url: \"\(baseURL)\"",
      "user-agent: \(userAgent.map { "\"\($0)\"" } ?? "~")",
      "timeout-seconds: \(timeoutSeconds)",
      "geocoding-url: \"\(geocodingURL)\"",
      "remembered-points: \(rememberedPoints)",
    ] + budget.describedLines
  }

  public func provider(_ context: ProviderContext) -> (any WeatherProvider)? {
    guard let userAgent else { return nil }
    return METNorwayProvider(
      configuration: METNorwayProvider.Configuration(
        baseURL: baseURL, userAgent: userAgent, timeout: .seconds(timeoutSeconds),
        rememberedPoints: rememberedPoints, geocodingURL: geocodingURL),
      httpClient: context.httpClient, logger: context.logger, now: context.now, clock: context.clock
    )
  }
}
