import Foundation
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeProviders
import SkyframeTestSupport
import Testing

/// Official US alerts from the NWS in frames of places it covers, whatever the weather service.
@Suite(.serialized) struct NWSAlertsTests {
  static let userAgent = "skyframe-tests/1.0 tests@example.com"

  @Test func usPointsGetTheAlertsInForceAndOtherPlacesCauseNoCall() async throws {
    let now = Int64(Date().timeIntervalSince1970)
    let alerts = [
      NWSFixtures.Alert(
        event: "Wind Advisory", severity: "Moderate", onset: now - 3_600, ends: now + 3_600,
        expires: now + 1_800),
      NWSFixtures.Alert(
        event: "Flood Watch", severity: "Severe", onset: now - 600, ends: nil,
        expires: now + 7_200, messageType: "Update"),
      // Not in force: over, not begun, a test message, a cancellation.
      NWSFixtures.Alert(
        event: "Frost Advisory", severity: "Extreme", onset: now - 7_200, ends: now - 60,
        expires: now + 600),
      NWSFixtures.Alert(
        event: "Winter Storm Watch", severity: "Extreme", onset: now + 86_400, ends: nil,
        expires: now + 90_000),
      NWSFixtures.Alert(
        event: "Test Message", severity: "Extreme", onset: now - 60, ends: nil,
        expires: now + 600, status: "Test"),
      NWSFixtures.Alert(
        event: "Flood Warning", severity: "Extreme", onset: now - 60, ends: nil,
        expires: now + 600, messageType: "Cancel"),
    ]
    let harness = try await GatewayHarness.make(service: .openMeteo) {
      GatewayHarness.waitForSupplements(&$0)
      $0.alerts.nws.userAgent = Self.userAgent
      $0.weather.batchWindowMilliseconds = 0
    }
    defer { Task { await harness.shutdown() } }
    harness.set(
      .answer { request in
        guard request.path == NWSFixtures.path else {
          return ServiceFixtures.answer(request, places: GatewayHarness.places, temperature: 12.5)
        }
        return StubHTTPResponse(
          status: 200,
          body: Array(NWSFixtures.active(alerts, point: request.query["point"] ?? "").utf8),
          headers: [("Content-Type", "application/geo+json")])
      })
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)

    try device.ask("#1 47.6062,-122.3321")
    let seattle = try #require(try await device.frames(1).first)
    #expect(seattle.status == .ok)
    #expect(seattle.alerts == AlertSummary(count: 2, highest: .severe))
    let calls = harness.http.requests.filter { $0.path == NWSFixtures.path }
    #expect(calls.count == 1)
    #expect(calls.first?.query["point"] == "47.61,-122.33")
    #expect(calls.first?.header("User-Agent") == Self.userAgent)

    // The large frame lists those in force or to come, worst first; the two watches have no
    // `ends` (NWS: null), so their end is 0 — "until further notice" (frame-profiles.md), read
    // as absent — not the message's `expires`.
    try device.ask("#3 ~large 47.6062,-122.3321")
    let large = try await device.next { $0.topic == "skyframe/v1/frame/\(device.id)" }.payload
    try large.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      let events = (0..<3).map { index in
        String(decoding: view.text(LargeLayout.alertEvent, index).prefix { $0 != 0 }, as: UTF8.self)
      }
      #expect(events == ["Winter Storm Watch", "Flood Watch", "Wind Advisory"])
      #expect(view.value(LargeLayout.alertEnd, 0) == nil)
      #expect(view.value(LargeLayout.alertEnd, 1) == nil)
      #expect(view.value(LargeLayout.alertEnd, 2) == now + 3_600)
    }

    // Berlin: no NWS call; Open-Meteo says nothing about alerts.
    try device.ask("#2 52.52,13.41")
    let berlin = try #require(try await device.frames(1).first)
    #expect(berlin.status == .ok)
    #expect(berlin.alerts == nil)
    #expect(harness.http.requests.filter { $0.path == NWSFixtures.path }.count == 1)
  }

  @Test func withoutAUserAgentTheNWSIsNotAsked() async throws {
    let harness = try await GatewayHarness.make(service: .openMeteo)
    defer { Task { await harness.shutdown() } }
    try await harness.start()
    let device = try await Device.frames(port: harness.broker.port)
    try device.ask("#1 47.6062,-122.3321")
    #expect(try await device.frames(1).first?.status == .ok)
    #expect(harness.http.requests.filter { $0.path == NWSFixtures.path }.isEmpty)
  }

  @Test func coverage() {
    for (latitude, longitude) in [
      (47.6062, -122.3321), (40.7128, -74.006), (61.2181, -149.9003), (21.3069, -157.8583),
      (18.4655, -66.1057), (13.4443, 144.7937), (-14.2756, -170.702), (25.7617, -80.1918),
    ] {
      #expect(NWSAlertsProvider.covers(GeoPoint(latitude: latitude, longitude: longitude)))
    }
    for (latitude, longitude) in [
      (52.52, 13.41), (51.5072, -0.1276), (-33.8688, 151.2093), (19.4326, -99.1332),
      (35.6762, 139.6503),
    ] {
      #expect(!NWSAlertsProvider.covers(GeoPoint(latitude: latitude, longitude: longitude)))
    }
  }
}
