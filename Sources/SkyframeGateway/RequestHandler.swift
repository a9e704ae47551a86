import Foundation
import Logging
import SkyframeCodec
import SkyframeJSON
import SkyframeMQTT
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// MQTT in → request decoded → places resolved → frames out: one request message from a device,
/// answered with one frame per place, in the order the device named them.
final class RequestHandler: Sendable {
  struct Settings: Sendable {
    var topics: GatewayConfiguration.Topics
    var maximumLocations: Int
    var perDevicePerMinute: Int
  }

  /// Where an answer goes: the device's frame topic, or a v5 response topic with its correlation data.
  struct Reply: Sendable {
    var topic: String
    var correlationData: [UInt8]?
  }

  /// A place as the frame shows it.
  struct ResolvedPlace: Sendable {
    var point: GeoPoint
    var latitude: Int32
    var longitude: Int32
    var name: FrameName
    var country: CountryCode?
  }

  enum Outcome: Sendable {
    case weather(WeatherDesk.CachedFrame, stale: Bool, place: ResolvedPlace)
    case failure(FrameStatus, name: FrameName)
  }

  private let settings: Mutex<Settings>
  private let desk: WeatherDesk
  private let sink: any FrameSink
  private let logger: Logger
  /// Each device's last places, for `refresh`.
  private let lastPlaces = Mutex<[String: LocationList]>([:])
  private let frameTopics = Mutex<[String: String]>([:])
  private let rateLimiter: DeviceRateLimiter

  init(
    settings: Settings, desk: WeatherDesk, sink: any FrameSink, logger: Logger,
    now: @escaping @Sendable () -> Int64
  ) {
    self.settings = Mutex(settings)
    rateLimiter = DeviceRateLimiter(now: now)
    self.desk = desk
    self.sink = sink
    self.logger = logger
  }

  func update(_ settings: Settings) {
    self.settings.withLock { $0 = settings }
    frameTopics.withLock { $0.removeAll() }
  }

  static func isValidDevice(_ device: Substring) -> Bool {
    (1...32).contains(device.utf8.count)
      && device.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
          UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"),
          UInt8(ascii: "."):
          true
        default: false
        }
      }
  }

  func handle(_ message: MQTTMessage) async {
    let settings = settings.withLock { $0 }
    guard let deviceID = settings.topics.device(inRequestTopic: message.topic) else { return }
    guard Self.isValidDevice(deviceID) else {
      logger.warning(
        "dropped a request from an invalid device id: 1-32 characters of a-z, A-Z, 0-9, '-', '_', '.'",
        metadata: ["topic": "\(message.topic)"])
      return
    }
    let device = String(deviceID)
    let logger = DeviceLog(logger: logger, device: device)
    let ownTopic = frameTopic(device: device, topics: settings.topics)

    var reply = Reply(topic: ownTopic, correlationData: nil)
    if let responseTopic = message.responseTopic {
      guard Self.isAllowedResponseTopic(responseTopic, prefix: settings.topics.responsePrefix)
      else {
        logger.warning(
          "response topic \(responseTopic) is outside the allowed prefix \(settings.topics.responsePrefix): answering bad_request on the device topic"
        )
        let id = message.payload.withUnsafeBytes { DeviceRequest.requestID(in: $0) }
        publish(
          .failure(.badRequest, name: FrameName(truncating: "response topic refused")),
          requestID: id, slot: 0, of: 1, to: reply, logger: logger)
        return
      }
      reply = Reply(topic: responseTopic, correlationData: message.correlationData)
    }

    let request: DeviceRequest
    do throws(RequestError) {
      request = try DeviceRequest(
        parsing: message.payload, maximumLocations: settings.maximumLocations)
    } catch {
      logger.info("bad request: \(error)")
      let id = message.payload.withUnsafeBytes { DeviceRequest.requestID(in: $0) }
      publish(
        .failure(error.frameStatus, name: FrameName(truncating: "\(error)")),
        requestID: id, slot: 0, of: 1, to: reply, logger: logger)
      return
    }

    guard rateLimiter.allow(device, perMinute: settings.perDevicePerMinute) else {
      logger.info(
        "over \(settings.perDevicePerMinute) requests a minute: rate_limited, nothing sent upstream"
      )
      publish(
        .failure(.rateLimited, name: FrameName(truncating: "too many requests")),
        requestID: request.id, slot: 0, of: 1, to: reply, logger: logger)
      return
    }

    let places: LocationList
    switch request.body {
    case .locations(let list):
      places = list
      lastPlaces.withLock { $0[device] = list }
    case .refresh:
      guard let last = lastPlaces.withLock({ $0[device] }) else {
        logger.info("refresh without an earlier request")
        publish(
          .failure(.badRequest, name: FrameName(truncating: "refresh: nothing asked yet")),
          requestID: request.id, slot: 0, of: 1, to: reply, logger: logger)
        return
      }
      places = last
    }

    if places.count == 1 {
      // The common case, kept free of arrays and task groups.
      publish(
        await resolve(places[0]), requestID: request.id, slot: 0, of: 1, to: reply, logger: logger)
    } else {
      let outcomes = await resolve(places)
      for (slot, outcome) in outcomes.enumerated() {
        publish(
          outcome, requestID: request.id, slot: slot, of: outcomes.count, to: reply, logger: logger)
      }
    }
    logger.debug("answered request \(request.id) with \(places.count) frame(s)")
  }

  static func isAllowedResponseTopic(_ topic: String, prefix: String) -> Bool {
    topic.hasPrefix(prefix) && topic.count > prefix.count && !topic.contains("+")
      && !topic.contains("#")
  }

  /// Every place at once; the outcomes keep the request's order.
  func resolve(_ places: LocationList) async -> [Outcome] {
    if places.count == 1 { return [await resolve(places[0])] }
    return await withTaskGroup(of: (Int, Outcome).self) { group in
      for (index, query) in places.enumerated() {
        group.addTask { (index, await self.resolve(query)) }
      }
      var outcomes = [Outcome?](repeating: nil, count: places.count)
      for await (index, outcome) in group { outcomes[index] = outcome }
      return outcomes.map { $0! }
    }
  }

  func resolve(_ query: LocationQuery) async -> Outcome {
    let place: ResolvedPlace
    switch query {
    case .coordinates(let coordinates):
      let point = GeoPoint(
        latitude: Double(coordinates.latitude) / 100_000,
        longitude: Double(coordinates.longitude) / 100_000)
      let named = await desk.placeName(at: point)
      place = ResolvedPlace(
        point: point, latitude: coordinates.latitude, longitude: coordinates.longitude,
        name: named.map { FrameName(truncating: $0.name) } ?? Self.coordinateName(coordinates),
        country: named?.countryCode.flatMap { CountryCode($0) })
    case .place(let name, let country):
      switch await desk.place(named: name.string, countryCode: country?.string) {
      case .success(let found?):
        place = ResolvedPlace(
          point: GeoPoint(latitude: found.latitude, longitude: found.longitude),
          latitude: Int32((found.latitude * 100_000).rounded()),
          longitude: Int32((found.longitude * 100_000).rounded()),
          name: FrameName(truncating: found.name),
          country: found.countryCode.flatMap { CountryCode($0) })
      case .success(nil):
        return .failure(.notFound, name: FrameName(truncating: name.string))
      case .failure(let error):
        return .failure(
          Self.status(of: error, geocoding: true), name: FrameName(truncating: name.string))
      }
    }
    switch await desk.frame(at: place.point) {
    case .fresh(let frame): return .weather(frame, stale: false, place: place)
    case .stale(let frame): return .weather(frame, stale: true, place: place)
    case .failed(let error):
      return .failure(Self.status(of: error, geocoding: false), name: place.name)
    }
  }

  /// How a failing weather service shows on the device.
  static func status(of error: ProviderError, geocoding: Bool) -> FrameStatus {
    switch error {
    case .rateLimited: .rateLimited
    case .unavailable, .malformed: .upstreamUnavailable
    // The device's request was valid; a refused upstream call is the gateway's (or its
    // configuration's) fault, except a geocoding refusal, which is about the name asked for.
    case .rejected: geocoding ? .badRequest : .internalError
    case .unauthorized: .internalError
    }
  }

  /// "52.52,13.41": the name a frame carries for a position nobody named. Written digit by digit
  /// into the frame's name field: this runs on every cache hit and allocates nothing.
  static func coordinateName(_ coordinates: Coordinates) -> FrameName {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { text in
      var length = 0
      func put(_ byte: UInt8) {
        text[length] = byte
        length += 1
      }
      func decimal(_ value: Int32) {
        if value < 0 { put(UInt8(ascii: "-")) }
        let magnitude = Int(value.magnitude)
        var whole = magnitude / 100_000
        var digits = 1
        while whole >= 10 {
          whole /= 10
          digits *= 10
        }
        whole = magnitude / 100_000
        while digits > 0 {
          put(UInt8(ascii: "0") + UInt8(whole / digits % 10))
          digits /= 10
        }
        var fraction = magnitude % 100_000
        guard fraction > 0 else { return }
        put(UInt8(ascii: "."))
        var place = 10_000
        while fraction > 0 {
          put(UInt8(ascii: "0") + UInt8(fraction / place))
          fraction %= place
          place /= 10
        }
      }
      decimal(coordinates.latitude)
      put(UInt8(ascii: ","))
      decimal(coordinates.longitude)
      // At most 10 + 1 + 11 bytes of ASCII: always fits, always valid UTF-8.
      return FrameName(
        ascii: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: text[0..<length])))
    }
  }

  /// Each device's frame topic, built once: a cache hit then builds no string.
  private func frameTopic(device: String, topics: GatewayConfiguration.Topics) -> String {
    if let topic = frameTopics.withLock({ $0[device] }) { return topic }
    let topic = topics.frame(device: device)
    frameTopics.withLock { cache in
      // Bounded: a flood of made-up device ids cannot grow it without limit.
      if cache.count >= 10_000 { cache.removeAll(keepingCapacity: true) }
      cache[device] = topic
    }
    return topic
  }

  /// Writes the answer into a frame on the stack and hands it to MQTT: a cache hit allocates
  /// nothing here (libmosquitto copies the payload into its own packet).
  func publish(
    _ outcome: Outcome, requestID: UInt16, slot: Int, of count: Int, to reply: Reply,
    logger: DeviceLog,
    retain: Bool = false
  ) {
    let debugJSON = settings.withLock { $0.topics.debugJSON }
    withUnsafeTemporaryAllocation(byteCount: WeatherFrame.size, alignment: 8) { buffer in
      Self.write(outcome, requestID: requestID, slot: slot, of: count, into: buffer)
      do throws(MQTTError) {
        try sink.publish(
          reply.topic, payload: UnsafeRawBufferPointer(buffer), qos: 1, retain: retain,
          correlationData: reply.correlationData)
      } catch {
        logger.error("publish to \(reply.topic) failed: \(error)")
      }
      if debugJSON {
        publishJSON(
          of: UnsafeRawBufferPointer(buffer), topic: reply.topic + "/json", retain: retain)
      }
    }
  }

  static func write(
    _ outcome: Outcome, requestID: UInt16, slot: Int, of count: Int,
    into buffer: UnsafeMutableRawBufferPointer
  ) {
    let slotCount = UInt8(clamping: count)
    let slotIndex = UInt8(clamping: min(slot, Int(slotCount) - 1))
    switch outcome {
    case .weather(let frame, let stale, let place):
      frame.bytes.withUnsafeBytes { buffer.copyMemory(from: $0) }
      WeatherFrame.rewrite(
        buffer, status: stale ? .stale : .ok, requestID: requestID, slotIndex: slotIndex,
        slotCount: slotCount, latitude: place.latitude, longitude: place.longitude,
        name: place.name,
        country: place.country)
    case .failure(let status, let name):
      let frame = WeatherFrame(
        status: status, requestID: requestID, slotIndex: slotIndex, slotCount: slotCount, name: name
      )
      // Every value of an error frame is in range by construction.
      try! frame.encode(into: buffer)
    }
  }

  private func publishJSON(of bytes: UnsafeRawBufferPointer, topic: String, retain: Bool) {
    guard let frame = try? WeatherFrame(decoding: bytes) else { return }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let json = try? encoder.encode(FrameDocument(frame)) else { return }
    [UInt8](json).withUnsafeBytes { bytes in
      try? sink.publish(topic, payload: bytes, qos: 0, retain: retain, correlationData: nil)
    }
  }
}

/// A logger for one device's request: the device id is attached only to lines that are written,
/// so a request that logs nothing builds no metadata.
struct DeviceLog {
  let logger: Logger
  let device: String

  func debug(_ message: @autoclosure () -> String) {
    logger.debug("\(message())", metadata: ["device": "\(device)"])
  }
  func info(_ message: @autoclosure () -> String) {
    logger.info("\(message())", metadata: ["device": "\(device)"])
  }
  func warning(_ message: @autoclosure () -> String) {
    logger.warning("\(message())", metadata: ["device": "\(device)"])
  }
  func error(_ message: @autoclosure () -> String) {
    logger.error("\(message())", metadata: ["device": "\(device)"])
  }
}
