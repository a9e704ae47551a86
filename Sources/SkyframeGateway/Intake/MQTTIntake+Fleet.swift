import SkyframeCodec
import SkyframeMQTT
import Synchronization

/// The MQTT intake's side of restarts and of the fleet: the broker's replay of what it kept
/// (answered once, `AnsweredMemory`), and the requests held while a cluster member's live set
/// settles (`ClusterMembers.answers`).
extension MQTTIntake {
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
      guard held.count < limit else { return false }
      held.append((message.copy(), device, lane))
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
      defer { held = [] }
      return held
    }
    if dropIfOthersLive, (members?.count ?? 1) > 1 {
      for _ in held { metrics.droppedTakenOver() }
      return
    }
    for entry in held {
      MQTTIncoming.with(entry.message) { receive($0, from: entry.device, lane: entry.lane) }
    }
  }
}
