import SkyframeCodec
import Synchronization

/// Outcomes to frames: one writer per profile, for weather and errors alike, so every answer —
/// `rate_limited`, `bad_request`, `not_found` as much as `ok` — comes in the profile the device
/// asked for. The standard frame is written first on the stack; `tiny` and `large` are made from
/// it (and from the cached large frame), and replaced by `unchanged` when the device's check says
/// it shows the same weather. Nothing here publishes: the way out is the outbox's.
package final class Composer: Sendable {
  private let cacheTTLSeconds = Atomic<Int64>(0)
  private let clock: GatewayClock

  init(configuration: GatewayConfiguration, clock: GatewayClock) {
    self.clock = clock
    update(configuration)
  }

  /// The gateway clock's Unix time.
  package func unixTime() -> Int64 { clock.unixTime() }

  func update(_ configuration: GatewayConfiguration) {
    cacheTTLSeconds.store(Int64(configuration.cache.ttlSeconds), ordering: .relaxed)
  }

  /// Writes the answer for `outcome` in slot `slot` of `count` and hands it to `send` with
  /// whether it is `unchanged` and its `next_update`. A cache hit allocates nothing here: every buffer is on the stack.
  package func compose(
    _ outcome: Outcome, requestID: UInt16, slot: Int, of count: Int, answering: Answering,
    time: Int64? = nil,
    _ send: (UnsafeRawBufferPointer, _ unchanged: Bool, _ nextUpdate: UInt16) -> Void
  ) {
    let ttl = cacheTTLSeconds.load(ordering: .relaxed)
    let hint = Self.nextUpdate(for: outcome, ttl: ttl, now: time ?? clock.unixTime())
    let profile = answering.profile
    // Constant sizes, each within what the standard library takes from the stack without asking
    // the runtime: a size known only at run time costs a stack-bounds check on every answer.
    withUnsafeTemporaryAllocation(byteCount: WeatherFrame.size, alignment: 8) { standard in
      Self.write(
        outcome, requestID: requestID, slot: slot, of: count, nextUpdate: hint, into: standard)
      /// `frame`, or `unchanged` written over the start of the standard frame (no longer needed
      /// then) when the device's check says it shows the same weather.
      func finish(_ frame: UnsafeRawBufferPointer) {
        guard let check = answering.checks[slot], outcome.status.carriesWeather,
          ContentCheck.of(frame, kind: profile.kind) == check
        else { return send(frame, false, hint) }
        let target = UnsafeMutableRawBufferPointer(rebasing: standard[0..<UnchangedLayout.size])
        UnchangedLayout.write(
          profile: profile, requestID: requestID, slotIndex: UInt8(clamping: slot),
          slotCount: UInt8(clamping: count), nextUpdateSeconds: hint, into: target)
        send(UnsafeRawBufferPointer(target), true, hint)
      }
      let written = UnsafeRawBufferPointer(standard)
      switch profile {
      case .standard:
        finish(written)
      case .tiny:
        withUnsafeTemporaryAllocation(byteCount: TinyLayout.size, alignment: 8) { spare in
          TinyLayout.write(
            from: ProfileView(unchecked: written.baseAddress!, kind: .standard), into: spare)
          finish(UnsafeRawBufferPointer(spare))
        }
      case .large:
        withUnsafeTemporaryAllocation(byteCount: LargeLayout.size, alignment: 8) { spare in
          Self.writeLarge(
            of: outcome, standard: ProfileView(unchecked: written.baseAddress!, kind: .standard),
            into: spare)
          finish(UnsafeRawBufferPointer(spare))
        }
      }
    }
  }

  /// The standard frame of `outcome`, for the display board.
  func standardFrame(of outcome: Outcome, slot: Int, of count: Int) -> [UInt8] {
    let ttl = cacheTTLSeconds.load(ordering: .relaxed)
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
  /// that holds, the rest missing; for an error, the error).
  static func writeLarge(
    of outcome: Outcome, standard: ProfileView, into buffer: UnsafeMutableRawBufferPointer
  ) {
    guard case .weather(let frame, let stale, let place) = outcome, frame.holds.contains(.large)
    else {
      LargeLayout.write(from: standard, into: buffer)
      return
    }
    frame.bytes.withUnsafeBytes {
      buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[WeatherFrame.size...]))
    }
    let name = place.longName ?? FixedText<48>(place.name)
    typealias S = StandardLayout
    LargeLayout.rewrite(
      buffer, status: stale ? .stale : .ok, requestID: standard.read(S.requestID) ?? 0,
      slotIndex: standard.read(S.slotIndex) ?? 0, slotCount: standard.read(S.slotCount) ?? 1,
      latitude: place.latitude, longitude: place.longitude, name: name, country: place.country,
      nextUpdateSeconds: standard.read(S.nextUpdate) ?? 0)
  }

  /// The frame's `next_update`: for weather, the seconds until the cached frame expires (then a
  /// request fetches newer data); for an error with a known retry time (a paused service, a
  /// 429's `Retry-After`) that time; for `stale` and `upstream_unavailable` a minute, when the
  /// service may be asked again; for `rate_limited` the start of the next minute, when the
  /// device's limit resets; 0 (no hint) otherwise.
  static func nextUpdate(for outcome: Outcome, ttl: Int64, now: Int64) -> UInt16 {
    switch outcome {
    case .weather(let frame, false, _):
      return UInt16(clamping: max(1, frame.secondsUntilNewer(ttl: ttl, now: now)))
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

  /// The standard frame of `outcome` into `buffer` (`WeatherFrame.size` bytes).
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
        name: place.name, country: place.country, nextUpdateSeconds: nextUpdate)
    case .failure(let status, let name, _):
      var frame = WeatherFrame(
        status: status, requestID: requestID, slotIndex: slotIndex, slotCount: slotCount, name: name
      )
      frame.nextUpdateSeconds = nextUpdate == 0 ? nil : nextUpdate
      // Every value of an error frame is in range by construction.
      try! frame.encode(into: buffer)
    }
  }
}
