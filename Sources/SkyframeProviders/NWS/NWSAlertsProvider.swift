import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOFoundationCompat
import SkyframeWeather

/// The US National Weather Service's active alerts for a point (`/alerts/active?point=LAT,LON`,
/// GeoJSON), for frames of places in the United States. No key; every call carries the
/// operator's identifying `User-Agent`, which the service requires.
public struct NWSAlertsProvider: Sendable {
  public struct Configuration: Sendable {
    /// `https://api.weather.gov`.
    public var baseURL: String
    public var userAgent: String
    public var timeout: Duration

    public init(baseURL: String, userAgent: String, timeout: Duration) {
      self.baseURL = baseURL
      self.userAgent = userAgent
      self.timeout = timeout
    }
  }

  public let configuration: Configuration
  private let httpClient: HTTPClient
  private let logger: Logger
  private let clock: ProviderClock
  public static let name = "nws-alerts"

  public init(
    configuration: Configuration, httpClient: HTTPClient, logger: Logger,
    clock: ProviderClock = .system
  ) {
    self.clock = clock
    self.configuration = configuration
    self.httpClient = httpClient
    self.logger = logger
  }

  /// Whether `point` lies in one of the areas the NWS issues alerts for: the contiguous states,
  /// Alaska, Hawaii, Puerto Rico and the Virgin Islands, Guam and the Northern Marianas,
  /// American Samoa (boxes; a point near a border may be asked and get no alerts).
  public static func covers(_ point: GeoPoint) -> Bool {
    let (latitude, longitude) = (point.latitude, point.longitude)
    let areas: [(ClosedRange<Double>, ClosedRange<Double>)] = [
      (24.4...49.5, -125.0...(-66.9)),  // contiguous states
      (51.0...71.6, -180.0...(-129.9)),  // Alaska
      (51.0...53.1, 172.0...180.0),  // the western Aleutians
      (18.8...22.4, -160.4...(-154.7)),  // Hawaii
      (17.6...18.6, -67.4...(-64.5)),  // Puerto Rico, the Virgin Islands
      (13.2...20.6, 144.6...146.1),  // Guam, the Northern Marianas
      (-14.6...(-11.0), -171.2...(-168.1)),  // American Samoa
    ]
    return areas.contains { $0.0.contains(latitude) && $0.1.contains(longitude) }
  }

  /// The alerts the service lists as active for `point` (actual alerts and updates, not tests or
  /// cancellations), with their CAP severity and when they are in force.
  public func alerts(at point: GeoPoint) async throws(ProviderError) -> [Forecast.Alert] {
    try point.checkForRequest()
    let base = joinedURL(configuration.baseURL, "/alerts/active")
    var query = QueryString()
    query.append(
      "point",
      fourDecimalText(degrees: point.latitude) + "," + fourDecimalText(degrees: point.longitude))
    var call = UpstreamCall(
      service: Self.name, endpoint: base, url: query.url(base: base),
      loggedURL: query.url(base: base), timeout: configuration.timeout)
    call.clock = clock
    call.userAgent = configuration.userAgent
    let body = try await call.body(client: httpClient, logger: logger) { body in
      let problem = try? JSONDecoder().decode(Problem.self, from: body)
      return problem?.detail ?? problem?.title
    }
    return try decodeJSON(NWSAlertsResponse.self, from: body).alerts()
  }

  /// The service's error shape (RFC 7807 problem details).
  private struct Problem: Decodable {
    var title: String?
    var detail: String?
  }
}

/// `/alerts/active` as GeoJSON: a FeatureCollection whose features' `properties` carry CAP
/// values. Times are ISO 8601 with the issuing office's offset.
struct NWSAlertsResponse: Decodable, Sendable {
  var features: [Feature]

  struct Feature: Decodable, Sendable {
    var properties: Properties
  }

  struct Properties: Decodable, Sendable {
    /// The message's id (`urn:oid:…`); every message has its own, updates included.
    var id: String?
    /// When the message was issued.
    var sent: String?
    /// The earlier messages this one updates or cancels.
    var references: [Reference]?
    var parameters: Parameters?
    var status: String?
    var messageType: String?
    var severity: String?
    var effective: String?
    var onset: String?
    var expires: String?
    var ends: String?
    /// "Flood Warning": what the `large` profile shows.
    var event: String?
  }

  struct Reference: Decodable, Sendable {
    var identifier: String?
  }

  struct Parameters: Decodable, Sendable {
    /// P-VTEC strings, `/O.CON.KPQR.FA.A.0004.000000T0000Z-191222T1800Z/`: action, office,
    /// phenomenon, significance and event number.
    var vtec: [String]?

    enum CodingKeys: String, CodingKey {
      case vtec = "VTEC"
    }
  }

  /// Each alert once. In force from `onset` (else `effective`) until `ends`; without `ends` (NWS:
  /// null) the end is unknown — "until further notice" — and not `expires`, which is when the
  /// message itself lapses (a newer one usually replaces it). `Test`, `Exercise`, `System` and
  /// `Draft` messages and cancellations are left out, and so is every message that another in the
  /// answer references (an update or a cancellation replaces it). One event under several ids
  /// (the same VTEC office, phenomenon, significance and number) counts once, as its latest
  /// message; so does an alert listed twice with the same event, severity and times.
  func alerts() -> [Forecast.Alert] {
    let actual = features.map(\.properties).filter { ($0.status ?? "Actual") == "Actual" }
    let replaced = Set(actual.flatMap { $0.references ?? [] }.compactMap(\.identifier))
    let messages = actual.filter { message in
      message.messageType != "Cancel" && !(message.id.map(replaced.contains) ?? false)
    }
    // The latest message of each VTEC event.
    var latest: [String: (index: Int, sent: Int64)] = [:]
    for (index, message) in messages.enumerated() {
      guard let event = message.vtecEvent else { continue }
      let sent = message.sent.flatMap(Self.unixTime) ?? .min
      if let kept = latest[event], kept.sent > sent { continue }
      latest[event] = (index, sent)
    }
    let alerts = messages.enumerated().compactMap { index, message -> Forecast.Alert? in
      if let event = message.vtecEvent, latest[event]?.index != index { return nil }
      return Forecast.Alert(
        severity: Forecast.Alert.severity(cap: message.severity),
        start: (message.onset ?? message.effective).flatMap(Self.unixTime),
        end: message.ends.flatMap(Self.unixTime),
        event: message.event.flatMap { $0.isEmpty ? nil : $0 })
    }
    return Forecast.Alert.distinct(alerts)
  }

  /// `2019-12-20T13:34:00-08:00` as Unix seconds.
  static func unixTime(_ text: String) -> Int64? {
    let parser = ISO8601DateFormatter()
    parser.formatOptions = [.withInternetDateTime]
    return parser.date(from: text).map { Int64($0.timeIntervalSince1970) }
  }
}

extension NWSAlertsResponse.Properties {
  /// The event the message is about, `KPQR.FA.A.0004`, from its first P-VTEC string that does not
  /// end the event (`CAN`, `EXP`, `UPG`); nil without one.
  var vtecEvent: String? {
    for vtec in parameters?.vtec ?? [] {
      let fields = vtec.split(separator: "/").first?.split(separator: ".") ?? []
      guard fields.count >= 6, !["CAN", "EXP", "UPG"].contains(fields[1]) else { continue }
      return fields[2...5].joined(separator: ".")
    }
    return nil
  }
}
