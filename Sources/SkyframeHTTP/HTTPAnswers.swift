import SkyframeCodec
import SkyframeGateway
import SkyframeJSON
import Synchronization

/// The answers of one HTTP request, gathered as the intake hands them over (at once for a cache
/// hit, from a worker after an upstream call) until every slot is in, then read by the handler
/// that waits for them.
final class HTTPAnswers: Sendable {
  struct Frame: Sendable {
    var bytes: [UInt8]
    var status: FrameStatus
    var unchanged: Bool
    var nextUpdateSeconds: Int
  }

  private struct State {
    var frames: [Frame] = []
    var expected = Int.max
    var waiter: CheckedContinuation<[Frame], Never>?
  }

  private let state = Mutex(State())

  func add(_ answer: SentAnswer) {
    let frame = Frame(
      bytes: Array(answer.bytes), status: answer.status, unchanged: answer.unchanged,
      nextUpdateSeconds: answer.nextUpdateSeconds)
    let done = state.withLock { state -> (CheckedContinuation<[Frame], Never>, [Frame])? in
      state.frames.append(frame)
      state.expected = answer.count
      guard state.frames.count >= state.expected, let waiter = state.waiter else { return nil }
      state.waiter = nil
      return (waiter, state.frames)
    }
    if let (waiter, frames) = done { waiter.resume(returning: frames) }
  }

  /// Every slot's frame, in slot order, once all are in.
  func all() async -> [Frame] {
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

/// The way out of HTTP answers: each frame into the request's `HTTPAnswers`.
struct HTTPOut: WayOut {
  func send(_ answer: SentAnswer, to reply: HTTPAnswers) { reply.add(answer) }
}

/// What an HTTP response says of a request's frames (`docs/devices/http.md`): its status code,
/// its `ETag` (the frames' content checks), how long it may be kept, and when to ask again.
struct FrameResponse: Equatable {
  var code: Int
  /// `"a1b2c3d4"` for one frame, the checks joined by `-` for several; nil for an error.
  var etag: String?
  /// `next_update` of the answer (the smallest of its frames); 0: no hint.
  var maxAge: Int
  /// For 429 and 503: seconds until asking again helps.
  var retryAfter: Int?

  init(_ frames: [HTTPAnswers.Frame]) {
    let weather = frames.contains { $0.status.hasWeather }
    let first = frames.first?.status ?? .internalError
    code = weather ? 200 : Self.code(of: first)
    maxAge = frames.map(\.nextUpdateSeconds).filter { $0 > 0 }.min() ?? 0
    retryAfter = code == 429 || code == 503 ? max(maxAge, 1) : nil
    etag =
      weather
      ? "\"" + frames.map { Self.hex(Self.check(of: $0)) }.joined(separator: "-") + "\"" : nil
  }

  /// The status code of an answer without weather.
  static func code(of status: FrameStatus) -> Int {
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
  static func check(of frame: HTTPAnswers.Frame) -> UInt32 {
    frame.bytes.withUnsafeBytes { bytes in
      let kind = MessageKind.allCases.first { $0.size == bytes.count && $0 != .unchanged }
      guard let kind, !frame.unchanged else { return CRC32.update(0, with: bytes) }
      return ContentCheck.of(bytes, kind: kind)
    }
  }

  static func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }

  /// Whether an `If-None-Match` header names this response's `ETag` (or is `*`).
  func isMatched(by ifNoneMatch: String?) -> Bool {
    guard let etag, let ifNoneMatch else { return false }
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
  static func body(of frames: [HTTPAnswers.Frame], json: Bool) -> [UInt8] {
    guard json else { return frames.flatMap(\.bytes) }
    let documents = frames.map { frame in
      frame.bytes.withUnsafeBytes { (try? ProfileDocument.json(of: $0)) ?? Array("null".utf8) }
    }
    if documents.count == 1 { return documents[0] + Array("\n".utf8) }
    return Array("[".utf8) + Array(documents.joined(separator: Array(",".utf8)))
      + Array("]\n".utf8)
  }
}
