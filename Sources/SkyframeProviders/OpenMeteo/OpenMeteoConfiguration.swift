/// Where and how to reach Open-Meteo. The URLs are configurable because Open-Meteo can be
/// self-hosted and because commercial customers use their own host.
public struct OpenMeteoConfiguration: Sendable {
  /// The `/v1/forecast` endpoint.
  public var forecastURL: String
  /// The geocoding `/v1/search` endpoint.
  public var geocodingURL: String
  /// The air-quality API's `/v1/air-quality` endpoint.
  public var airQualityURL: String
  /// Deadline for one upstream call, from sending the request to the last byte of the body.
  public var timeout: Duration
  /// Locations per forecast call; more points are split into several calls.
  public var maximumBatchSize: Int
  /// Language of place names returned by geocoding.
  public var language: String
  /// Commercial customer key, sent as `apikey`; never logged.
  public var apiKey: String?
  /// 15-minute steps of every current variable to ask for, so that the gateway can compose the
  /// frames of the same run later (`ForecastSeries`); 0: the precipitation's eight steps alone.
  public var seriesSteps = 0

  public init(
    forecastURL: String = "https://api.open-meteo.com/v1/forecast",
    geocodingURL: String = "https://geocoding-api.open-meteo.com/v1/search",
    airQualityURL: String = "https://air-quality-api.open-meteo.com/v1/air-quality",
    timeout: Duration = .seconds(10),
    maximumBatchSize: Int = 50,
    language: String = "en",
    apiKey: String? = nil
  ) {
    self.forecastURL = forecastURL
    self.geocodingURL = geocodingURL
    self.airQualityURL = airQualityURL
    self.timeout = timeout
    self.maximumBatchSize = maximumBatchSize
    self.language = language
    self.apiKey = apiKey
  }
}
