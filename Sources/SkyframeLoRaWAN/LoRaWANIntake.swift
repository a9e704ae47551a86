import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeProviders
import Synchronization

/// The way in of LoRaWAN uplinks (`schemas/lorawan-uplink-v1.md` §6), for every network server
/// connection: the uplink read by the connection's dialect, a second copy of an uplink already
/// taken dropped (`UplinkMemory`), the device admitted as an MQTT device is (its DevEUI is its
/// id: one `rate_limited` past its requests a minute, then silence; `refresh` memory; in a table
/// of its own), its place resolved by the shared resolver, and the `tiny` frame, `unchanged` or a
/// tiny error frame written by the shared composer and sent as the server's downlink if it fits
/// both receive windows. At most one downlink per uplink.
final class LoRaWANIntake: NewCellAccount, Sendable {
  private struct Settings: Sendable {
    var lorawan: LoRaWANSettings
    var perDevicePerMinute: Int
    var deadlineMilliseconds: Int

    init(_ configuration: GatewayConfiguration) {
      lorawan = configuration.lorawan
      perDevicePerMinute = configuration.requests.perDevicePerMinute
      deadlineMilliseconds = configuration.requests.deadlineMilliseconds
    }
  }

  /// Answers that wait for an upstream call at once, at most; beyond, `rate_limited`.
  static let maximumWaiting = 64

  private let settings: Mutex<Settings>
  private let resolver: Resolver
  private let composer: Composer
  private let devices: DeviceTable
  private let seen: UplinkMemory
  private let gatewayMetrics: GatewayMetrics
  let metrics: LoRaWANMetrics
  private let waiting = Atomic<Int>(0)
  private let clock: GatewayClock
  private let logger: Logger

  init(
    configuration: GatewayConfiguration, resolver: Resolver, composer: Composer,
    metrics: GatewayMetrics, clock: GatewayClock, logger: Logger
  ) {
    settings = Mutex(Settings(configuration))
    self.resolver = resolver
    self.composer = composer
    devices = DeviceTable(capacity: configuration.requests.maximumDevices)
    seen = UplinkMemory(capacity: configuration.requests.maximumDevices)
    gatewayMetrics = metrics
    self.metrics = LoRaWANMetrics(registry: metrics.registry)
    self.clock = clock
    self.logger = logger
  }

  func update(_ configuration: GatewayConfiguration) {
    settings.withLock { $0 = Settings(configuration) }
    devices.resize(to: configuration.requests.maximumDevices)
    seen.resize(to: configuration.requests.maximumDevices)
  }

  private func log(_ device: String) -> DeviceLog {
    DeviceLog(logger: logger, device: device, limiter: resolver.logLimiter)
  }

  /// Takes one uplink message from `connection`'s server. Answers at once when the cache has
  /// the weather; otherwise returns the work that waits for it, for the connection to run.
  func receive(
    _ message: MQTTMessage, from connection: NetworkServerConnection, client: MQTTClient
  ) -> (
    @Sendable () async -> Void
  )? {
    let server = connection.server
    guard let (uplink, device, settings) = screened(message, from: connection) else { return nil }
    let log = log(uplink.devEUI)
    // Redelivered by the broker, sent again by the server, heard through a second gateway: the
    // device sent it once and gets one downlink.
    guard
      seen.isFirst(
        device: uplink.devEUI, frameCount: uplink.frameCount, payload: uplink.payload,
        second: clock.unixTime())
    else {
      metrics.uplink(server.name, "duplicate")
      log.debug("uplink fCnt \(uplink.frameCount) again: already answered, no second downlink")
      return nil
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
      return nil
    }
    let limit = server.sizer(for: device).limit(uplinkDataRate: dataRate)
    let smallest = (try? parsed.get().check) != nil ? UnchangedLayout.size : TinyLayout.size
    guard limit >= smallest else {
      metrics.uplink(server.name, kind)
      Self.withheld(
        metrics, server: server, limit: limit, dataRate: dataRate, size: smallest, log: log)
      return nil
    }

    let admission = devices.admit(
      uplink.devEUI, minute: clock.unixTime() / 60, perMinute: settings.perDevicePerMinute,
      frameTopic: { _ in "" })
    guard admission.allowed || admission.firstRefusal else {
      // Told `rate_limited` once this minute, as an MQTT device is: no downlink, no airtime.
      metrics.uplink(server.name, "over_limit")
      return nil
    }
    metrics.uplink(server.name, kind)
    let downlink = downlink(
      to: uplink, through: connection, client: client, limit: limit, dataRate: dataRate, log: log)

    guard admission.allowed else {
      log.info("over \(settings.perDevicePerMinute) requests a minute: rate_limited")
      send(.refusal(.rateLimited, "too many requests"), requestID: requestID, downlink)
      return nil
    }
    let request: DeviceUplink
    switch parsed {
    case .success(let uplinkRequest): request = uplinkRequest
    case .failure(let error):
      log.info("bad uplink request: \(error)")
      send(.refusal(error.frameStatus, "\(error)"), requestID: requestID, downlink)
      return nil
    }
    guard let query = place(of: request, from: uplink, configured: places) else {
      log.info("refresh with nothing remembered, no place configured and no gateway location")
      send(.refusal(.notFound, "refresh: no place known"), requestID: requestID, downlink)
      return nil
    }
    return answer(
      query, to: request, from: uplink.devEUI, downlink: downlink,
      deadlineMilliseconds: settings.deadlineMilliseconds)
  }

  /// The outbox of one uplink: the composer's tiny frame (or `unchanged`, or a tiny error) handed
  /// to the downlink of the connection it came from, and counted as an answer.
  private func send(
    _ outcome: Outcome, requestID: UInt16, checks: ContentChecks = ContentChecks(),
    _ downlink: DownlinkSend
  ) {
    composer.compose(
      outcome, requestID: requestID, slot: 0, of: 1,
      answering: Answering(profile: .tiny, checks: checks)
    ) { payload, unchanged in
      gatewayMetrics.answered(outcome.status, profile: .tiny, unchanged: unchanged)
      gatewayMetrics.answered(outcome, at: composer.unixTime())
      downlink(payload)
    }
  }

  /// Answers `request` for `query` at once from the cache, or returns the work that waits for
  /// the weather (at most `maximumWaiting` at a time; past it, `rate_limited`).
  private func answer(
    _ query: LocationQuery, to request: DeviceUplink, from eui: String,
    downlink: @escaping DownlinkSend, deadlineMilliseconds: Int
  ) -> (@Sendable () async -> Void)? {
    let checks = {
      var checks = ContentChecks()
      checks.append(request.check)
      return checks
    }()
    let id = UInt16(request.id)

    if let outcome = resolver.resolveNow(query) {
      gatewayMetrics.cacheHit()
      send(outcome, requestID: id, checks: checks, downlink)
      return nil
    }
    guard waiting.add(1, ordering: .relaxed).newValue <= Self.maximumWaiting else {
      waiting.subtract(1, ordering: .relaxed)
      send(.refusal(.rateLimited, "gateway busy"), requestID: id, downlink)
      return nil
    }
    let deadline =
      deadlineMilliseconds > 0 ? clock.now + .milliseconds(deadlineMilliseconds) : nil
    return { [self] in
      let outcome = await resolver.resolve(query, for: .device(eui, self), answerBy: deadline)
      send(outcome, requestID: id, checks: checks, downlink)
      waiting.subtract(1, ordering: .relaxed)
    }
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

  /// What the request asks for: its coordinates or configured place (remembered for a
  /// refresh); for a refresh the place remembered, else the first configured, else the
  /// receiving gateway's position at the uplink's 0.01 degrees (§6.3); nil when none is known.
  private func place(
    of request: DeviceUplink, from uplink: LoRaWANUplink, configured places: [LocationQuery]
  ) -> LocationQuery? {
    switch request.body {
    case .coordinates(let coordinates):
      let query = LocationQuery.coordinates(coordinates)
      devices.remember(LocationList([query]), profile: .tiny, for: uplink.devEUI)
      return query
    case .place(let index):
      let query = places[Int(index)]
      devices.remember(LocationList([query]), profile: .tiny, for: uplink.devEUI)
      return query
    case .refresh:
      if let last = devices.lastPlaces(of: uplink.devEUI), let first = last.first { return first }
      if let first = places.first { return first }
      guard let location = uplink.gatewayLocation else { return nil }
      return .coordinates(
        Coordinates(
          latitude: Int32((location.latitude * 100).rounded()) * 1_000,
          longitude: Int32((location.longitude * 100).rounded()) * 1_000))
    }
  }

  typealias DownlinkSend = @Sendable (UnsafeRawBufferPointer) -> Void

  /// What the answer's message becomes: the server's downlink JSON, published on the
  /// connection, when it fits `limit`; else withheld and counted.
  private func downlink(
    to uplink: LoRaWANUplink, through connection: NetworkServerConnection, client: MQTTClient,
    limit: Int, dataRate: Int, log: DeviceLog
  ) -> DownlinkSend {
    let (server, dialect, metrics) = (connection.server, connection.dialect, metrics)
    return { payload in
      guard payload.count <= limit else {
        Self.withheld(
          metrics, server: server, limit: limit, dataRate: dataRate, size: payload.count,
          log: log)
        return
      }
      let (topic, json) = dialect.downlink(
        to: uplink.replyDevice, fPort: server.fPort, payload: payload)
      do throws(MQTTError) {
        try client.publish(topic, payload: json, qos: dialect.qos)
        let kind =
          payload.count == UnchangedLayout.size
          ? "unchanged" : FrameStatus(rawValue: payload[3]).carriesWeather ? "tiny" : "error"
        metrics.downlink(server.name, kind)
      } catch {
        metrics.withheld(server.name, "publish_failed")
        log.warning("downlink to \(topic) not queued: \(error)")
      }
    }
  }

  private static func withheld(
    _ metrics: LoRaWANMetrics, server: LoRaWANSettings.Server, limit: Int, dataRate: Int,
    size: Int, log: DeviceLog
  ) {
    metrics.withheld(server.name, "size")
    log.warning(
      "a \(size)-byte answer does not fit the \(limit) bytes both receive windows carry after an uplink at DR\(dataRate) (\(server.band.rawValue)): withheld"
    )
  }

  // MARK: NewCellAccount: LoRaWAN devices' new cells count in this way in's device table.

  func takeNewCell(_ device: String, minute: Int64, perMinute: Int) -> Bool {
    devices.takeNewCell(device, minute: minute, perMinute: perMinute)
  }

  func hasSpentNewCells(_ device: String, minute: Int64, perMinute: Int) -> Bool {
    devices.hasSpentNewCells(device, minute: minute, perMinute: perMinute)
  }

  func refusedNewCell(_ device: String) {}
}
