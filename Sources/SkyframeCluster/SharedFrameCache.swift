import COpenSSLCrypto
import Foundation
import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeMQTT
import SkyframeWeather

/// The cluster's cache through the broker: an instance that fetched a cell publishes the frame,
/// retained, under `{base}/v1/gateway/cache/{row}_{column}`, with an MQTT 5 message expiry at the
/// end of the stale window; every instance (and one that restarts, at once, from the retained
/// copies) takes it into its own cache. So the fleet makes one upstream call per cell per TTL.
///
/// An entry is 281 bytes, integers little-endian:
///
///     0   u8      version 2
///     1   i64     fetched_at, Unix seconds
///     9   i64     valid_until, Unix seconds (0: none)
///     17  i64     cell row          25  i64  cell column
///     33  i64     fetch began, under the models' runs (`CachedFrame.fetchBegan`; Int64.min: none)
///     41  i64     keep until        49  i64  expected until (under the run gate)
///     57  u8[192] the frame
///     249 u8[32]  HMAC-SHA256 over bytes 0..<249 with the cluster key
///
/// A frame composed from its call's data (under the models' runs) goes with that data, so that
/// every member composes it as the clock moves: version 3, 297 bytes and the data's,
///
///     0   u8      version 3
///     1   …       as version 2, to byte 56
///     57  i64     the newest run's start when the fetch began (`CachedFrame.runStartedAt`)
///     65  u8      the frame's service    66  u8  air quality scale (0xFF: none)
///     67  u16     air quality index
///     69  u8[192] the frame as composed at the call
///     261 u32     the data's length L (at most 65,536)
///     265 u8[L]   the data (`ForecastSeries.encoded()`)
///     265+L u8[32] HMAC-SHA256 over bytes 0..<265+L
///
/// A version 1 entry (257 bytes: no run gate, the frame at 33, the HMAC over 0..<225), from a
/// member not yet upgraded, is taken too, as a frame that follows the time-to-live; a member of
/// before version 3 refuses those and fetches such cells itself.
///
/// An entry whose HMAC, cell (against its topic), frame (length, magic, version, CRC) or age does
/// not check is ignored: a device that can publish there cannot poison the cache without the key.
final class SharedFrameCache: Sendable {
  static let size = 281
  static let version: UInt8 = 2
  static let composedVersion: UInt8 = 3
  static let maximumSeriesBytes = 65_536

  private let key: [UInt8]
  private let prefix: String
  private let staleSeconds: Int64

  init(key: [UInt8], topics: GatewayConfiguration.Topics, staleSeconds: Int) {
    self.key = key
    prefix = topics.cacheEntries
    self.staleSeconds = Int64(staleSeconds)
  }

  func topic(_ cell: WeatherDesk.Cell) -> String { prefix + cellText(cell) }

  /// `row_column`, the last level of a cell's topics.
  func cellText(_ cell: WeatherDesk.Cell) -> String { "\(cell.row)_\(cell.column)" }

  /// The cell a `row_column` text names.
  func cell(from text: some Collection<UInt8>) -> WeatherDesk.Cell? {
    guard text.count <= 41 else { return nil }
    let parts = String(decoding: text, as: UTF8.self).split(
      separator: "_", omittingEmptySubsequences: false)
    guard parts.count == 2, let row = Int64(parts[0]), let column = Int64(parts[1]) else {
      return nil
    }
    return WeatherDesk.Cell(row: row, column: column)
  }

  /// Publishes `frame` as the signed, retained entry of `cell`; false when it could not.
  @discardableResult
  func share(
    _ frame: WeatherDesk.CachedFrame, for cell: WeatherDesk.Cell, series: FrameSeries? = nil,
    with client: MQTTClient, now: Int64
  ) -> Bool {
    Self.publishEntry(
      entry(frame, for: cell, series: series), on: topic(cell), expiring: expiry(frame, now: now),
      with: client)
  }

  /// Publishes a signed entry of the fleet's shared state, retained at QoS 1 with an MQTT 5
  /// message expiry; false when it could not.
  static func publishEntry(
    _ payload: [UInt8], on topic: String, expiring seconds: UInt32, with client: MQTTClient
  ) -> Bool {
    do {
      try client.publish(topic, payload: payload, qos: 1, retain: true, expirySeconds: seconds)
      return true
    } catch {
      return false
    }
  }

  /// The signed entry for `cell`: version 3 with the data the frame is composed from, else 2.
  func entry(
    _ frame: WeatherDesk.CachedFrame, for cell: WeatherDesk.Cell, series: FrameSeries? = nil
  ) -> [UInt8] {
    let data = series?.series.encoded() ?? []
    // Only the entry's own data (a composed copy of the frame keeps the call's fetch time).
    let composed =
      series.map { $0.fetchedAt == frame.fetchedAt } == true
      && data.count <= Self.maximumSeriesBytes
    var bytes = [UInt8]()
    bytes.reserveCapacity(Self.size + (composed ? 16 + data.count : 0))
    bytes.append(composed ? Self.composedVersion : Self.version)
    var fields = [
      frame.fetchedAt, frame.validUntil ?? 0, cell.row, cell.column, frame.fetchBegan ?? .min,
      frame.keepUntil, frame.expectedUntil,
    ]
    if composed { fields.append(frame.runStartedAt) }
    for value in fields {
      withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    if let series, composed {
      bytes.append(series.service.rawValue)
      bytes.append(series.airQuality?.scale.rawValue ?? 0xFF)
      withUnsafeBytes(of: (series.airQuality?.index ?? 0).littleEndian) {
        bytes.append(contentsOf: $0)
      }
    }
    bytes.append(contentsOf: frame.bytes.prefix(WeatherFrame.size))
    if composed {
      withUnsafeBytes(of: UInt32(data.count).littleEndian) { bytes.append(contentsOf: $0) }
      bytes.append(contentsOf: data)
    }
    bytes.append(contentsOf: Self.hmacSHA256(bytes[...], key: key))
    return bytes
  }

  /// A checked entry: its cell, its frame, and the data the frame is composed from (version 3).
  struct Shared {
    var cell: WeatherDesk.Cell
    var frame: WeatherDesk.CachedFrame
    var series: FrameSeries?
  }

  /// Seconds until the entry leaves the stale window (at least 1).
  func expiry(_ frame: WeatherDesk.CachedFrame, now: Int64) -> UInt32 {
    UInt32(clamping: max(frame.fetchedAt + staleSeconds - now, 1))
  }

  /// The cell and frame of a checked entry published under `cellText` (the topic's last level),
  /// or why it is refused.
  func verify(_ payload: some Collection<UInt8>, cellText: Substring) -> Result<
    Shared, RefusedEntry
  > {
    let bytes = Array(payload)
    // Version 3 or 2, or 1 from a member not yet upgraded: where the frame and the HMAC are.
    let frameAt: Int
    switch (bytes.first, bytes.count) {
    case (Self.version, Self.size): frameAt = 57
    case (1, 257): frameAt = 33
    case (Self.composedVersion, 297...(297 + Self.maximumSeriesBytes)):
      frameAt = 69
      let length = bytes.withUnsafeBytes {
        Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 261, as: UInt32.self)))
      }
      guard length <= Self.maximumSeriesBytes, bytes.count == 297 + length else {
        return .failure(.shape)
      }
    default: return .failure(.shape)
    }
    let signedEnd = bytes.count - 32
    guard
      Self.constantTimeEqual(Self.hmacSHA256(bytes[0..<signedEnd], key: key), bytes[signedEnd...])
    else { return .failure(.signature) }
    func integer(_ offset: Int) -> Int64 {
      bytes.withUnsafeBytes {
        Int64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: Int64.self))
      }
    }
    let cell = WeatherDesk.Cell(row: integer(17), column: integer(25))
    guard cellText == self.cellText(cell) else { return .failure(.cell) }
    let frame = Array(bytes[frameAt..<(frameAt + WeatherFrame.size)])
    let checked = frame.withUnsafeBytes { buffer -> Bool in
      (try? ProfileView(checking: buffer, as: .standard)) != nil
    }
    guard checked else { return .failure(.frame) }
    let validUntil = integer(9)
    var entry = WeatherDesk.CachedFrame(
      bytes: frame, fetchedAt: integer(1), validUntil: validUntil == 0 ? nil : validUntil)
    if frameAt >= 57, integer(33) != .min {
      entry.fetchBegan = integer(33)
      entry.keepUntil = integer(41)
      entry.expectedUntil = integer(49)
    }
    var series: FrameSeries?
    if frameAt == 69 {
      entry.runStartedAt = integer(57)
      let scale = AirQuality.Scale(rawValue: bytes[66])
      let index = UInt16(bytes[67]) | UInt16(bytes[68]) << 8
      guard
        let data = ForecastSeries(decoding: bytes[(frameAt + WeatherFrame.size + 4)..<signedEnd])
      else { return .failure(.frame) }
      series = FrameSeries(
        data, service: WeatherService(rawValue: bytes[65]),
        airQuality: scale.map { AirQuality(index: index, scale: $0) }, fetchedAt: entry.fetchedAt)
    }
    return .success(Shared(cell: cell, frame: entry, series: series))
  }

  /// The owner's word that it could not fetch `cell` (`{base}/v1/gateway/unavailable/{cell}`):
  /// the Unix time, 8 bytes little-endian, and an HMAC-SHA256 with the cluster key over
  /// `unavailable/{cell}` and that time.
  func unavailableNotice(for cell: WeatherDesk.Cell, now: Int64) -> [UInt8] {
    var time: [UInt8] = []
    withUnsafeBytes(of: now.littleEndian) { time.append(contentsOf: $0) }
    return time
      + Self.hmacSHA256((Array("unavailable/\(cellText(cell))".utf8) + time)[...], key: key)
  }

  /// The cell of a notice published under `cellText` that is signed and at most a minute off
  /// `now`; nil for any other.
  func verifyUnavailable(_ payload: some Collection<UInt8>, cellText: Substring, now: Int64)
    -> WeatherDesk.Cell?
  {
    let bytes = Array(payload)
    guard bytes.count == 40, let cell = cell(from: cellText.utf8) else { return nil }
    let time = bytes.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) }
    guard time >= now &- 60, time <= now &+ 60 else { return nil }
    let signed = Array("unavailable/\(cellText)".utf8) + bytes[0..<8]
    guard Self.constantTimeEqual(Self.hmacSHA256(signed[...], key: key), bytes[8...]) else {
      return nil
    }
    return cell
  }

  enum RefusedEntry: Error, CustomStringConvertible {
    case shape, signature, cell, frame

    var description: String {
      switch self {
      case .shape: "not a 281-byte version 2 (or 257-byte version 1) entry"
      case .signature: "the HMAC does not match the cluster key"
      case .cell: "the cell in the entry is not the one in its topic"
      case .frame: "the frame in the entry does not check"
      }
    }
  }
}

extension SharedFrameCache {
  /// HMAC-SHA256 of `message` with `key` (RFC 2104), from OpenSSL's libcrypto.
  static func hmacSHA256(_ message: ArraySlice<UInt8>, key: [UInt8]) -> [UInt8] {
    var code = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    key.withUnsafeBytes { key in
      message.withUnsafeBytes { message in
        code.withUnsafeMutableBufferPointer { code in
          _ = HMAC(
            EVP_sha256(), key.baseAddress, Int32(key.count),
            message.baseAddress?.assumingMemoryBound(to: UInt8.self), message.count,
            code.baseAddress, &length)
        }
      }
    }
    precondition(length == 32, "HMAC-SHA256 gives 32 bytes")
    return code
  }

  /// Whether `a` and `b` hold the same bytes, in a time that does not depend on where they
  /// differ (OpenSSL's CRYPTO_memcmp).
  static func constantTimeEqual(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { a in
      b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
    }
  }
}
