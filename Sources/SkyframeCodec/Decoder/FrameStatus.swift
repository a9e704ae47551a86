/// What a frame answers: weather, or why there is none.
///
/// A raw byte with named values rather than a closed enum, so that a decoder built for v1.0 still
/// reads a frame from a v1.x gateway that knows more statuses (it shows the number).
public struct FrameStatus: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Fresh weather from the service.
  public static let ok = FrameStatus(rawValue: 0)
  /// Weather from the cache because the service failed or the budget is spent; `fetchedAt` says when.
  public static let stale = FrameStatus(rawValue: 1)
  /// No place matches the name.
  public static let notFound = FrameStatus(rawValue: 2)
  /// The request could not be understood.
  public static let badRequest = FrameStatus(rawValue: 3)
  /// The weather service failed (network down, timeout, 5xx, malformed answer) and nothing is cached.
  public static let upstreamUnavailable = FrameStatus(rawValue: 4)
  /// The device asks too often, or the service budget is spent and nothing is cached.
  public static let rateLimited = FrameStatus(rawValue: 5)
  /// The request names more places than the gateway allows.
  public static let tooManyLocations = FrameStatus(rawValue: 6)
  /// The gateway itself failed.
  public static let internalError = FrameStatus(rawValue: 7)

  /// Whether the frame carries weather (`ok` or `stale`).
  public var hasWeather: Bool { self == .ok || self == .stale }

  /// The spec's name for the status, e.g. `not_found`; nil for a status this version does not know.
  public var name: StaticString? {
    switch rawValue {
    case 0: "ok"
    case 1: "stale"
    case 2: "not_found"
    case 3: "bad_request"
    case 4: "upstream_unavailable"
    case 5: "rate_limited"
    case 6: "too_many_locations"
    case 7: "internal_error"
    default: nil
    }
  }
}

/// Which weather service answered.
public struct WeatherService: RawRepresentable, Hashable, Sendable {
  public var rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// No service answered (error frames).
  public static let none = WeatherService(rawValue: 0)
  public static let openMeteo = WeatherService(rawValue: 1)
  public static let openWeatherMap = WeatherService(rawValue: 2)
  public static let weatherAPI = WeatherService(rawValue: 3)
  /// MET Norway Locationforecast 2.0 (frame v1.1).
  public static let metNorway = WeatherService(rawValue: 4)

  /// The spec's name, e.g. `open-meteo`; nil for a service this version does not know.
  public var name: StaticString? {
    switch rawValue {
    case 0: "none"
    case 1: "open-meteo"
    case 2: "openweathermap"
    case 3: "weatherapi"
    case 4: "met-norway"
    default: nil
    }
  }
}

/// Whether the sun rises and sets on the frame's day 0.
public enum SunState: UInt8, Sendable, CaseIterable {
  /// Sunrise and sunset both happen (either may still be missing if the service left it out).
  case normal = 0
  /// The sun does not set: midnight sun.
  case polarDay = 1
  /// The sun does not rise.
  case polarNight = 2

  /// Its name in frame-v1.md §5.3 and the JSON mirror.
  public var name: StaticString {
    switch self {
    case .normal: "normal"
    case .polarDay: "polar_day"
    case .polarNight: "polar_night"
    }
  }
}
