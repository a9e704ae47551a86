import SkyframeCodec

/// WeatherAPI.com as the gateway knows it: an API key required, one point per call, the
/// configuration section `weatherapi`.
public struct WeatherAPIService: ServiceDescriptor, APIKeyService {
  public static let name = "weatherapi"
  public static let frameService = WeatherService.weatherAPI
  public static let attribution = Attribution(
    text: "Powered by WeatherAPI.com",
    license: "WeatherAPI.com terms (link required on free plans)",
    url: "https://www.weatherapi.com/")
  public static let secretKeys = ["api-key"]

  public var apiKey: String?
  public var baseURL = "https://api.weatherapi.com"
  public var timeoutSeconds = 10
  /// Forecast days asked for: 3 on the free plan, up to 14 on paid ones.
  public var days = 3
  /// The free plan: 1 000 000 calls a month.
  public var budget = ServiceBudget(perMinute: 0, perDay: 32_000)

  public init() {}

  public mutating func read(_ keys: any SectionReader, inUse: Bool) {
    read(keys, inUse: inUse) {
      $0.days = keys.integer("\(Self.name).days", $0.days, 1...14, "1-14 days")
    }
  }

  public var describedLines: [String] { describedLines(options: ["days: \(days)"]) }

  public func provider(_ context: ProviderContext) -> (any WeatherProvider)? {
    guard let apiKey else { return nil }
    var settings = WeatherAPIConfiguration(
      apiKey: apiKey, baseURL: baseURL, timeout: .seconds(timeoutSeconds), days: days)
    settings.alerts = context.alerts
    return WeatherAPIProvider(
      configuration: settings, httpClient: context.httpClient, logger: context.logger,
      clock: context.clock)
  }
}
