/// Where and how to reach OpenWeatherMap. The base URL is configurable so that tests and proxies
/// can stand in for the service.
public struct OpenWeatherMapConfiguration: Sendable {
  /// Scheme and host; the provider appends `/data/2.5/…`, `/data/3.0/onecall` and `/geo/1.0/…`.
  public var baseURL: String
  /// Sent as `appid`; never logged.
  public var apiKey: String
  /// Deadline for one upstream call, from sending the request to the last byte of the body.
  public var timeout: Duration
  /// One Call 3.0 (one call per point, hourly steps, 8 days; billed per call) instead of the free
  /// plan's current weather plus 5 day / 3 hour forecast (two calls per point).
  public var useOneCall: Bool
  /// Language of place names from geocoding, when the service has a name in it (`local_names`).
  public var language: String
  /// With One Call, keep its `alerts` (in the same call); the 2.5 API has none.
  public var alerts = false

  public init(
    apiKey: String,
    baseURL: String = "https://api.openweathermap.org",
    timeout: Duration = .seconds(10),
    useOneCall: Bool = false,
    language: String = "en"
  ) {
    self.apiKey = apiKey
    self.baseURL = baseURL
    self.timeout = timeout
    self.useOneCall = useOneCall
    self.language = language
  }
}
