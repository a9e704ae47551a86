import Foundation

/// Answers in the shape of api.weather.gov's `/alerts/active?point=…` (GeoJSON), with values
/// made up here.
public enum NWSFixtures {
  public static let path = "/alerts/active"

  public struct Alert: Sendable {
    public var event: String
    public var severity: String
    public var onset: Int64
    public var ends: Int64?
    public var expires: Int64
    public var status = "Actual"
    public var messageType = "Alert"
    /// The message's id; nil: one made from its place in the list.
    public var id: String?
    /// The ids of the earlier messages it updates or cancels.
    public var references: [String] = []
    /// Its P-VTEC string, when it has one.
    public var vtec: String?
    /// When it was issued; nil: at `onset`.
    public var sent: Int64?

    public init(
      event: String, severity: String, onset: Int64, ends: Int64?, expires: Int64,
      status: String = "Actual", messageType: String = "Alert", id: String? = nil,
      references: [String] = [], vtec: String? = nil, sent: Int64? = nil
    ) {
      self.event = event
      self.severity = severity
      self.onset = onset
      self.ends = ends
      self.expires = expires
      self.status = status
      self.messageType = messageType
      self.id = id
      self.references = references
      self.vtec = vtec
      self.sent = sent
    }
  }

  /// A FeatureCollection of `alerts`, times written with the Pacific offset as the Seattle
  /// office writes them.
  public static func active(_ alerts: [Alert], point: String) -> String {
    let features = alerts.enumerated().map { index, alert in
      let id = alert.id ?? "urn:oid:2.49.0.1.840.0.test.\(index)"
      let ends = alert.ends.map { "\"\(pacific($0))\"" } ?? "null"
      let references = alert.references.map {
        #"{"@id":"https://api.weather.gov/alerts/\#($0)","identifier":"\#($0)","sender":"w-nws.webmaster@noaa.gov","sent":"\#(pacific(alert.onset - 3_600))"}"#
      }.joined(separator: ",")
      let vtec = alert.vtec.map { #","VTEC":["\#($0)"]"# } ?? ""
      return #"""
        {"id":"https://api.weather.gov/alerts/\#(id)","type":"Feature","geometry":null,"properties":{"@id":"https://api.weather.gov/alerts/\#(id)","@type":"wx:Alert","id":"\#(id)","areaDesc":"Seattle and Vicinity","geocode":{"SAME":["053033"],"UGC":["WAZ558"]},"affectedZones":["https://api.weather.gov/zones/forecast/WAZ558"],"references":[\#(references)],"sent":"\#(pacific(alert.sent ?? alert.onset))","effective":"\#(pacific(alert.onset))","onset":"\#(pacific(alert.onset))","expires":"\#(pacific(alert.expires))","ends":\#(ends),"status":"\#(alert.status)","messageType":"\#(alert.messageType)","category":"Met","severity":"\#(alert.severity)","certainty":"Likely","urgency":"Expected","event":"\#(alert.event)","sender":"w-nws.webmaster@noaa.gov","senderName":"NWS Seattle WA","headline":"\#(alert.event) issued by NWS Seattle WA","description":"...","instruction":null,"response":"Prepare","parameters":{"NWSheadline":["\#(alert.event.uppercased())"]\#(vtec)}}}
        """#
    }
    return #"""
      {"@context":["https://geojson.org/geojson-ld/geojson-context.jsonld",{"@version":"1.1","wx":"https://api.weather.gov/ontology#","@vocab":"https://api.weather.gov/ontology#"}],"type":"FeatureCollection","features":[\#(features.joined(separator: ","))],"title":"Current watches, warnings, and advisories for \#(point)","updated":"2026-11-23T00:00:00+00:00"}
      """#
  }

  /// `2026-11-23T04:00:00-08:00`.
  static func pacific(_ unix: Int64) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(secondsFromGMT: -8 * 3_600)
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssxxx"
    return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unix)))
  }
}
