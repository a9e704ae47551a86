import Foundation
import SkyframeCodec
import SkyframeTestSupport
import SkyframeWeather
import Testing

@testable import SkyframeProviders

/// api.weather.gov's active alerts as the frames count them: each alert once.
@Suite struct NWSAlertsParsingTests {
  static let now: Int64 = 1_795_000_000

  func alerts(_ messages: [NWSFixtures.Alert]) throws -> [Forecast.Alert] {
    let body = NWSFixtures.active(messages, point: "47.61,-122.33")
    return try JSONDecoder().decode(NWSAlertsResponse.self, from: Data(body.utf8)).alerts()
  }

  @Test func anUpdateReplacesTheMessageItReferences() throws {
    let now = Self.now
    let found = try alerts([
      NWSFixtures.Alert(
        event: "Flood Watch", severity: "Moderate", onset: now - 7_200, ends: now + 7_200,
        expires: now + 600, id: "urn:oid:flood.1"),
      NWSFixtures.Alert(
        event: "Flood Watch", severity: "Severe", onset: now - 600, ends: now + 9_000,
        expires: now + 3_600, messageType: "Update", id: "urn:oid:flood.2",
        references: ["urn:oid:flood.1"]),
      NWSFixtures.Alert(
        event: "Wind Advisory", severity: "Minor", onset: now - 600, ends: now + 3_600,
        expires: now + 3_600),
    ])
    #expect(found.map(\.event) == ["Flood Watch", "Wind Advisory"])
    #expect(found.first?.severity == .severe)
    #expect(
      Forecast(
        place: .init(name: "", countryCode: nil, latitude: 47.61, longitude: -122.33),
        utcOffsetSeconds: 0, current: .init(), hourly: [], daily: [], alerts: found
      ).alertSummary(at: now) == AlertSummary(count: 2, highest: .severe))
  }

  @Test func aCancellationRemovesTheAlertItReferences() throws {
    let now = Self.now
    let found = try alerts([
      NWSFixtures.Alert(
        event: "Heat Advisory", severity: "Moderate", onset: now - 7_200, ends: now + 7_200,
        expires: now + 600, id: "urn:oid:heat.1"),
      NWSFixtures.Alert(
        event: "Heat Advisory", severity: "Moderate", onset: now - 600, ends: now + 7_200,
        expires: now + 600, messageType: "Cancel", references: ["urn:oid:heat.1"]),
    ])
    #expect(found.isEmpty)
  }

  @Test func oneEventUnderTwoIdsCountsOnceAsItsLatestMessage() throws {
    let now = Self.now
    let found = try alerts([
      NWSFixtures.Alert(
        event: "Wind Advisory", severity: "Moderate", onset: now - 3_600, ends: now + 3_600,
        expires: now + 600, id: "urn:oid:wind.a",
        vtec: "/O.NEW.KSEW.WI.Y.0007.251118T1000Z-251118T2200Z/", sent: now - 7_200),
      NWSFixtures.Alert(
        event: "Wind Advisory", severity: "Moderate", onset: now - 3_600, ends: now + 7_200,
        expires: now + 3_600, messageType: "Update", id: "urn:oid:wind.b",
        vtec: "/O.EXT.KSEW.WI.Y.0007.000000T0000Z-251119T0100Z/", sent: now - 1_800),
      // Another event of the same office: its own alert.
      NWSFixtures.Alert(
        event: "Wind Advisory", severity: "Moderate", onset: now - 3_600, ends: now + 3_600,
        expires: now + 600, id: "urn:oid:wind.c",
        vtec: "/O.NEW.KSEW.WI.Y.0008.251118T1000Z-251118T2200Z/", sent: now - 7_200),
    ])
    #expect(found.map(\.end) == [now + 7_200, now + 3_600])
  }

  @Test func theSameAlertListedTwiceCountsOnce() throws {
    let now = Self.now
    let twice = NWSFixtures.Alert(
      event: "Dense Fog Advisory", severity: "Minor", onset: now - 600, ends: now + 3_600,
      expires: now + 3_600)
    let found = try alerts([twice, twice])
    #expect(found.count == 1)
  }
}
