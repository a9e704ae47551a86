import SkyframeTestSupport
import Testing

@testable import SkyframeGateway
@testable import SkyframeLoRaWAN

/// The two network servers' JSON, read and written without a broker.
@Suite struct LoRaWANDialectTests {
  let chirpStack = ChirpStackV4(application: LoRaWANFixtures.chirpStackApplication)
  let thingsStack = ThingsStack(user: "weather-displays@ttn")

  @Test func chirpStackUplinksOfBothErasAreRead() throws {
    let payload = LoRaWANFixtures.coordinates(52.52, 13.41, id: 7)
    for legacy in [false, true] {
      let json = LoRaWANFixtures.chirpStackUplink(
        devEUI: "70b3d57ed0012345", payload: payload, dr: 0, gatewayLocation: !legacy,
        legacy: legacy)
      let uplink = try chirpStack.uplink(
        topic: LoRaWANFixtures.chirpStackUplinkTopic(devEUI: "70b3d57ed0012345"),
        json: Array(json.utf8), band: .eu868)
      #expect(uplink.devEUI == "70B3D57ED0012345")
      #expect(uplink.replyDevice == "70b3d57ed0012345")
      #expect(uplink.fPort == 10 && uplink.dataRate == 0 && uplink.payload == payload)
      // `"location":{}`: a gateway without a position gives none.
      #expect((uplink.gatewayLocation == nil) == legacy)
    }
    #expect(throws: UplinkRefusal.foreignTopic) {
      try chirpStack.uplink(
        topic: "application/other/device/70b3d57ed0012345/event/up", json: [], band: .eu868)
    }
  }

  @Test func thingsStackUplinksWithoutZeroValuesAreRead() throws {
    let json = LoRaWANFixtures.thingsStackUplink(
      deviceID: "attic", devEUI: "70B3D57ED0054321", payload: nil, fPort: nil,
      spreadingFactor: 8, bandwidth: 500_000)
    let uplink = try thingsStack.uplink(
      topic: "v3/weather-displays@ttn/devices/attic/up", json: Array(json.utf8), band: .us915)
    #expect(uplink.fPort == 0 && uplink.payload.isEmpty && uplink.dataRate == 4)
    #expect(uplink.replyDevice == "attic" && uplink.devEUI == "70B3D57ED0054321")
    #expect(uplink.gatewayLocation?.latitude == 48.8584)
    // SF12 is no US915 uplink rate: no data rate, so no downlink size either.
    let slow = LoRaWANFixtures.thingsStackUplink(
      deviceID: "attic", devEUI: "70B3D57ED0054321", payload: [0x23, 1], spreadingFactor: 12)
    #expect(
      try thingsStack.uplink(
        topic: "v3/weather-displays@ttn/devices/attic/up", json: Array(slow.utf8), band: .us915
      ).dataRate == nil)
  }

  @Test func downlinksAreWrittenInTheServersShapes() {
    let payload: [UInt8] = [0x53, 0x46, 0x04, 0x00]
    let (csTopic, csJSON) = payload.withUnsafeBytes {
      chirpStack.downlink(to: "70b3d57ed0012345", fPort: 10, payload: $0)
    }
    #expect(
      csTopic
        == "application/\(LoRaWANFixtures.chirpStackApplication)/device/70b3d57ed0012345/command/down"
    )
    #expect(
      String(decoding: csJSON, as: UTF8.self)
        == #"{"devEui":"70b3d57ed0012345","confirmed":false,"fPort":10,"data":"U0YEAA=="}"#)
    let (ttsTopic, ttsJSON) = payload.withUnsafeBytes {
      thingsStack.downlink(to: "attic", fPort: 15, payload: $0)
    }
    #expect(ttsTopic == "v3/weather-displays@ttn/devices/attic/down/push")
    #expect(
      String(decoding: ttsJSON, as: UTF8.self)
        == #"{"downlinks":[{"f_port":15,"frm_payload":"U0YEAA==","priority":"NORMAL"}]}"#)
  }
}
