import SkyframeCodec
import SkyframeGateway
import SkyframeProviders
import Synchronization

/// The uplinks each LoRaWAN device sent lately, so that one uplink gets one downlink however
/// often it arrives: a broker redelivering a QoS 1 message, a network server publishing the same
/// event again, the same frame heard through two gateways. An uplink is the same when its DevEUI,
/// frame counter (fCnt) and payload are, within `window` seconds; a device that rejoins and
/// counts from 0 again asks anew as soon as its payload differs or the window has passed.
/// Bounded: one entry per device (the last `perDevice` uplinks) in an LRU table of
/// `requests.max-devices` entries.
final class UplinkMemory: Sendable {
  /// Longer than any redelivery seen (a broker replaying after a restart, a server's retry a few
  /// seconds on), shorter than a device's uplink interval under any band's duty cycle.
  static let window: Int64 = 60
  static let perDevice = 4

  private struct Heard: Sendable {
    var frameCount: UInt32
    var payloadCheck: UInt32
    var second: Int64
  }

  private let table: Mutex<LRUTable<String, [Heard]>>

  init(capacity: Int) {
    table = Mutex(LRUTable(capacity: max(capacity, 1)))
  }

  func resize(to capacity: Int) {
    table.withLock { $0.resize(to: max(capacity, 1)) }
  }

  /// Whether this is the first time the uplink arrives within the window; records it if so.
  func isFirst(device: String, frameCount: UInt32, payload: [UInt8], second: Int64) -> Bool {
    let check = payload.withUnsafeBytes { CRC32.checksum($0) }
    return table.withLock { table in
      table.modify(device, orInsert: { [] }) { heard in
        if heard.contains(where: {
          $0.frameCount == frameCount && $0.payloadCheck == check
            && second - $0.second < Self.window
        }) {
          return false
        }
        if heard.count >= Self.perDevice { heard.removeFirst() }
        heard.append(Heard(frameCount: frameCount, payloadCheck: check, second: second))
        return true
      }
    }
  }
}
