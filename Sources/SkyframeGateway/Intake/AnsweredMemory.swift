import Synchronization

/// The QoS 1 requests with an id taken lately, as 64-bit fingerprints of device, payload and
/// correlation data, so that one the broker delivers again after a restart (it replays what its
/// last saved database held, answered since) is not answered twice. A fixed table made once:
/// `capacity` slots, each entry in one of `probe` neighbouring slots, the oldest of them giving
/// way; nothing allocated per request, and nothing a device sends makes it grow.
final class AnsweredMemory: Sendable {
  private struct Entry {
    var fingerprint: UInt64 = 0
    /// Unix seconds when it was taken; 0 empty.
    var taken: Int64 = 0
  }

  private let slots: Mutex<[Entry]>
  private let mask: Int
  static let probe = 8

  /// Room for at least `capacity` entries (a power of two).
  init(capacity: Int) {
    var size = 64
    while size < capacity { size <<= 1 }
    mask = size - 1
    slots = Mutex([Entry](repeating: Entry(), count: size))
  }

  /// Whether `fingerprint` was taken at or after `since`; when not, it is noted as taken `now`.
  func seenElseNote(_ fingerprint: UInt64, since: Int64, now: Int64) -> Bool {
    let start = Int(truncatingIfNeeded: fingerprint) & mask
    let mask = mask
    return slots.withLock { slots -> Bool in
      var oldest = start
      for step in 0..<Self.probe {
        let index = (start &+ step) & mask
        if slots[index].fingerprint == fingerprint, slots[index].taken >= since,
          slots[index].taken > 0
        {
          return true
        }
        if slots[index].taken < slots[oldest].taken { oldest = index }
      }
      slots[oldest] = Entry(fingerprint: fingerprint, taken: max(now, 1))
      return false
    }
  }

  /// FNV-1a over the device id, the payload and the correlation data, each closed by a byte no
  /// UTF-8 text holds, then a 64-bit finalizer.
  static func fingerprint(
    device: String, payload: UnsafeRawBufferPointer, correlation: UnsafeRawBufferPointer?
  ) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    func mix(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    for byte in device.utf8 { mix(byte) }
    mix(0xFF)
    for byte in payload { mix(byte) }
    mix(0xFF)
    if let correlation { for byte in correlation { mix(byte) } }
    hash = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE4_E5B9
    hash = (hash ^ (hash >> 27)) &* 0x94D0_49BB_1331_11EB
    return hash ^ (hash >> 31)
  }
}
