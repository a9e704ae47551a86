import SkyframeCodec
import SkyframeMQTT
import Synchronization

/// The MQTT intake's side of restarts and of the fleet: the broker's replay of what it kept
/// (answered once, `AnsweredMemory`), and the requests held while a cluster member's live set
/// settles (`ClusterMembers.answers`).
extension MQTTIntake {
  /// Whether this gateway answers `message` now: in a fleet only the device's owner does (and a
  /// request that comes while the live set settles is held); a QoS 1 request the broker
  /// delivers again after its restart is not answered twice.
  func takes(
    _ message: MQTTIncoming, from device: String, lane: Int, now: Int64, reading: Int64
  ) -> Bool {
    if let members {
      switch members.answers(device: device, at: clock.now) {
      case .answer: break
      case .otherMember: return false
      case .hold:
        hold(message, from: device, lane: lane)
        return false
      }
    }
    if message.qos > 0, isReplay(message, from: device, now: now, reading: reading) {
      metrics.droppedReplay()
      return false
    }
    return true
  }

  /// Disconnected: what comes first after the reconnect may be the broker's replay (it comes
  /// before `connected` is told), so the check is on from now until the connect says.
  func disconnected() {
    replayUntil.store(Int64.max, ordering: .relaxed)
  }

  /// Connected: after a connect that found the session, the broker delivers what it kept for
  /// it — after its own restart, what its last saved database held, some of it answered since.
  func connected(sessionPresent: Bool) {
    replayUntil.store(
      sessionPresent ? clock.reading() + Self.replayNanoseconds : Int64.min, ordering: .relaxed)
  }

  /// Whether a QoS 1 request with an id was taken within the replay window (and this may be the
  /// broker's replay); every one is noted.
  func isReplay(_ message: MQTTIncoming, from device: String, now: Int64, reading: Int64)
    -> Bool
  {
    let window = replayWindowSeconds.load(ordering: .relaxed)
    guard window > 0, DeviceRequest.requestID(in: message.payload) != 0 else { return false }
    let correlation = message.correlationData()
    let fingerprint = correlation.withUnsafeBytesOrNil { correlation in
      AnsweredMemory.fingerprint(device: device, payload: message.payload, correlation: correlation)
    }
    // Outside the replay period a repeat is a device asking again (its retry): answered.
    let since =
      reading <= replayUntil.load(ordering: .relaxed) ? now - window : Int64.max
    return answered.seenElseNote(fingerprint, since: since, now: now)
  }

  /// A request that came before the live set settled: kept (copied) until it has.
  func hold(_ message: MQTTIncoming, from device: String, lane: Int) {
    let limit = queue.limit
    let kept = held.withLock { held -> Bool in
      guard held.requests.count < limit else { return false }
      held.requests.append((message.copy(), device, lane))
      return true
    }
    if !kept { metrics.dropped() }
  }

  /// The live set can be trusted: the held requests go on to their owners — or, when
  /// `dropIfOthersLive` and other members live, are dropped: this process's first second, when
  /// it was not announced yet and the others answered every device (what its session kept from
  /// before it started, too).
  func releaseHeld(dropIfOthersLive: Bool) {
    let held = held.withLock { held in
      defer { held = Held() }
      return held
    }
    var answered = held.requests[...]
    if dropIfOthersLive, (members?.count ?? 1) > 1 {
      // A takeover marker among them: what came before it, nobody answered (the others had not
      // seen this member go); after it, they did. Without one, they answered all of it.
      answered = answered.prefix(held.beforeTakeover ?? 0)
      for _ in answered.count..<held.requests.count { metrics.droppedTakenOver() }
    }
    for entry in answered {
      MQTTIncoming.with(entry.message) { receive($0, from: entry.device, lane: entry.lane) }
    }
  }

  /// A takeover marker for this member arrived: where it came among the held requests is kept
  /// (the first one counts).
  func markTakenOver() {
    held.withLock { held in
      if held.beforeTakeover == nil { held.beforeTakeover = held.requests.count }
    }
  }
}
