/// Where and how to reach WeatherAPI.com. The base URL is configurable so that tests and proxies
/// can stand in for the service.
public struct WeatherAPIConfiguration: Sendable {
  /// Scheme and host; the provider appends `/v1/forecast.json` and `/v1/search.json`.
  public var baseURL: String
  /// Sent as `key`; never logged.
  public var apiKey: String
  /// Deadline for one upstream call, from sending the request to the last byte of the body.
  public var timeout: Duration
  /// Days of forecast, today included: 3 on the free plan, at most 14 on paid plans. Values
  /// outside 1…14 are clamped.
  public var days: Int
  /// Sent as `lang` when it is not English (the service's default). It only translates the
  /// condition texts, which the gateway does not use (it maps the codes), and not place names.
  public var language: String
  /// Ask for the weather alerts in force (`alerts=yes`, in the same call).
  public var alerts = false

  public init(
    apiKey: String,
    baseURL: String = "https://api.weatherapi.com",
    timeout: Duration = .seconds(10),
    days: Int = 3,
    language: String = "en"
  ) {
    self.apiKey = apiKey
    self.baseURL = baseURL
    self.timeout = timeout
    self.days = days
    self.language = language
  }
}
