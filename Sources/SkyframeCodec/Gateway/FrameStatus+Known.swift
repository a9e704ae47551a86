// The lists of known values, kept out of Decoder/: a firmware that never lists them does not
// pay for the arrays.

extension FrameStatus {
  public static let allKnown: [FrameStatus] = [
    .ok, .stale, .notFound, .badRequest, .upstreamUnavailable, .rateLimited, .tooManyLocations,
    .internalError,
  ]
}

extension WeatherService {
  public static let allKnown: [WeatherService] = [
    .none, .openMeteo, .openWeatherMap, .weatherAPI, .metNorway,
  ]
}

extension FrameStatus {
  /// `ok` and `stale`: the frames that carry weather (and may be answered `unchanged`).
  public var carriesWeather: Bool { self == .ok || self == .stale }
}
