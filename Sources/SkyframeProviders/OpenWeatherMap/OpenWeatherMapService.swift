import SkyframeCodec

/// OpenWeatherMap as the gateway knows it: an API key required, one point per call (two with
/// the free plan's APIs), names for positions, the configuration section `openweathermap`.
public struct OpenWeatherMapService: ServiceDescriptor {
  public static let name = "openweathermap"
  public static let frameService = WeatherService.openWeatherMap
  public static let attribution = Attribution(
    text: "Weather data by OpenWeather", license: "CC BY-SA 4.0",
    url: "https://openweathermap.org/")
  public static let reverseGeocodes = true
  public static let secretKeys = ["api-key"]

  public var apiKey: String?
  public var baseURL = "https://api.openweathermap.org"
  public var timeoutSeconds = 10
  /// One Call 3.0 (one call per forecast, hourly steps) instead of current weather plus the
  /// 5-day/3-hour forecast (two calls).
  public var oneCall = false
  /// The free plan: 60 calls a minute, 1 000 000 a month.
  public var budget = ServiceBudget(perMinute: 60, perDay: 32_000)

  public init() {}

  public mutating func read(_ keys: any SectionReader, inUse: Bool) {
    let name = Self.name
    apiKey = keys.apiKey(name, inUse: inUse)
    baseURL = keys.url("\(name).base-url") ?? baseURL
    timeoutSeconds = keys.integer(
      "\(name).timeout-seconds", timeoutSeconds, 1...120, "seconds, 1-120")
    oneCall = keys.flag("\(name).one-call", oneCall)
    budget = keys.budget(name, budget)
  }

  public var describedLines: [String] {
    [
      "api-key: \(apiKey == nil ? "~" : "<redacted>")",
      "base-url: \"\(baseURL)\"",
      "timeout-seconds: \(timeoutSeconds)",
      "one-call: \(oneCall)",
      "budget-per-minute: \(budget.perMinute)",
      "budget-per-day: \(budget.perDay)",
    ]
  }

  public func provider(_ context: ProviderContext) -> (any WeatherProvider)? {
    guard let apiKey else { return nil }
    var settings = OpenWeatherMapConfiguration(
      apiKey: apiKey, baseURL: baseURL, timeout: .seconds(timeoutSeconds), useOneCall: oneCall)
    settings.alerts = context.alerts
    return OpenWeatherMapProvider(
      configuration: settings, httpClient: context.httpClient, logger: context.logger)
  }
}
