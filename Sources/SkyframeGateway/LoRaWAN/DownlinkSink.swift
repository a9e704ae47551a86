import SkyframeMQTT
import Synchronization

/// The `FrameSink` of the LoRaWAN answers: `RequestHandler.publish` writes the tiny, unchanged or
/// error message as for any device and hands it here under the reply topic the uplink was given,
/// a key of this table. The entry is taken on the first message, so an uplink is answered by at
/// most one downlink whatever happens after it; what the entry does with the message (size rule,
/// the server's JSON, the publish) belongs to the connection that made it.
final class DownlinkSink: FrameSink {
  typealias Send = @Sendable (UnsafeRawBufferPointer) -> Void

  private struct Table {
    var next: UInt64 = 0
    var pending: [String: Send] = [:]
  }

  /// Answers in flight at most (a bound on what a flood of uplinks can make it hold).
  static let capacity = 4_096
  private let table = Mutex(Table())

  /// A reply topic for one uplink's answer; nil when too many answers are in flight.
  func expect(_ send: @escaping Send) -> String? {
    table.withLock { table in
      guard table.pending.count < Self.capacity else { return nil }
      table.next += 1
      let key = "lorawan/\(table.next)"
      table.pending[key] = send
      return key
    }
  }

  var inFlight: Int { table.withLock { $0.pending.count } }

  func publish(
    _ topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool,
    correlationData: [UInt8]?
  ) throws(MQTTError) {
    // The debug JSON mirror (`{topic}/json`) and any second message find no entry.
    guard let send = table.withLock({ $0.pending.removeValue(forKey: topic) }) else { return }
    send(payload)
  }
}
