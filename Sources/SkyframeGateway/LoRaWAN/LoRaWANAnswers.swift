import Logging
import SkyframeCodec
import SkyframeMQTT
import SkyframeProviders
import Synchronization

/// Answers LoRaWAN uplinks (`schemas/lorawan-uplink-v1.md` §6) for every network server
/// connection: the uplink message read by the connection's dialect, the device admitted (its
/// DevEUI is its id: the per-device limit and `refresh` memory as for MQTT devices, in a table
/// of their own), its place resolved, and the `tiny` frame, `unchanged` or a tiny error frame
/// written by `RequestHandler.publish` into the `DownlinkSink`, which sends it as the server's
/// downlink if it fits both receive windows. At most one downlink per uplink.
final class LoRaWANAnswers: Sendable {
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
  let handler: RequestHandler
  let sink = DownlinkSink()
  private let devices: DeviceTable
  let metrics: LoRaWANMetrics
  private let waiting = Atomic<Int>(0)
  private let clock: GatewayClock
  private let logger: Logger

  init(
    configuration: GatewayConfiguration, desk: WeatherDesk, metrics: GatewayMetrics,
    clock: GatewayClock, logger: Logger
  ) {
    settings = Mutex(Settings(configuration))
    // The handler's own queue stays empty: waiting answers run on the connection's tasks.
    handler = RequestHandler(
      configuration: configuration, desk: desk, sink: sink, queue: BoundedQueue(limit: 1),
      metrics: metrics, clock: clock, logger: logger)
    devices = DeviceTable(capacity: configuration.requests.maximumDevices)
    self.metrics = LoRaWANMetrics(registry: metrics.registry)
    self.clock = clock
    self.logger = logger
  }

  func update(_ configuration: GatewayConfiguration) {
    settings.withLock { $0 = Settings(configuration) }
    handler.update(configuration)
    devices.resize(to: configuration.requests.maximumDevices)
  }

  /// Takes one uplink message from `connection`'s server. Answers at once when the cache has
  /// the weather; otherwise returns the work that waits for it, for the connection to run.
  func receive(_ message: MQTTMessage, from connection: NetworkServerConnection) -> (
    @Sendable () async -> Void
  )? {
    let server = connection.server
    guard let (uplink, device, settings) = screened(message, from: connection) else { return nil }
    let log = DeviceLog(logger: logger, device: uplink.devEUI, limiter: handler.logLimiter)
    let places = settings.lorawan.places(of: device)
    let parsed = Result { () throws(UplinkError) in
      try DeviceUplink(parsing: uplink.payload, configuredPlaces: places.count)
    }
    let requestID = uplink.payload.withUnsafeBytes { UInt16(DeviceUplink.requestID(in: $0)) }

    metrics.uplink(server.name, (try? parsed.get()) == nil ? "invalid" : "request")
    // The size rule first: a downlink that could not fit is not worth an upstream call.
    guard let dataRate = uplink.dataRate else {
      metrics.withheld(server.name, "data_rate")
      log.warning(
        "uplink at a data rate \(server.band.rawValue) does not have: answer withheld (check lorawan.servers.\(server.name).band)"
      )
      return nil
    }
    let limit = server.sizer(for: device).limit(uplinkDataRate: dataRate)
    let smallest = (try? parsed.get().check) != nil ? UnchangedLayout.size : TinyLayout.size
    guard limit >= smallest else {
      withhold(server: server, limit: limit, dataRate: dataRate, size: smallest, log: log)
      return nil
    }

    let minute = clock.unixTime() / 60
    let admission = devices.admit(
      uplink.devEUI, minute: minute, perMinute: settings.perDevicePerMinute,
      frameTopic: { _ in "" })
    guard
      let key = sink.expect(
        downlink(
          to: uplink, through: connection, limit: limit, dataRate: dataRate, log: log))
    else {
      metrics.withheld(server.name, "busy")
      log.warning("too many answers in flight: answer withheld")
      return nil
    }
    let reply = RequestHandler.Reply(
      topic: key, correlationData: nil, qos: connection.dialect.qos)

    func refuse(_ status: FrameStatus, _ text: String) {
      handler.publish(
        .failure(status, name: FrameName(truncating: text)), requestID: requestID, slot: 0, of: 1,
        to: reply, logger: log, answering: RequestHandler.Answering(profile: .tiny))
    }

    guard admission.allowed else {
      log.info("over \(settings.perDevicePerMinute) requests a minute: rate_limited")
      refuse(.rateLimited, "too many requests")
      return nil
    }
    let request: DeviceUplink
    switch parsed {
    case .success(let uplinkRequest): request = uplinkRequest
    case .failure(let error):
      log.info("bad uplink request: \(error)")
      refuse(error.frameStatus, "\(error)")
      return nil
    }
    guard let query = place(of: request, from: uplink, configured: places) else {
      log.info("refresh with nothing remembered, no place configured and no gateway location")
      refuse(.notFound, "refresh: no place known")
      return nil
    }
    return answer(
      query, to: request, from: uplink.devEUI, reply: reply, log: log,
      deadlineMilliseconds: settings.deadlineMilliseconds)
  }

  /// Answers `request` for `query` at once from the cache, or returns the work that waits for
  /// the weather (at most `maximumWaiting` at a time; past it, `rate_limited`).
  private func answer(
    _ query: LocationQuery, to request: DeviceUplink, from eui: String,
    reply: RequestHandler.Reply, log: DeviceLog, deadlineMilliseconds: Int
  ) -> (@Sendable () async -> Void)? {
    var checks = ContentChecks()
    checks.append(request.check)
    let answering = RequestHandler.Answering(profile: .tiny, checks: checks)
    let id = UInt16(request.id)

    if let outcome = handler.resolveNow(query) {
      handler.metrics.cacheHit()
      handler.publish(
        outcome, requestID: id, slot: 0, of: 1, to: reply, logger: log, answering: answering)
      return nil
    }
    guard waiting.add(1, ordering: .relaxed).newValue <= Self.maximumWaiting else {
      waiting.subtract(1, ordering: .relaxed)
      handler.publish(
        .failure(.rateLimited, name: FrameName(truncating: "gateway busy")), requestID: id,
        slot: 0, of: 1, to: reply, logger: log, answering: RequestHandler.Answering(profile: .tiny))
      return nil
    }
    let deadline =
      deadlineMilliseconds > 0 ? clock.now + .milliseconds(deadlineMilliseconds) : nil
    return { [self] in
      let outcome = await handler.resolve(query, for: .device(eui), answerBy: deadline)
      handler.publish(
        outcome, requestID: id, slot: 0, of: 1, to: reply, logger: log, answering: answering)
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
    let log = DeviceLog(logger: logger, device: uplink.devEUI, limiter: handler.logLimiter)
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
      DeviceLog(logger: logger, device: "(lorawan \(server.name))", limiter: handler.logLimiter)
        .warning("ignored a message on \(message.topic.prefix(120)): \(error)")
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

  /// What the answer's message becomes: the server's downlink JSON, published on the
  /// connection, when it fits `limit`; else withheld and counted.
  private func downlink(
    to uplink: LoRaWANUplink, through connection: NetworkServerConnection, limit: Int,
    dataRate: Int, log: DeviceLog
  ) -> DownlinkSink.Send {
    let (server, dialect, client, metrics) = (
      connection.server, connection.dialect, connection.client, metrics
    )
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

  private func withhold(
    server: LoRaWANSettings.Server, limit: Int, dataRate: Int, size: Int, log: DeviceLog
  ) {
    Self.withheld(metrics, server: server, limit: limit, dataRate: dataRate, size: size, log: log)
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
}
