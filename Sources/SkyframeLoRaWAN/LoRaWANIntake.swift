import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeProviders
import Synchronization

/// The way in of LoRaWAN uplinks (`schemas/lorawan-uplink-v1.md` §6), for every network server
/// connection: what is LoRaWAN's own around the one device intake. The uplink is read by the
/// connection's dialect; a second copy of an uplink already taken is dropped (`UplinkMemory`); an
/// answer that could not fit the receive windows is not worth an upstream call; the uplink
/// request (coordinates, a configured place, refresh) becomes a device request in the `tiny`
/// profile whose refresh falls back on the configured place or the receiving gateway's
/// position. Admission (the DevEUI is the device id, in a table of LoRaWAN devices), remembering,
/// answering now or through the one queue, and composing are the intake's (`DeviceIntake`); the
/// answer leaves as the server's downlink when it fits both receive windows. At most one
/// downlink per uplink.
final class LoRaWANIntake: Sendable {
  private struct Settings: Sendable {
    var lorawan: LoRaWANSettings

    init(_ configuration: GatewayConfiguration) {
      lorawan = configuration.lorawan
    }
  }

  private let settings: Mutex<Settings>
  /// The one device intake, with LoRaWAN devices' own table.
  let devices: DeviceIntake
  private let seen: UplinkMemory
  let metrics: LoRaWANMetrics
  private let out: Downlinks
  private let clock: GatewayClock
  private let logger: Logger

  init(configuration: GatewayConfiguration, rooms: AnswerRooms) {
    settings = Mutex(Settings(configuration))
    devices = rooms.intake(way: "lorawan", configuration: configuration)
    seen = UplinkMemory(capacity: configuration.requests.maximumDevices)
    metrics = LoRaWANMetrics(registry: rooms.metrics.registry)
    out = Downlinks(metrics: metrics)
    clock = rooms.clock
    logger = rooms.logger
  }

  func update(_ configuration: GatewayConfiguration) {
    settings.withLock { $0 = Settings(configuration) }
    devices.update(configuration)
    seen.resize(to: configuration.requests.maximumDevices)
  }

  private func log(_ device: String) -> DeviceLog { devices.log(device) }

  /// Takes one uplink message from `connection`'s server: answered at once when the cache has
  /// the weather, else queued for the workers like every device request.
  func receive(
    _ message: MQTTMessage, from connection: NetworkServerConnection, client: MQTTClient
  ) {
    let server = connection.server
    guard let (uplink, device, settings) = screened(message, from: connection) else { return }
    let log = log(uplink.devEUI)
    let arrived = clock.reading()
    let now = clock.unixTime(atReading: arrived)
    // Redelivered by the broker, sent again by the server, heard through a second gateway: the
    // device sent it once and gets one downlink.
    guard
      seen.isFirst(
        device: uplink.devEUI, frameCount: uplink.frameCount, payload: uplink.payload,
        second: now)
    else {
      metrics.uplink(server.name, "duplicate")
      log.debug("uplink fCnt \(uplink.frameCount) again: already answered, no second downlink")
      return
    }
    let places = settings.lorawan.places(of: device)
    let parsed = Result { () throws(UplinkError) in
      try DeviceUplink(parsing: uplink.payload, configuredPlaces: places.count)
    }
    let requestID = uplink.payload.withUnsafeBytes { UInt16(DeviceUplink.requestID(in: $0)) }
    let kind = (try? parsed.get()) == nil ? "invalid" : "request"

    // The size rule first: a downlink that could not fit is not worth an upstream call.
    guard let dataRate = uplink.dataRate else {
      metrics.uplink(server.name, kind)
      metrics.withheld(server.name, "data_rate")
      log.warning(
        "uplink at a data rate \(server.band.rawValue) does not have: answer withheld (check lorawan.servers.\(server.name).band)"
      )
      return
    }
    let limit = server.sizer(for: device).limit(uplinkDataRate: dataRate)
    let smallest = (try? parsed.get().check) != nil ? UnchangedLayout.size : TinyLayout.size
    guard limit >= smallest else {
      metrics.uplink(server.name, kind)
      Downlinks.withheld(
        metrics, server: server, limit: limit, dataRate: dataRate, size: smallest, log: log)
      return
    }
    guard let admission = devices.admit(uplink.devEUI, now: now, reading: arrived) else {
      // Told `rate_limited` once this minute, as an MQTT device is: no downlink, no airtime.
      metrics.uplink(server.name, "over_limit")
      return
    }
    metrics.uplink(server.name, kind)
    let reply = Downlinks.Target(
      uplink: uplink, connection: connection, client: client, limit: limit, dataRate: dataRate,
      log: log)
    let read = ReadRequest(
      parsed.map { Self.request(of: $0, configured: places) }
        .mapError { Unreadable($0.frameStatus, "\($0)") },
      requestID: requestID, profile: .tiny,
      refreshFallback: places.first ?? uplink.gatewayLocation.map(Self.coordinates(of:)),
      nothingToRefresh: .notFound)
    devices.answer(
      read, from: uplink.devEUI, admission: admission, reply: reply, via: out, arrived: arrived,
      now: now)
  }

  /// The device request an uplink request makes (`schemas/lorawan-uplink-v1.md` §6): its
  /// coordinates or configured place (remembered for a refresh) or a refresh, in `tiny`, with
  /// the uplink's content check.
  static func request(of uplink: DeviceUplink, configured places: [LocationQuery])
    -> DeviceRequest
  {
    let body: DeviceRequest.Body =
      switch uplink.body {
      case .coordinates(let coordinates): .locations(LocationList([.coordinates(coordinates)]))
      case .place(let index): .locations(LocationList([places[Int(index)]]))
      case .refresh: .refresh
      }
    var checks = ContentChecks()
    checks.append(uplink.check)
    return DeviceRequest(id: UInt16(uplink.id), body: body, profile: .tiny, checks: checks)
  }

  /// The receiving gateway's position at the uplink's 0.01 degrees (§6.3).
  static func coordinates(of location: (latitude: Double, longitude: Double)) -> LocationQuery {
    .coordinates(
      Coordinates(
        latitude: Int32((location.latitude * 100).rounded()) * 1_000,
        longitude: Int32((location.longitude * 100).rounded()) * 1_000))
  }

  /// The uplink in `message` with its device and the settings it is answered under, or nil
  /// (counted and logged) when it is not a request to answer: too long for any request, on
  /// another FPort or empty, or from a device the configuration refuses.
  private func screened(_ message: MQTTMessage, from connection: NetworkServerConnection)
    -> (LoRaWANUplink, LoRaWANSettings.Device?, Settings)?
  {
    let server = connection.server
    guard let uplink = uplink(in: message, from: connection) else { return nil }
    let log = log(uplink.devEUI)
    guard uplink.payload.count <= UplinkRequest.linkLimit else {
      // No request of any version is this long (§1): not a Skyframe device, not answered.
      metrics.uplink(server.name, "payload_too_long")
      log.info("uplink of \(uplink.payload.count) bytes (requests have at most 11): no downlink")
      return nil
    }
    guard uplink.fPort == server.fPort, !uplink.payload.isEmpty else {
      metrics.uplink(server.name, uplink.fPort == server.fPort ? "empty" : "other_port")
      log.info(
        "uplink on FPort \(uplink.fPort) with \(uplink.payload.count) bytes is no request (requests use FPort \(server.fPort) with a payload): no downlink"
      )
      return nil
    }
    let settings = settings.withLock { $0 }
    let device = settings.lorawan.devices[uplink.devEUI]
    guard device != nil || settings.lorawan.unknownDevices == .allow else {
      metrics.uplink(server.name, "unknown_device")
      log.warning("uplink from a device not in lorawan.devices (unknown-devices: refuse): ignored")
      return nil
    }
    return (uplink, device, settings)
  }

  /// The uplink in `message`, or nil (counted and logged) when it is none.
  private func uplink(in message: MQTTMessage, from connection: NetworkServerConnection)
    -> LoRaWANUplink?
  {
    let server = connection.server
    do throws(UplinkRefusal) {
      return try connection.dialect.uplink(
        topic: message.topic, json: message.payload, band: server.band)
    } catch {
      metrics.uplink(server.name, error.reason)
      log("(lorawan \(server.name))").warning(
        "ignored a message on \(message.topic.prefix(120)): \(error)")
      return nil
    }
  }

}

/// The way out of LoRaWAN answers: the composer's tiny frame (or `unchanged`, or a tiny error)
/// as the server's downlink JSON, published on the connection the uplink came by, when it fits
/// both receive windows; else withheld and counted.
struct Downlinks: WayOut {
  /// Where one uplink's answer goes.
  struct Target: Sendable {
    var uplink: LoRaWANUplink
    var connection: NetworkServerConnection
    var client: MQTTClient
    /// What both receive windows carry after the uplink.
    var limit: Int
    var dataRate: Int
    var log: DeviceLog
  }

  let metrics: LoRaWANMetrics

  func send(_ answer: SentAnswer, to target: Target) {
    let (server, dialect) = (target.connection.server, target.connection.dialect)
    let payload = answer.bytes
    guard payload.count <= target.limit else {
      Self.withheld(
        metrics, server: server, limit: target.limit, dataRate: target.dataRate,
        size: payload.count, log: target.log)
      return
    }
    let (topic, json) = dialect.downlink(
      to: target.uplink.replyDevice, fPort: server.fPort, payload: payload)
    do throws(MQTTError) {
      try target.client.publish(topic, payload: json, qos: dialect.qos)
      let kind = answer.unchanged ? "unchanged" : answer.status.carriesWeather ? "tiny" : "error"
      metrics.downlink(server.name, kind)
    } catch {
      metrics.withheld(server.name, "publish_failed")
      target.log.warning("downlink to \(topic) not queued: \(error)")
    }
  }

  static func withheld(
    _ metrics: LoRaWANMetrics, server: LoRaWANSettings.Server, limit: Int, dataRate: Int,
    size: Int, log: DeviceLog
  ) {
    metrics.withheld(server.name, "size")
    log.warning(
      "a \(size)-byte answer does not fit the \(limit) bytes both receive windows carry after an uplink at DR\(dataRate) (\(server.band.rawValue)): withheld"
    )
  }
}
