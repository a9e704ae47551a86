import CoreMetrics
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
///
/// `receive` runs on the MQTT network thread and does everything that needs no waiting: the
/// request is parsed, counted against the device's limit, and answered at once when every place
/// is in the cache. Otherwise it becomes a `Job` for the bounded queue, and a worker finishes it
/// with `answer`, upstream calls and all.
final class RequestHandler: Sendable {
  /// What the rest reads under a lock; what every request reads is in `HotSettings`.
  struct Settings: Sendable {
    var topics: GatewayConfiguration.Topics
    var newCellsPerMinute: Int
    var newCellsPerDevicePerMinute: Int
    var responseTopics: ResponseTopicRule
    var deadlineMilliseconds: Int

    init(_ configuration: GatewayConfiguration) {
      topics = configuration.topics
      newCellsPerMinute = configuration.upstream.newCellsPerMinute
      newCellsPerDevicePerMinute = configuration.upstream.newCellsPerDevicePerMinute
      responseTopics = ResponseTopicRule(topics: configuration.topics)
      deadlineMilliseconds = configuration.requests.deadlineMilliseconds
    }
  }

  /// Where an answer goes: the device's frame topic, or a v5 response topic with its correlation
  /// data, and at which QoS.
  struct Reply: Sendable {
    var topic: String
    var correlationData: [UInt8]?
    var qos = 1
    /// The connection the request came in on (`mqtt.request-connections`), which the answer
    /// leaves by: 0 is the first.
    var lane = 0
  }

  /// A request that waits for a worker: its places need an upstream call (or a name look-up).
  struct Job: Sendable {
    var device: String
    var requestID: UInt16
    var places: LocationList
    var reply: Reply
    /// For the request duration metric.
    var arrived: Int64
    /// When it was queued, on the gateway clock: the answer deadline counts from here.
    var queued: Duration
    var answering = Answering()
  }

  /// The form of every answer to one request: the profile, and the content checks of what the
  /// device shows (`schemas/frame-profiles.md`).
  struct Answering: Sendable {
    var profile: FrameProfile = .standard
    var checks = ContentChecks()
  }

  /// A place as the frame shows it.
  struct ResolvedPlace: Sendable {
    var point: GeoPoint
    var latitude: Int32
    var longitude: Int32
    var name: FrameName
    var country: CountryCode?
    /// The name cut to the `large` profile's 48 bytes; nil when `name` holds all of it. Inline
    /// text, not a `String`: a place stays plain data, copied on every cache hit without
    /// reference counting.
    var longName: FixedText<48>?

    init(coordinates: Coordinates, named: Forecast.Place?) {
      point = coordinates.point
      latitude = coordinates.latitude
      longitude = coordinates.longitude
      name =
        named.map { FrameName(truncating: $0.name) } ?? RequestHandler.coordinateName(coordinates)
      country = named?.countryCode.flatMap { CountryCode($0) }
      longName = named.flatMap { Self.longName($0.name) }
    }

    init(found: Forecast.Place) {
      point = GeoPoint(latitude: found.latitude, longitude: found.longitude)
      latitude = Int32((found.latitude * 100_000).rounded())
      longitude = Int32((found.longitude * 100_000).rounded())
      name = FrameName(truncating: found.name)
      country = found.countryCode.flatMap { CountryCode($0) }
      longName = Self.longName(found.name)
    }

    /// `name` for the large frame when it does not fit the standard frame's 24 bytes.
    static func longName(_ name: String) -> FixedText<48>? {
      name.utf8.count > FrameName.capacityBytes ? FixedText<48>(truncating: name) : nil
    }
  }

  enum Outcome: Sendable {
    case weather(WeatherDesk.CachedFrame, stale: Bool, place: ResolvedPlace)
    /// `retryAfter`: seconds until the service may be asked again, when known (a paused or rate
    /// limited service): the frame's next-update hint.
    case failure(FrameStatus, name: FrameName, retryAfter: Int? = nil)

    var status: FrameStatus {
      switch self {
      case .weather(_, let stale, _): stale ? .stale : .ok
      case .failure(let status, _, _): status
      }
    }

    /// A failure that says nothing about the place, only about now (the service, a limit, the
    /// gateway): a retained frame (watch, named place) is better left as it is than replaced.
    var isPassingFailure: Bool {
      guard case .failure(let status, _, _) = self else { return false }
      return status == .upstreamUnavailable || status == .rateLimited || status == .internalError
    }
  }

  /// Who a place is resolved for: a device (whose new cells are limited) or a schedule.
  enum Requester: Sendable {
    case device(String)
    case scheduled
  }

  private let settings: Mutex<Settings>
  /// What every request reads of the configuration, as atomics: a load each on the network
  /// thread instead of a lock. `update` writes them with `settings`.
  private let hot = HotSettings()

  private struct HotSettings: ~Copyable, Sendable {
    let perDevicePerMinute = Atomic<Int>(0)
    let maximumLocations = Atomic<Int>(0)
    /// `topics.answer-qos` applied to a QoS 0 request and to a QoS 1 or 2 one.
    let answerQoSToQoS0 = Atomic<Int>(0)
    let answerQoSToQoS1 = Atomic<Int>(1)
    let cacheTTLSeconds = Atomic<Int64>(0)
    let debugJSON = Atomic<Bool>(false)

    func store(_ configuration: GatewayConfiguration) {
      perDevicePerMinute.store(configuration.requests.perDevicePerMinute, ordering: .relaxed)
      maximumLocations.store(configuration.requests.maximumLocations, ordering: .relaxed)
      let rule = configuration.topics.answerQoS
      answerQoSToQoS0.store(rule.qos(answering: 0), ordering: .relaxed)
      answerQoSToQoS1.store(rule.qos(answering: 1), ordering: .relaxed)
      cacheTTLSeconds.store(Int64(configuration.cache.ttlSeconds), ordering: .relaxed)
      debugJSON.store(configuration.topics.debugJSON, ordering: .relaxed)
    }

    /// The QoS of the answer to a request that came at `requestQoS`.
    func qos(answering requestQoS: Int) -> Int {
      requestQoS == 0
        ? answerQoSToQoS0.load(ordering: .relaxed) : answerQoSToQoS1.load(ordering: .relaxed)
    }
  }

  private let desk: WeatherDesk
  /// Where answers go, one per request connection; the first also takes the gateway's own.
  private let sinks: [any FrameSink]
  private let logger: Logger
  private let devices: DeviceTable
  /// Lines about devices (refusals, bad requests) are rate limited per device.
  let logLimiter: DeviceLogLimiter
  private let newCells = NewCellAdmission()
  private let queue: BoundedQueue<Job>
  let metrics: GatewayMetrics
  private let clock: GatewayClock
  /// The well-behaved devices' way past a flood; nil without its connection.
  let fastLane: FastLane?

  init(
    configuration: GatewayConfiguration, desk: WeatherDesk, sink: any FrameSink,
    lanes: [any FrameSink] = [], fastLane link: FastLaneLink? = nil, queue: BoundedQueue<Job>,
    metrics: GatewayMetrics, clock: GatewayClock, logger: Logger
  ) {
    settings = Mutex(Settings(configuration))
    hot.store(configuration)
    let devices = DeviceTable(capacity: configuration.requests.maximumDevices)
    self.devices = devices
    logLimiter = DeviceLogLimiter(capacity: configuration.requests.maximumDevices, clock: clock)
    self.desk = desk
    sinks = [sink] + lanes + (link.map { [$0.sink] } ?? [])
    let topics = configuration.topics
    fastLane = link.map { link in
      FastLane(
        capacity: link.capacity, lane: lanes.count + 1,
        connection: FastLane.Connection(
          subscribe: { link.subscribe(topics.request(device: $0)) },
          unsubscribe: { link.unsubscribe(topics.request(device: $0)) },
          wellBehaved: { limit, floodBegan in
            // Known before the flood: one that came with it may be part of it.
            devices.wellBehaved(
              limit: limit, minute: clock.unixTime() / 60,
              knownBy: clock.unixTime(atReading: floodBegan) - FastLane.knownSeconds - 1,
              walking: limit * 16)
          }, log: { logger.warning("\($0)") }),
        gauge: { metrics.fastLaneDevices.record($0) },
        // A thread of its own: a task could wait behind the workers, and every moment the lane
        // is not open, requests of devices that behave go into the flooded stream.
        run: { work in Thread.detachNewThread { work() } })
    }
    self.queue = queue
    self.metrics = metrics
    self.clock = clock
    self.logger = logger
  }

  func update(_ configuration: GatewayConfiguration) {
    settings.withLock { $0 = Settings(configuration) }
    hot.store(configuration)
    devices.resize(to: configuration.requests.maximumDevices)
    logLimiter.resize(to: configuration.requests.maximumDevices)
    queue.setLimit(configuration.requests.queueLimit)
  }

  var rememberedDevices: Int { devices.count }

  /// On the network thread of request connection `lane`: answers `message` now if it can, else
  /// queues it for a worker (or, when the queue is full, answers `rate_limited` at once).
  func receive(_ message: MQTTIncoming, from device: String, lane: Int = 0) {
    let arrived = MonotonicNanoseconds.now()
    guard !isSecondCopy(message, from: device, lane: lane, now: arrived) else { return }
    let now = clock.unixTime(atReading: arrived)
    let perDevicePerMinute = hot.perDevicePerMinute.load(ordering: .relaxed)
    // Made only when a line is written: making it copies the logger (reference counting).
    func logger() -> DeviceLog {
      DeviceLog(logger: self.logger, device: device, limiter: logLimiter)
    }
    let admission = devices.admit(
      device, minute: now / 60, perMinute: perDevicePerMinute,
      frameTopic: { device in settings.withLock { $0.topics.frame(device: device) } }, second: now)
    guard admission.allowed || admission.firstRefusal else {
      // Told `rate_limited` once this minute: not parsed, not answered, not logged.
      metrics.leftUnanswered()
      fastLane?.noteRefusal(now: arrived)
      return
    }
    if !admission.allowed { fastLane?.refusedOverLimit(device, now: arrived) }
    let qos = hot.qos(answering: message.qos)
    guard
      let reply = reply(
        to: message, from: device, defaultTopic: admission.frameTopic, qos: qos, lane: lane,
        allowed: admission.allowed, logger: logger())
    else { return }

    guard admission.allowed else {
      logger().info(
        "over \(perDevicePerMinute) requests a minute: rate_limited, nothing sent upstream")
      refuse(
        .rateLimited, "too many requests", requestID: DeviceRequest.requestID(in: message.payload),
        to: reply, logger: logger())
      return
    }

    let request: DeviceRequest
    do throws(RequestError) {
      request = try DeviceRequest(
        parsing: message.payload, maximumLocations: hot.maximumLocations.load(ordering: .relaxed))
    } catch {
      logger().info("bad request: \(error)")
      refuse(
        error.frameStatus, "\(error)", requestID: DeviceRequest.requestID(in: message.payload),
        to: reply, logger: logger())
      return
    }

    // The places go on by reference from here: the inline list is some 800 bytes.
    var answering = Answering(profile: request.profile ?? .standard, checks: request.checks)
    if !request.isRefresh {
      if !admission.isRemembered(request.places, profile: answering.profile) {
        devices.remember(request.places, profile: answering.profile, for: device)
      }
      answer(
        request.places, requestID: request.id, from: device, answering, to: reply,
        arrived: arrived, now: now, logger())
    } else {
      guard let last = devices.lastRequest(of: device) else {
        logger().info("refresh without an earlier request")
        refuse(
          .badRequest, "refresh: nothing asked yet", requestID: request.id, to: reply,
          logger: logger())
        return
      }
      if request.profile == nil { answering.profile = last.profile }
      answer(
        last.places, requestID: request.id, from: device, answering, to: reply, arrived: arrived,
        now: now, logger())
    }
  }

  /// The places of a parsed request (or of the one a refresh repeats): answered now from the
  /// cache, refused as new cells, or queued for a worker.
  private func answer(
    _ places: borrowing LocationList, requestID: UInt16, from device: String,
    _ answering: Answering, to reply: Reply, arrived: Int64, now: Int64,
    _ logger: @autoclosure () -> DeviceLog
  ) {
    if answerNow(places, requestID: requestID, answering, to: reply, now: now, logger: logger()) {
      metrics.requestDuration.recordNanoseconds(MonotonicNanoseconds.now() - arrived)
      return
    }
    if let refusal = refusedAsNew(places, from: device, logger: logger()) {
      refused(device, at: arrived)
      publish(
        refusal, requestID: requestID, slot: 0, of: 1, to: reply, logger: logger(),
        answering: answering)
      return
    }
    enqueue(
      Job(
        device: device, requestID: requestID, places: copy places, reply: reply,
        arrived: arrived, queued: clock.now, answering: answering), logger: logger())
  }

  /// Where the answer goes: the device's frame topic, or the response topic it gave when the
  /// rule allows it. nil when the response topic is refused: the device is answered on its own
  /// frame topic (`bad_request`, or `rate_limited` past its limit) and nothing else is done.
  private func reply(
    to message: MQTTIncoming, from device: String, defaultTopic: String, qos: Int, lane: Int,
    allowed: Bool, logger: @autoclosure () -> DeviceLog
  ) -> Reply? {
    let reply = Reply(topic: defaultTopic, correlationData: nil, qos: qos, lane: lane)
    guard let responseTopic = message.responseTopic() else { return reply }
    let rule = settings.withLock { $0.responseTopics }
    guard let refusal = rule.refusal(of: responseTopic, for: device) else {
      return Reply(
        topic: responseTopic, correlationData: message.correlationData(), qos: qos, lane: lane)
    }
    metrics.refusedResponseTopic()
    // Counted against the device's limit; the line is cut short and rate limited.
    logger().warning(
      "response topic \(responseTopic.prefix(64))\(responseTopic.utf8.count > 64 ? "…" : "") refused (\(refusal); allowed: \(rule.branch(of: device))[/…]): answering bad_request on the device topic"
    )
    let (status, text): (FrameStatus, String) =
      allowed ? (.badRequest, "response topic refused") : (.rateLimited, "too many requests")
    refuse(
      status, text, requestID: DeviceRequest.requestID(in: message.payload), to: reply,
      logger: logger())
    return nil
  }

  /// Hands `job` to the workers; a full or closed queue answers at once instead.
  private func enqueue(_ job: Job, logger: DeviceLog) {
    switch queue.offer(job) {
    case .success:
      metrics.queueDepth.record(queue.depth)
    case .failure(let refusal):
      metrics.dropped()
      refused(job.device, at: MonotonicNanoseconds.now())
      let (status, text): (FrameStatus, String) =
        refusal == .full
        ? (.rateLimited, "gateway busy") : (.upstreamUnavailable, "gateway stopping")
      logger.info("\(text): answered \(status.name.map { "\($0)" } ?? "?") without queueing")
      refuse(status, text, requestID: job.requestID, to: job.reply, logger: logger)
    }
  }

  /// Whether `message` is the second copy of a request already answered (`FastLane`): counted
  /// and dropped.
  private func isSecondCopy(_ message: MQTTIncoming, from device: String, lane: Int, now: Int64)
    -> Bool
  {
    guard let fastLane, fastLane.isActive,
      fastLane.isSecondCopy(of: message, from: device, lane: lane, now: now)
    else { return false }
    metrics.droppedSecondCopy()
    return true
  }

  /// A request refused for its places or a full queue: the device does not count as one that
  /// behaves (`FastLane`), and the refusal counts toward a flood.
  private func refused(_ device: String, at now: Int64) {
    guard let fastLane else { return }
    devices.markRefused(device)
    fastLane.noteRefusal(now: now)
  }

  /// Publishes an answer on the connection its request came in on; when that is another than
  /// the first and fails (down), on the first: the request's twin may have been dropped already.
  private func deliver(_ payload: UnsafeRawBufferPointer, to reply: Reply, retain: Bool)
    throws(MQTTError)
  {
    do throws(MQTTError) {
      try sinks[reply.lane].publish(
        reply.topic, payload: payload, qos: retain ? 1 : reply.qos, retain: retain,
        correlationData: reply.correlationData)
    } catch {
      guard reply.lane != 0 else { throw error }
      try sinks[0].publish(
        reply.topic, payload: payload, qos: retain ? 1 : reply.qos, retain: retain,
        correlationData: reply.correlationData)
    }
  }

  /// One error frame answering the whole request, with `text` (the reason) as its name.
  private func refuse(
    _ status: FrameStatus, _ text: String, requestID: UInt16, to reply: Reply, logger: DeviceLog
  ) {
    publish(
      .failure(status, name: FrameName(truncating: text)), requestID: requestID, slot: 0, of: 1,
      to: reply, logger: logger)
  }

  /// Publishes every place's frame now if every place is in the cache; false (and nothing
  /// published) when one needs waiting.
  private func answerNow(
    _ places: LocationList, requestID: UInt16, _ answering: Answering, to reply: Reply,
    now: Int64, logger: @autoclosure () -> DeviceLog
  ) -> Bool {
    if places.count == 1 {
      // The common case, kept free of arrays.
      guard let outcome = resolveNow(places[0], large: answering.profile == .large, time: now)
      else {
        return false
      }
      metrics.cacheHit()
      publish(
        outcome, requestID: requestID, slot: 0, of: 1, to: reply, logger: logger(),
        answering: answering, time: now)
      return true
    }
    var outcomes: [Outcome] = []
    outcomes.reserveCapacity(places.count)
    for place in places {
      guard let outcome = resolveNow(place, large: answering.profile == .large) else {
        return false
      }
      outcomes.append(outcome)
    }
    for (slot, outcome) in outcomes.enumerated() {
      metrics.cacheHit()
      publish(
        outcome, requestID: requestID, slot: slot, of: outcomes.count, to: reply, logger: logger(),
        answering: answering)
    }
    return true
  }

  /// A worker's part: resolves a queued request's places (upstream calls included) and answers.
  func answer(_ job: Job) async {
    metrics.queueDepth.record(queue.depth)
    let logger = DeviceLog(logger: logger, device: job.device, limiter: logLimiter)
    let deadlineMilliseconds = settings.withLock { $0.deadlineMilliseconds }
    let deadline =
      deadlineMilliseconds > 0 ? job.queued + .milliseconds(deadlineMilliseconds) : nil
    let outcomes = await resolve(
      job.places, for: .device(job.device), answerBy: deadline,
      large: job.answering.profile == .large)
    for (slot, outcome) in outcomes.enumerated() {
      publish(
        outcome, requestID: job.requestID, slot: slot, of: outcomes.count, to: job.reply,
        logger: logger, answering: job.answering)
    }
    metrics.requestDuration.recordNanoseconds(MonotonicNanoseconds.now() - job.arrived)
    logger.debug("answered request \(job.requestID) with \(outcomes.count) frame(s)")
  }

  /// Every place at once; the outcomes keep the request's order. A place whose fetch is still
  /// running at `deadline` is answered `stale` if the cache has a frame for it. With `large`, the
  /// weather outcomes hold the large frame (`WeatherDesk.frame(at:answerBy:large:)`).
  func resolve(
    _ places: LocationList, for requester: Requester,
    answerBy deadline: Duration? = nil, large: Bool = false
  ) async -> [Outcome] {
    if places.count == 1 {
      return [await resolve(places[0], for: requester, answerBy: deadline, large: large)]
    }
    return await withTaskGroup(of: (Int, Outcome).self) { group in
      for (index, query) in places.enumerated() {
        group.addTask {
          (index, await self.resolve(query, for: requester, answerBy: deadline, large: large))
        }
      }
      var outcomes = [Outcome?](repeating: nil, count: places.count)
      for await (index, outcome) in group { outcomes[index] = outcome }
      return outcomes.map { $0! }
    }
  }

  /// The outcome from the caches alone, without waiting; nil when a place or its weather is not
  /// cached (or is expired).
  func resolveNow(_ query: LocationQuery, large: Bool = false, time: Int64? = nil) -> Outcome? {
    let place: ResolvedPlace
    switch query {
    case .coordinates(let coordinates):
      // The common case: name and frame with one read of the desk's settings.
      let cached = desk.cachedPosition(at: coordinates.point, large: large, time: time)
      guard case .known(let named) = cached.name, let frame = cached.frame else { return nil }
      return .weather(
        frame, stale: false, place: ResolvedPlace(coordinates: coordinates, named: named))
    case .place(let name, let country):
      guard
        case .known(let found) = desk.cachedPlace(named: name.string, countryCode: country?.string)
      else { return nil }
      guard let found else { return .failure(.notFound, name: FrameName(truncating: name.string)) }
      place = ResolvedPlace(found: found)
    }
    guard let frame = desk.cachedFrame(at: place.point, large: large, time: time) else {
      return nil
    }
    return .weather(frame, stale: false, place: place)
  }

  func resolve(
    _ query: LocationQuery, for requester: Requester,
    answerBy deadline: Duration? = nil, large: Bool = false
  ) async -> Outcome {
    if let outcome = resolveNow(query, large: large) {
      metrics.cacheHit()
      return outcome
    }
    // Whoever it is for decides which part of the budget its upstream calls may spend.
    let priority: UpstreamPriority = if case .scheduled = requester { .scheduled } else { .device }
    return await UpstreamPriority.$current.withValue(priority) {
      await fetch(query, for: requester, answerBy: deadline, large: large)
    }
  }

  /// The part of `resolve` that may call upstream: names, then weather.
  private func fetch(
    _ query: LocationQuery, for requester: Requester, answerBy deadline: Duration?,
    large: Bool
  ) async -> Outcome {
    let place: ResolvedPlace
    switch query {
    case .coordinates(let coordinates):
      place = ResolvedPlace(
        coordinates: coordinates, named: await desk.placeName(at: coordinates.point))
    case .place(let name, let country):
      let cached = desk.cachedPlace(named: name.string, countryCode: country?.string)
      if case .unknown = cached, !admitNew(for: requester) {
        return .failure(.rateLimited, name: FrameName(truncating: name.string))
      }
      switch await desk.place(named: name.string, countryCode: country?.string) {
      case .success(let found?):
        place = ResolvedPlace(found: found)
      case .success(nil):
        return .failure(.notFound, name: FrameName(truncating: name.string))
      case .failure(let error):
        return .failure(
          Self.status(of: error, geocoding: true), name: FrameName(truncating: name.string),
          retryAfter: Self.retryAfter(error))
      }
    }
    if !desk.hasFrame(at: place.point), !admitNew(for: requester) {
      return .failure(.rateLimited, name: place.name)
    }
    metrics.cacheMiss()
    switch await desk.frame(at: place.point, answerBy: deadline, large: large) {
    case .fresh(let frame): return .weather(frame, stale: false, place: place)
    case .stale(let frame):
      metrics.servedStale()
      return .weather(frame, stale: true, place: place)
    case .failed(let error):
      return .failure(
        Self.status(of: error, geocoding: false), name: place.name,
        retryAfter: Self.retryAfter(error))
    }
  }

  /// A request for one position in a cell the gateway has never fetched, while the new-cell
  /// limits (everyone's or the device's) are spent for this minute: a worker would answer it
  /// `rate_limited` without a call, so it is answered now, on the network thread, without a hop.
  /// Spent stays spent until the minute turns, so the answer is the one the worker would give.
  private func refusedAsNew(_ places: LocationList, from device: String, logger: DeviceLog)
    -> Outcome?
  {
    guard places.count == 1, case .coordinates(let coordinates) = places[0],
      !desk.hasFrame(at: coordinates.point)
    else { return nil }
    let minute = clock.unixTime() / 60
    let (perDevice, perMinute) = settings.withLock {
      ($0.newCellsPerDevicePerMinute, $0.newCellsPerMinute)
    }
    guard
      newCells.isSpent(minute: minute, perMinute: perMinute)
        || devices.hasSpentNewCells(device, minute: minute, perMinute: perDevice)
    else { return nil }
    metrics.refusedNewCell()
    logger.info("new-cell limit reached: rate_limited, nothing sent upstream")
    let named: Forecast.Place? =
      if case .known(let place) = desk.cachedPlaceName(at: coordinates.point) { place } else { nil }
    return .failure(
      .rateLimited, name: ResolvedPlace(coordinates: coordinates, named: named).name)
  }

  /// Whether `requester` may make the gateway fetch something it has never fetched: always for a
  /// schedule; for a device within the new-cell limits (its own and everyone's).
  private func admitNew(for requester: Requester) -> Bool {
    guard case .device(let device) = requester else { return true }
    let settings = settings.withLock { $0 }
    let minute = clock.unixTime() / 60
    guard
      devices.takeNewCell(
        device, minute: minute, perMinute: settings.newCellsPerDevicePerMinute),
      newCells.take(minute: minute, perMinute: settings.newCellsPerMinute)
    else {
      metrics.refusedNewCell()
      refused(device, at: MonotonicNanoseconds.now())
      DeviceLog(logger: logger, device: device, limiter: logLimiter).info(
        "new-cell limit reached: rate_limited, nothing sent upstream")
      return false
    }
    return true
  }

  /// How a failing weather service shows on the device.
  static func status(of error: ProviderError, geocoding: Bool) -> FrameStatus {
    switch error {
    case .rateLimited, .paused(_, .rateLimited, _): .rateLimited
    case .paused(_, .unauthorized, _): .internalError
    case .unavailable, .malformed, .paused: .upstreamUnavailable
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

  /// Writes the answer into a frame on the stack and hands it to MQTT: a cache hit allocates
  /// nothing here (libmosquitto copies the payload into its own packet). The standard frame is
  /// written first; `tiny` and `large` are made from it (and from the cached large frame), and
  /// replaced by `unchanged` when the device's check says it shows the same weather.
  func publish(
    _ outcome: Outcome, requestID: UInt16, slot: Int, of count: Int, to reply: Reply,
    logger: @autoclosure () -> DeviceLog,
    retain: Bool = false, answering: Answering = Answering(), time: Int64? = nil
  ) {
    let debugJSON = hot.debugJSON.load(ordering: .relaxed)
    let ttl = hot.cacheTTLSeconds.load(ordering: .relaxed)
    let hint = Self.nextUpdate(for: outcome, ttl: ttl, now: time ?? clock.unixTime())
    let profile = answering.profile
    // Constant sizes, each within what the standard library takes from the stack without asking
    // the runtime: a size known only at run time costs a stack-bounds check on every answer.
    withUnsafeTemporaryAllocation(byteCount: WeatherFrame.size, alignment: 8) { standard in
      Self.write(
        outcome, requestID: requestID, slot: slot, of: count, nextUpdate: hint, into: standard)
      /// Sends `frame`, or `unchanged` written over the start of the standard frame (no longer
      /// needed then) when the device's check says it shows the same weather.
      func send(_ frame: UnsafeRawBufferPointer) {
        var payload = frame
        var unchanged = false
        if let check = answering.checks[slot], outcome.status.carriesWeather,
          ContentCheck.of(frame, kind: profile.kind) == check
        {
          let target = UnsafeMutableRawBufferPointer(rebasing: standard[0..<UnchangedLayout.size])
          UnchangedLayout.write(
            profile: profile, requestID: requestID, slotIndex: UInt8(clamping: slot),
            slotCount: UInt8(clamping: count), nextUpdateSeconds: hint, into: target)
          payload = UnsafeRawBufferPointer(target)
          unchanged = true
        }
        if !retain { metrics.answered(outcome.status, profile: profile, unchanged: unchanged) }
        do throws(MQTTError) {
          try deliver(payload, to: reply, retain: retain)
        } catch {
          metrics.publishFailed()
          logger().error("publish to \(reply.topic) failed: \(error)")
        }
        if debugJSON, !unchanged {
          publishJSON(of: payload, topic: reply.topic + "/json", retain: retain, lane: reply.lane)
        }
      }
      let written = UnsafeRawBufferPointer(standard)
      switch profile {
      case .standard:
        send(written)
      case .tiny:
        withUnsafeTemporaryAllocation(byteCount: TinyLayout.size, alignment: 8) { spare in
          TinyLayout.write(from: FrameView(unchecked: written.baseAddress!), into: spare)
          send(UnsafeRawBufferPointer(spare))
        }
      case .large:
        withUnsafeTemporaryAllocation(byteCount: LargeLayout.size, alignment: 8) { spare in
          Self.writeLarge(
            of: outcome, standard: FrameView(unchecked: written.baseAddress!), into: spare)
          send(UnsafeRawBufferPointer(spare))
        }
      }
    }
  }

  /// The standard frame a retained publish of `outcome` carries, for the display board.
  func standardFrame(of outcome: Outcome, slot: Int, of count: Int) -> [UInt8] {
    let ttl = hot.cacheTTLSeconds.load(ordering: .relaxed)
    let hint = Self.nextUpdate(for: outcome, ttl: ttl, now: clock.unixTime())
    return [UInt8](unsafeUninitializedCapacity: WeatherFrame.size) { buffer, written in
      Self.write(
        outcome, requestID: 0, slot: slot, of: count, nextUpdate: hint,
        into: UnsafeMutableRawBufferPointer(buffer))
      written = WeatherFrame.size
    }
  }

  /// The large frame for `outcome`, given the standard frame just written: the cached large frame
  /// rewritten for this answer when the cache has one, else derived from the standard frame (what
  /// that holds, the rest missing).
  static func writeLarge(
    of outcome: Outcome, standard: FrameView, into buffer: UnsafeMutableRawBufferPointer
  ) {
    guard case .weather(let frame, let stale, let place) = outcome, frame.hasLarge else {
      LargeLayout.write(from: standard, into: buffer)
      return
    }
    frame.bytes.withUnsafeBytes {
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[WeatherFrame.size...]))
    }
    let name = place.longName ?? FixedText<48>(place.name)
    LargeLayout.rewrite(
      buffer, status: stale ? .stale : .ok, requestID: standard.requestID,
      slotIndex: standard.slotIndex, slotCount: standard.slotCount, latitude: place.latitude,
      longitude: place.longitude, name: name, country: place.country,
      nextUpdateSeconds: standard.nextUpdateSeconds ?? 0)
  }

  /// Seconds until the service may be asked again, when the error says: the rest of a pause, or
  /// a 429's `Retry-After`.
  static func retryAfter(_ error: ProviderError) -> Int? {
    switch error {
    case .paused(_, _, let seconds): seconds
    case .rateLimited(_, let seconds): seconds
    default: nil
    }
  }

  /// The frame's `next_update`: for weather, the seconds until the cached frame expires (then a
  /// request fetches newer data); for an error with a known retry time (a paused service, a
  /// 429's `Retry-After`) that time; for `stale` and `upstream_unavailable` a minute, when the
  /// service may be asked again; for `rate_limited` the start of the next minute, when the
  /// device's limit resets; 0 (no hint) otherwise.
  static func nextUpdate(for outcome: Outcome, ttl: Int64, now: Int64) -> UInt16 {
    switch outcome {
    case .weather(let frame, false, _):
      return UInt16(clamping: max(1, frame.freshUntil(ttl: ttl) - now))
    case .weather(_, true, _):
      return 60
    case .failure(_, _, let seconds?) where seconds > 0:
      return UInt16(clamping: seconds)
    case .failure(.upstreamUnavailable, _, _):
      return 60
    case .failure(.rateLimited, _, _):
      return UInt16(60 - now % 60)
    case .failure:
      return 0
    }
  }

  static func write(
    _ outcome: Outcome, requestID: UInt16, slot: Int, of count: Int, nextUpdate: UInt16 = 0,
    into buffer: UnsafeMutableRawBufferPointer
  ) {
    let slotCount = UInt8(clamping: count)
    let slotIndex = UInt8(clamping: min(slot, Int(slotCount) - 1))
    switch outcome {
    case .weather(let frame, let stale, let place):
      frame.bytes.withUnsafeBytes {
        buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<WeatherFrame.size]))
      }
      WeatherFrame.rewrite(
        buffer, status: stale ? .stale : .ok, requestID: requestID, slotIndex: slotIndex,
        slotCount: slotCount, latitude: place.latitude, longitude: place.longitude,
        name: place.name,
        country: place.country, nextUpdateSeconds: nextUpdate)
    case .failure(let status, let name, _):
      var frame = WeatherFrame(
        status: status, requestID: requestID, slotIndex: slotIndex, slotCount: slotCount, name: name
      )
      frame.nextUpdateSeconds = nextUpdate == 0 ? nil : nextUpdate
      // Every value of an error frame is in range by construction.
      try! frame.encode(into: buffer)
    }
  }

  private func publishJSON(
    of bytes: UnsafeRawBufferPointer, topic: String, retain: Bool, lane: Int
  ) {
    guard let json = try? FrameDocument.json(of: bytes) else { return }
    [UInt8](json).withUnsafeBytes { bytes in
      do throws(MQTTError) {
        try sinks[lane].publish(topic, payload: bytes, qos: 0, retain: retain, correlationData: nil)
      } catch {
        metrics.publishFailed()
      }
    }
  }
}

extension Coordinates {
  /// The position in degrees (the wire form is in 1e-5 degrees).
  var point: GeoPoint {
    GeoPoint(latitude: Double(latitude) / 100_000, longitude: Double(longitude) / 100_000)
  }
}
