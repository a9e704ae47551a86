import SkyframeCodec

/// Open-Meteo as the gateway knows it: the default service, no key needed, up to `batch-size`
/// points per call, the configuration section `open-meteo`.
public struct OpenMeteoService: ServiceDescriptor {
  public static let name = "open-meteo"
  public static let frameService = WeatherService.openMeteo
  public static let attribution = Attribution(
    text: "Weather data by Open-Meteo.com", license: "CC BY 4.0", url: "https://open-meteo.com/")
  public static let secretKeys = ["api-key"]

  public var forecastURL = "https://api.open-meteo.com/v1/forecast"
  public var geocodingURL = "https://geocoding-api.open-meteo.com/v1/search"
  public var timeoutSeconds = 10
  /// Commercial customers' key; the free API takes none.
  public var apiKey: String?
  public var batchSize = 50
  /// The free tier: fewer than 600 calls a minute and 10 000 a day.
  public var budget = ServiceBudget(perMinute: 600, perDay: 10_000)

  public init() {}

  public mutating func read(_ keys: any SectionReader, inUse: Bool) {
    let name = Self.name
    forecastURL = keys.url("\(name).forecast-url") ?? forecastURL
    geocodingURL = keys.url("\(name).geocoding-url") ?? geocodingURL
    timeoutSeconds = keys.timeoutSeconds(name, timeoutSeconds)
    apiKey = keys.text("\(name).api-key", secret: true)
    batchSize = keys.integer("\(name).batch-size", batchSize, 1...100, "1-100 points per call")
    budget = keys.budget(name, budget)
  }

  public var describedLines: [String] {
    [
      "forecast-url: \"\(forecastURL)\"",
      "geocoding-url: \"\(geocodingURL)\"",
      "timeout-seconds: \(timeoutSeconds)",
      "api-key: \(apiKey == nil ? "~" : "<redacted>")",
      "batch-size: \(batchSize)",
    ] + budget.describedLines
  }

  /// The 15-minute steps that let frames be composed for `seconds` after a call: the next hour's
  /// precipitation is read an hour past the last, and the call may come up to a step after the
  /// first; none for 0.
  public static func seriesSteps(for seconds: Int) -> Int {
    seconds > 0 ? (seconds + 3_600 + 900) / 900 + 1 : 0
  }

  /// The provider's settings; `airQualityURL` comes from the `air-quality` section.
  public func configuration(airQualityURL: String? = nil) -> OpenMeteoConfiguration {
    var configuration = OpenMeteoConfiguration()
    configuration.forecastURL = forecastURL
    configuration.geocodingURL = geocodingURL
    if let airQualityURL { configuration.airQualityURL = airQualityURL }
    configuration.timeout = .seconds(timeoutSeconds)
    configuration.apiKey = apiKey
    configuration.maximumBatchSize = batchSize
    return configuration
  }

  public func provider(_ context: ProviderContext) -> (any WeatherProvider)? {
    var configuration = configuration()
    configuration.seriesSteps = Self.seriesSteps(for: context.seriesSeconds)
    return OpenMeteoProvider(
      configuration: configuration, httpClient: context.httpClient, logger: context.logger,
      clock: context.clock)
  }
}
