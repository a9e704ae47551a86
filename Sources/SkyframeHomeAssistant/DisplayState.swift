import Foundation
import SkyframeCodec
import SkyframeGateway
import SkyframeJSON
import SkyframeWeather

/// A named place's or watched place's weather as one flat JSON object, retained on
/// `{base}/v1/state/{path}` for Home Assistant's sensors (docs/integrations/home-assistant.md):
/// the frame's own fields in the one JSON shape (`frame-profiles.md` §8: the same keys, units and
/// values as `skyframe decode --json`, read off the standard table), then what a person reads in
/// words (the condition, the air quality on its scale, the alerts, the next hour, the moon).
/// Every key is written, a missing value as `null`.
struct DisplayState: Equatable {
  /// The frame's fields the state carries, by their names in the table.
  static let fields = [
    "status", "name", "country", "latitude", "longitude", "fetched_at", "temperature",
    "feels_like", "humidity", "pressure", "wind_speed", "wind_gust", "wind_direction",
    "uv_index", "visibility", "precipitation", "cloud_cover", "weather_code", "air_quality",
    "alerts", "moon", "precip_next_hour",
  ].map { name in StandardLayout.fields.first { "\($0.name)" == name }! }

  /// `(key, JSON value)` in order.
  let members: [(String, String)]

  static func == (left: Self, right: Self) -> Bool {
    left.members.map(\.0) == right.members.map(\.0)
      && left.members.map(\.1) == right.members.map(\.1)
  }

  init(frame: WeatherFrame) {
    let bytes = (try? frame.encoded()) ?? []
    var members: [(String, String)] = []
    if bytes.count == StandardLayout.size {
      bytes.withUnsafeBytes { buffer in
        let view = ProfileView(unchecked: buffer.baseAddress!, kind: .standard)
        for field in Self.fields {
          members.append(("\(field.name)", ProfileDocument.value(field, view)))
        }
      }
    }
    func text(_ value: String?) -> String { value.map(ProfileDocument.quoted) ?? "null" }
    func number(_ value: Int?) -> String { value.map { "\($0)" } ?? "null" }
    members.append(("condition", text(frame.current.weatherCode.map { WMOCode.meaning(Int($0)) })))
    members.append(("aqi", number(frame.airQuality.map { Int($0.index) })))
    members.append(("aqi_scale", text(frame.airQuality.map { "\($0.scale.name)" })))
    members.append(("alert_count", number(frame.alerts.map { Int($0.count) })))
    members.append(("alert_severity", text(frame.alerts.map { "\($0.highest.name)" })))
    let next = frame.precipitationNextHour
    members.append(("next_hour", text(next.map(Self.nextHour))))
    members.append(("next_hour_change_min", number(next?.minutesUntilChange.map(Int.init))))
    members.append(("moon_phase", text(frame.moon.map { "\($0.icon.name)" })))
    members.append(("moon_illumination", number(frame.moon?.illuminationPercent)))
    self.members = members
  }

  /// `dry for the hour`, `precipitation in 20 min`, `precipitation, stopping in 20 min`,
  /// `precipitation all hour`.
  static func nextHour(_ next: NextHourPrecipitation) -> String {
    switch (next.precipitatingNow, next.minutesUntilChange) {
    case (false, nil): "dry for the hour"
    case (false, let minutes?): "precipitation in \(minutes) min"
    case (true, nil): "precipitation all hour"
    case (true, let minutes?): "precipitation, stopping in \(minutes) min"
    }
  }

  func json() -> [UInt8] {
    Array(("{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}").utf8)
  }
}
