internal import CSkyframeCoAP
import Foundation
import Logging
import ServiceLifecycle
import SkyframeCodec
import SkyframeGateway
import SkyframeProviders
import Synchronization

/// The way in of cellular displays that speak CoAP (`docs/devices/coap.md`):
/// `GET coap://gateway/v1/frame/{device}?q=Berlin,DE` answers 2.05 with the frames, the ETag
/// option the content check (a matching one answers 2.03 Valid), Max-Age `next_update`;
/// Block2 when the client asks for small blocks (libcoap's); Observe of the device's resource
/// (notified as its answer's `next_update` passes). What is CoAP's own: the path and query, the
/// codes, the Echo check that keeps a response to a source that has not shown it receives within
/// three times the request (RFC 9175), libcoap's thread. Admission, limits, waiting and composing
/// are the one device intake's.
final class CoAPWayIn: GatewayPart, Sendable {
  private let intake: DeviceIntake
  private let settings: CoAPSettings
  private let service: CoAPService
  private let logger: Logger
  /// Sources that echoed: they receive what is sent to them.
  private let verified: Mutex<LRUTable<String, Bool>>
  /// A random key of this process for the Echo values.
  private let echoKey = UInt64.random(in: 1...UInt64.max)
  /// Requests answered later, by their defer number.
  private let pending = Mutex<[UInt64: CollectedAnswers]>([:])
  private let nextDeferred = Atomic<UInt64>(1)
  /// Observed resources: when their answer's `next_update` passes, their observers are
  /// notified. At most `coap.max-observed`.
  private let observed: Mutex<LRUTable<String, Duration>>

  /// Nil without `coap.port`.
  static func part(_ context: PartContext) -> CoAPWayIn? {
    let settings = context.configuration.coap
    guard settings.port > 0 else { return nil }
    return CoAPWayIn(context, settings: settings)
  }

  private init(_ context: PartContext, settings: CoAPSettings) {
    self.settings = settings
    logger = context.logger
    intake = context.rooms.intake(way: "coap", configuration: context.configuration)
    verified = Mutex(LRUTable(capacity: settings.maximumSources))
    observed = Mutex(LRUTable(capacity: max(settings.maximumObserved, 1)))
    service = CoAPService(settings: settings, logger: context.logger)
    service.wayIn = self
  }

  var services: [any Service] { [service] }

  func apply(_ configuration: GatewayConfiguration) { intake.update(configuration) }

  func keepRestartOnlyKeys(of running: GatewayConfiguration, in new: inout GatewayConfiguration)
    -> [String]
  {
    guard new.coap != running.coap else { return [] }
    new.coap = running.coap
    return ["coap"]
  }

  // MARK: On libcoap's thread

  /// One request (or the second call of a deferred one).
  func handle(
    _ request: UnsafePointer<skyframe_coap_request>,
    _ response: UnsafeMutablePointer<skyframe_coap_response>
  ) {
    let request = request.pointee
    if request.deferred != 0 {
      let answers = pending.withLock { $0.removeValue(forKey: request.deferred) }
      guard let frames = answers?.frames else {
        response.pointee.code = 503
        return
      }
      return respond(frames, to: request, response)
    }
    let path = Self.text(request.path, request.path_length)
    let device: String
    if path == "v1/frame" {
      device = "@" + Self.address(of: Self.text(request.source, strlen(request.source)))
    } else if path.hasPrefix("v1/frame/") {
      device = String(path.dropFirst("v1/frame/".count))
      guard DeviceIntake.isValidDevice(device) else {
        return Self.plain(400, "device ids are 1-32 of a-z A-Z 0-9 - _ .", response)
      }
    } else {
      return Self.plain(404, "ask /v1/frame/{device}?q=...", response)
    }
    // No handshake: a source that has not shown it receives gets 4.01 and an Echo value (a few
    // bytes) until it sends the value back.
    // By address: what a forged request would aim at is an address, and a device's port changes
    // with each wake (and its NAT).
    let source = Self.address(of: Self.text(request.source, strlen(request.source)))
    guard isVerified(source, echo: request) else {
      var value = echoValue(for: source, minute: intake.rooms.clock.unixTime() / 60)
      withUnsafeBytes(of: &value) { bytes in
        withUnsafeMutableBytes(of: &response.pointee.echo) { $0.copyMemory(from: bytes) }
      }
      response.pointee.echo_length = 8
      response.pointee.code = 401
      return
    }
    let query = Self.text(request.query, request.query_length)
    var bytes: [UInt8]
    if request.method == 2 {
      bytes = Array(UnsafeRawBufferPointer(start: request.body, count: request.body_length))
    } else {
      guard let text = QueryItems.value(of: "q", in: query) else {
        return Self.plain(400, "name the places with ?q=", response)
      }
      bytes = Array(text.utf8)
    }
    let clock = intake.rooms.clock
    let reading = clock.reading()
    let now = clock.unixTime(atReading: reading)
    // A notification is the observer's registration run again by libcoap: the gateway's own
    // doing, not counted against the device's limit.
    let notification =
      request.observable != 0 && request.observe == 0
      && notifying.withLock { $0.contains(path) }
    guard
      let admission = notification
        ? intake.admitUnasked() : intake.admit(device, now: now, reading: reading)
    else {
      response.pointee.code = 429
      response.pointee.max_age = Int32(60 - now % 60)
      return
    }
    let service = service
    let id = nextDeferred.add(1, ordering: .relaxed).oldValue
    let answers = CollectedAnswers { service.complete(id) }
    bytes.withUnsafeBytes { payload in
      intake.answer(
        payload, from: device, admission: admission, reply: answers, via: CollectingOut(),
        arrived: reading, now: now)
    }
    if let frames = answers.frames { return respond(frames, to: request, response) }
    pending.withLock { $0[id] = answers }
    response.pointee.defer = id
  }

  /// The frames as the response: 2.03 when the request's ETag is theirs, else 2.05 (or the
  /// error's code) with them.
  private func respond(
    _ frames: [CollectedAnswers.Frame], to request: skyframe_coap_request,
    _ response: UnsafeMutablePointer<skyframe_coap_response>
  ) {
    let described = FrameResponse(frames)
    let tag = described.compactTag.map(UInt64.init) ?? 0
    response.pointee.etag = tag
    response.pointee.max_age = described.maxAge > 0 ? Int32(clamping: described.maxAge) : -1
    // Noted as observed from the first registration on: the C side registers one that came
    // before the path had its resource once it has made it.
    let path = Self.text(request.path, request.path_length)
    if request.observe == 0, path.hasPrefix("v1/frame/"), described.maxAge > 0 {
      let due = intake.rooms.clock.now + .seconds(described.maxAge)
      observed.withLock { _ = $0.set(due, forKey: path) }
    }
    if tag != 0, request.etag_length > 0, request.etag_length <= 8 {
      var asked: UInt64 = 0
      for index in 0..<request.etag_length { asked = asked << 8 | UInt64(request.etag[index]) }
      if asked == tag {
        response.pointee.code = 203
        return
      }
    }
    response.pointee.code = Int32(described.code == 200 ? 205 : described.code)
    let json =
      request.accepts_json != 0
      || QueryItems.value(of: "format", in: Self.text(request.query, request.query_length))
        == "json"
    response.pointee.content_format = json ? 1 : 0
    let body = FrameResponse.body(of: frames, json: json)
    // The C side copies the payload before this returns; `body` lives until then.
    CoAPService.withPayload(body, response)
  }

  /// A deferred answer whose exchange libcoap no longer holds (its peer went): dropped.
  func forget(_ id: UInt64) {
    _ = pending.withLock { $0.removeValue(forKey: id) }
  }

  /// The paths whose observers libcoap notifies in the library's next round.
  private let notifying = Mutex<Set<String>>([])

  /// The observed resources whose answer's `next_update` passed: their observers are notified
  /// (the answer is composed again for each) in the library's next round, where a registration
  /// run again on one of them is known as a notification (`endNotifying` after that round).
  func dueObserved() -> [String] {
    let due = dueObservedPaths()
    notifying.withLock { $0 = Set(due) }
    return due
  }

  /// The round that sent the notifications of `dueObserved` is over.
  func endNotifying() {
    notifying.withLock { $0.removeAll(keepingCapacity: true) }
  }

  private func dueObservedPaths() -> [String] {
    let now = intake.rooms.clock.now
    return observed.withLock { table in
      var due: [String] = []
      table.forEachNewestFirst { path, at in
        if at <= now { due.append(path) }
        return true
      }
      for path in due { _ = table.set(now + .seconds(3_600), forKey: path) }
      return due
    }
  }

  private func isVerified(_ source: String, echo request: skyframe_coap_request) -> Bool {
    if verified.withLock({ $0.value(forKey: source) }) != nil { return true }
    guard request.echo_length == 8 else { return false }
    var value: UInt64 = 0
    withUnsafeMutableBytes(of: &value) {
      $0.copyMemory(from: UnsafeRawBufferPointer(start: request.echo, count: 8))
    }
    let minute = intake.rooms.clock.unixTime() / 60
    guard
      value == echoValue(for: source, minute: minute)
        || value == echoValue(for: source, minute: minute - 1)
    else { return false }
    verified.withLock { _ = $0.set(true, forKey: source) }
    return true
  }

  /// The Echo value a source must send back: a keyed hash of the source and the minute.
  private func echoValue(for source: String, minute: Int64) -> UInt64 {
    var hasher = Hasher()
    hasher.combine(echoKey)
    hasher.combine(source)
    hasher.combine(minute)
    return UInt64(bitPattern: Int64(hasher.finalize()))
  }

  private static func plain(
    _ code: Int32, _ text: String, _ response: UnsafeMutablePointer<skyframe_coap_response>
  ) {
    response.pointee.code = code
    response.pointee.content_format = 2
    CoAPService.withPayload(Array(text.utf8), response)
  }

  static func text(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> String {
    guard let pointer, length > 0 else { return "" }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
      String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
    }
  }

  /// "192.0.2.1:5683" → "192.0.2.1"; "[2001:db8::1]:5683" → "2001:db8::1".
  static func address(of source: String) -> String {
    if source.hasPrefix("["), let end = source.firstIndex(of: "]") {
      return String(source[source.index(after: source.startIndex)..<end])
    }
    return source.firstIndex(of: ":").map { String(source[..<$0]) } ?? source
  }
}
