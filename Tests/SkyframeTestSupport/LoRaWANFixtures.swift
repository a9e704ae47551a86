import Foundation
import SkyframeCodec

/// Uplink messages in the shapes the two network servers publish on their MQTT integrations.
///
/// ChirpStack v4 (4.11+): the protobuf JSON mapping of `integration.UplinkEvent`, camelCase, every
/// top-level field written even at its default (`"adr":false`, `"fCnt":0`), zero values dropped
/// inside `rxInfo`/`txInfo`, a gateway without a location as `"location":{}`, the DevEUI in lower
/// case (as in the topic), `regionConfigId` at the top (4.10 and older put the region in
/// `rxInfo[].metadata` instead).
///
/// The Things Stack: `v3.ApplicationUp` in its JSON, snake_case, zero values omitted (no `f_cnt`
/// when 0, no `frm_payload` for an empty payload), EUIs in upper case, `frequency` as a string,
/// `coding_rate` under `settings.data_rate.lora`, no data-rate index.
public enum LoRaWANFixtures {
  public static let chirpStackApplication = "17c82e96-be03-4f38-aef3-f83d48582d97"
  public static let thingsStackApplication = "weather-displays"
  public static let tenant = "ttn"

  public static func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }

  /// A gateway near Berlin's Brandenburg Gate, or one without a location.
  public static func chirpStackUplink(
    devEUI: String, payload: [UInt8]?, fPort: Int = 10, dr: Int = 5, fCnt: Int = 0,
    spreadingFactor: Int = 7, gatewayLocation: Bool = true, legacy: Bool = false
  ) -> String {
    let location =
      gatewayLocation ? #"{"latitude":52.5163,"longitude":13.3777,"altitude":40}"# : "{}"
    let metadata =
      legacy ? #","metadata":{"region_name":"eu868","region_common_name":"EU868"}"# : ""
    let region = legacy ? "" : #","regionConfigId":"eu868""#
    return """
      {"deduplicationId":"3ac7e3c4-4401-4b8d-9386-a5c902f9202d","time":"2025-03-02T09:21:53.107+00:00",\
      "deviceInfo":{"tenantId":"52f14cd4-c6f1-4fbd-8f87-4025e1d49242","tenantName":"ChirpStack",\
      "applicationId":"\(chirpStackApplication)","applicationName":"Weather displays",\
      "deviceProfileId":"14855bf7-d10d-4aee-b618-ebfcb64dc7ad","deviceProfileName":"EU868 class A",\
      "deviceName":"hall-display","devEui":"\(devEUI)","deviceClassEnabled":"CLASS_A","tags":{}},\
      "devAddr":"00e1cb2e","adr":false,"dr":\(dr),"fCnt":\(fCnt),"fPort":\(fPort),"confirmed":false,\
      "data":"\(payload.map(base64) ?? "")",\
      "rxInfo":[{"gatewayId":"0016c001ff10a235","uplinkId":4217106255,\
      "gwTime":"2025-03-02T09:21:53.107+00:00","nsTime":"2025-03-02T09:21:53.118+00:00",\
      "rssi":-36,"snr":10.5,"channel":2,"location":\(location),"context":"EFwMtA==",\
      "crcStatus":"CRC_OK"\(metadata)}],\
      "txInfo":{"frequency":868500000,"modulation":{"lora":{"bandwidth":125000,\
      "spreadingFactor":\(spreadingFactor),"codeRate":"CR_4_5"}}}\(region)}
      """
  }

  public static func chirpStackUplinkTopic(devEUI: String) -> String {
    "application/\(chirpStackApplication)/device/\(devEUI)/event/up"
  }

  /// An uplink of The Things Stack at SF7/125 kHz unless told otherwise.
  public static func thingsStackUplink(
    deviceID: String, devEUI: String, payload: [UInt8]?, fPort: Int? = 10, fCnt: Int = 0,
    spreadingFactor: Int = 7, bandwidth: Int = 125_000
  ) -> String {
    let port = fPort.map { #""f_port":\#($0),"# } ?? ""
    let count = fCnt == 0 ? "" : #""f_cnt":\#(fCnt),"#
    let data = payload.map { #""frm_payload":"\#(base64($0))","# } ?? ""
    return """
      {"end_device_ids":{"device_id":"\(deviceID)","application_ids":{"application_id":"\(thingsStackApplication)"},\
      "dev_eui":"\(devEUI)","join_eui":"70B3D57ED0000000","dev_addr":"260B1234"},\
      "correlation_ids":["gs:uplink:01JNAX9G5V2M3Q8W7E6R5T4Y3U"],"received_at":"2025-03-02T09:21:53.312Z",\
      "uplink_message":{"session_key_id":"AZVAZ9dwk2Xb0ZQ1Qb3E6A==",\(port)\(count)\(data)\
      "rx_metadata":[{"gateway_ids":{"gateway_id":"home-gw","eui":"B827EBFFFE123456"},\
      "time":"2025-03-02T09:21:53.100Z","timestamp":2887281107,"rssi":-42,"channel_rssi":-42,"snr":9.5,\
      "location":{"latitude":48.8584,"longitude":2.2945,"altitude":35,"source":"SOURCE_REGISTRY"},\
      "uplink_token":"ChIKEAoOaG9tZS1ndxII","received_at":"2025-03-02T09:21:53.150Z"}],\
      "settings":{"data_rate":{"lora":{"bandwidth":\(bandwidth),"spreading_factor":\(spreadingFactor),\
      "coding_rate":"4/5"}},"frequency":"868100000","timestamp":2887281107},\
      "received_at":"2025-03-02T09:21:53.160Z","consumed_airtime":"0.056576s",\
      "network_ids":{"net_id":"000013","ns_id":"EC656E0000000181","tenant_id":"ttn","cluster_id":"eu1",\
      "cluster_address":"eu1.cloud.thethings.network"}}}
      """
  }

  public static func thingsStackUplinkTopic(deviceID: String) -> String {
    "v3/\(thingsStackApplication)@\(tenant)/devices/\(deviceID)/up"
  }

  // MARK: Uplink payloads, written with the device's own writers.

  public static func coordinates(
    _ latitude: Double, _ longitude: Double, id: UInt8, check: UInt32? = nil
  )
    -> [UInt8]
  {
    write { buffer in
      try UplinkRequest.writeCoordinates(
        latitude: Int32((latitude * 100_000).rounded()),
        longitude: Int32((longitude * 100_000).rounded()), id: id, check: check, into: buffer)
    }
  }

  public static func place(_ index: UInt8, id: UInt8, check: UInt32? = nil) -> [UInt8] {
    write { try UplinkRequest.writePlace(index: index, id: id, check: check, into: $0) }
  }

  public static func refresh(id: UInt8, check: UInt32? = nil) -> [UInt8] {
    write { try UplinkRequest.writeRefresh(id: id, check: check, into: $0) }
  }

  private static func write(_ body: (UnsafeMutableRawBufferPointer) throws -> Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: 10)
    let count = bytes.withUnsafeMutableBytes { try! body($0) }
    return Array(bytes.prefix(count))
  }
}
