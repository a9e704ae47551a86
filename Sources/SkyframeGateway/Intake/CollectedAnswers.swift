import SkyframeCodec
import SkyframeJSON
import Synchronization

/// The answers of one request of a way in that answers with one response (HTTP, CoAP), gathered
/// as the intake hands them over (at once for a cache hit, from a worker after an upstream call)
/// until every slot is in: awaited (`all()`), or told (`whenComplete`).
package final class CollectedAnswers: Sendable {
  package struct Frame: Sendable {
    package var bytes: [UInt8]
    package var status: FrameStatus
    package var unchanged: Bool
    package var nextUpdateSeconds: Int
  }

  private struct State {
    var frames: [Frame] = []
    var expected = Int.max
    var waiter: CheckedContinuation<[Frame], Never>?
  }

  private let state = Mutex(State())
  private let whenComplete: (@Sendable () -> Void)?

  /// - Parameter whenComplete: called once every slot is in (on the thread that added the last).
  package init(whenComplete: (@Sendable () -> Void)? = nil) {
    self.whenComplete = whenComplete
  }

  /// The frames, once every slot is in; nil before.
  package var frames: [Frame]? {
    state.withLock { $0.frames.count >= $0.expected ? $0.frames : nil }
  }

  package func add(_ answer: SentAnswer) {
    let frame = Frame(
      bytes: Array(answer.bytes), status: answer.status, unchanged: answer.unchanged,
      nextUpdateSeconds: answer.nextUpdateSeconds)
    let (complete, waiter) = state.withLock {
      state -> (Bool, (CheckedContinuation<[Frame], Never>, [Frame])?) in
      state.frames.append(frame)
      state.expected = answer.count
      guard state.frames.count >= state.expected else { return (false, nil) }
      defer { state.waiter = nil }
      return (true, state.waiter.map { ($0, state.frames) })
    }
    if let (waiter, frames) = waiter { waiter.resume(returning: frames) }
    if complete { whenComplete?() }
  }

  /// Every slot's frame, in slot order, once all are in.
  package func all() async -> [Frame] {
    await withCheckedContinuation { continuation in
      let ready = state.withLock { state -> [Frame]? in
        guard state.frames.count >= state.expected else {
          state.waiter = continuation
          return nil
        }
        return state.frames
      }
      if let ready { continuation.resume(returning: ready) }
    }
  }
}

/// The way out of a way in that answers with one response: each frame into its
/// `CollectedAnswers`.
package struct CollectingOut: WayOut {
  package init() {}
  package func send(_ answer: SentAnswer, to reply: CollectedAnswers) { reply.add(answer) }
}

/// What a response says of a request's frames (`docs/devices/http.md`, `docs/devices/coap.md`):
/// its status (as an HTTP code; CoAP's are the same numbers as class and detail), its entity tag
/// (the frames' content checks), how long it may be kept, and when to ask again.
package struct FrameResponse: Equatable {
  package var code: Int
  /// The content checks of the frames, in slot order; empty for an answer without weather.
  package var checks: [UInt32]
  /// `next_update` of the answer (the smallest of its frames); 0: no hint.
  package var maxAge: Int
  /// For 429 and 503: seconds until asking again helps.
  package var retryAfter: Int?

  package init(_ frames: [CollectedAnswers.Frame]) {
    let weather = frames.contains { $0.status.hasWeather }
    let first = frames.first?.status ?? .internalError
    code = weather ? 200 : Self.code(of: first)
    maxAge = frames.map(\.nextUpdateSeconds).filter { $0 > 0 }.min() ?? 0
    retryAfter = code == 429 || code == 503 ? max(maxAge, 1) : nil
    checks = weather ? frames.map(Self.check(of:)) : []
  }

  /// HTTP's `ETag`: `"a1b2c3d4"` for one frame, the checks joined by `-` for several; nil for an
  /// answer without weather.
  package var etag: String? {
    checks.isEmpty ? nil : "\"" + checks.map(Self.hex).joined(separator: "-") + "\""
  }

  /// CoAP's ETag (at most 8 bytes): the check of one frame; for several, the CRC-32 of their
  /// checks; nil for an answer without weather.
  package var compactTag: UInt32? {
    guard let first = checks.first else { return nil }
    guard checks.count > 1 else { return first }
    var bytes: [UInt8] = []
    for check in checks { withUnsafeBytes(of: check.bigEndian) { bytes += $0 } }
    return CRC32.checksum(bytes)
  }

  /// The status code of an answer without weather.
  package static func code(of status: FrameStatus) -> Int {
    switch status {
    case .ok, .stale: 200
    case .notFound: 404
    case .badRequest, .tooManyLocations: 400
    case .rateLimited: 429
    case .upstreamUnavailable: 503
    default: 500
    }
  }

  /// The frame's content check (`frame-profiles.md` §5); for `unchanged` the check it repeats
  /// is not in it, so its bytes' CRC stands in.
  static func check(of frame: CollectedAnswers.Frame) -> UInt32 {
    frame.bytes.withUnsafeBytes { bytes in
      let kind = MessageKind.allCases.first { $0.size == bytes.count && $0 != .unchanged }
      guard let kind, !frame.unchanged else { return CRC32.checksum(bytes) }
      return ContentCheck.of(bytes, kind: kind)
    }
  }

  static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }

  /// Whether an `If-None-Match` header names this response's `ETag` (or is `*`).
  package func isMatched(by ifNoneMatch: String?, etag: String? = nil) -> Bool {
    guard let etag = etag ?? self.etag, let ifNoneMatch else { return false }
    for candidate in ifNoneMatch.split(separator: ",") {
      var tag = candidate.trimmingPrefix(while: \.isWhitespace)
      while tag.last?.isWhitespace == true { tag = tag.dropLast() }
      if tag == "*" { return true }
      if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
      if tag == etag { return true }
    }
    return false
  }

  /// The frames one after another, or as JSON: one object, or an array for several.
  package static func body(of frames: [CollectedAnswers.Frame], json: Bool) -> [UInt8] {
    guard json else { return frames.flatMap(\.bytes) }
    let documents = frames.map { frame in
      frame.bytes.withUnsafeBytes { (try? ProfileDocument.json(of: $0)) ?? Array("null".utf8) }
    }
    if documents.count == 1 { return documents[0] + Array("\n".utf8) }
    return Array("[".utf8) + Array(documents.joined(separator: Array(",".utf8)))
      + Array("]\n".utf8)
  }
}
