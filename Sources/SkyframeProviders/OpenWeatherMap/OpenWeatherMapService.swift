import SkyframeCodec

/// OpenWeatherMap as the gateway knows it: an API key required, one point per call (two with
/// the free plan's APIs), names for positions, the configuration section `openweathermap`.
public struct OpenWeatherMapService: ServiceDescriptor, APIKeyService {
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
    read(keys, inUse: inUse) { $0.oneCall = keys.flag("\(Self.name).one-call", $0.oneCall) }
  }

  public var describedLines: [String] { describedLines(options: ["one-call: \(oneCall)"]) }

  public func provider(_ context: ProviderContext) -> (any WeatherProvider)? {
    guard let apiKey else { return nil }
    var settings = OpenWeatherMapConfiguration(
      apiKey: apiKey, baseURL: baseURL, timeout: .seconds(timeoutSeconds), useOneCall: oneCall)
    settings.alerts = context.alerts
    return OpenWeatherMapProvider(
      configuration: settings, httpClient: context.httpClient, logger: context.logger,
      clock: context.clock)
  }
}
