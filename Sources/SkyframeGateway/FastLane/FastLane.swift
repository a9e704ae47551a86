import SkyframeMQTT
import Synchronization

/// A second way in for the devices that behave, opened while the gateway is flooded.
///
/// The broker hands the gateway every request in one ordered stream, so during a flood a
/// well-behaved device's request waits behind everything the flood put in front of it. While
/// requests are being refused at a flood's rate (`floodRefusals` in one second), the gateway
/// subscribes its fast-lane connection to the request topics of up to `capacity` devices that
/// behave (`DeviceTable.wellBehaved`): the broker then delivers each of their requests twice,
/// once in the flooded stream and once on the empty fast lane. The first copy to arrive is
/// answered; its twin is dropped unanswered (`isSecondCopy`). The subscriptions go when no second
/// of `calmSeconds` has seen a flood's refusals, and a device that goes over its requests a
/// minute loses its own at once.
///
/// The twins are told apart by a hash of payload and correlation data: a copy on the fast lane
/// waits up to `twinSeconds` for its twin in the flooded stream; a copy that came first in the
/// stream waits `mainFirstNanoseconds` for its twin on the fast lane. A stream that is busy can
/// still be ahead of the lane (the flood's requests are refused quickly), so a stream copy is
/// always kept for its twin: one sent before the device was on the lane has none, and the only
/// cost of keeping it is that the device's next request, the same text on the lane within
/// `mainFirstNanoseconds`, is answered from the stream instead — late, never twice, never lost.
final class FastLane: Sendable {
  /// Refusals in one second (`rate_limited` for a device over its limit or for a new cell, or a
  /// full queue) that mean a flood.
  static let floodRefusals = 200
  /// Seconds without a flood's refusals before the subscriptions go.
  static let calmSeconds: Int64 = 10
  /// How long a fast-lane copy waits for its twin in the flooded stream.
  static let twinSeconds: Int64 = 60
  /// How long a copy that came first in the stream waits for its twin on the fast lane.
  static let mainFirstNanoseconds: Int64 = 100_000_000
  /// How long before a flood a device must have been first seen to be taken on the lane (more
  /// than this, counted in whole seconds): those that came with the flood may be part of it.
  static let knownSeconds: Int64 = 1
  /// Copies kept per device and lane.
  static let copiesKept = 8

  /// What the fast lane asks of its connection, and of the device table.
  struct Connection: Sendable {
    var subscribe: @Sendable (_ device: String) -> Void
    var unsubscribe: @Sendable (_ device: String) -> Void
    /// Up to `limit` devices that behave and were first seen more than `knownSeconds` before
    /// the flood began (monotonic nanoseconds), most recently seen first.
    var wellBehaved: @Sendable (_ limit: Int, _ floodBegan: Int64) -> [String]
    /// A line for the operator when the lane opens and when it closes.
    var log: @Sendable (_ line: String) -> Void = { _ in }
  }

  /// Copies seen lately of one device's requests.
  struct Copies {
    var subscribed: Bool
    /// When it left the lane (monotonic nanoseconds); its copies are kept `twinSeconds` more.
    var leftAt: Int64 = 0
    var fast: [(hash: UInt64, at: Int64)] = []
    var main: [(hash: UInt64, at: Int64)] = []
  }

  struct State {
    var flooded = false
    /// The last second that saw a flood's refusals.
    var lastFloodSecond: Int64 = 0
    var lastScanSecond: Int64 = 0
    /// When the flood was seen to begin (monotonic nanoseconds).
    var floodBegan: Int64 = 0
    /// The copies of every device on the lane, and of those that left it in the last
    /// `twinSeconds` (whose twins may still come): at most twice `capacity`, however many come
    /// and go during a long flood.
    var devices: [String: Copies] = [:]
    var subscribed = 0
    /// Subscriptions and unsubscriptions decided under the lock, made after it in the order
    /// decided (`sendPending`): no libmosquitto call is made while the lock is held.
    var pending: [Change] = []
    var sending = false
  }

  enum Change {
    case subscribe(String)
    case unsubscribe(String)
  }

  let capacity: Int
  /// The fast lane's index among the request connections (its answers go out on it).
  let lane: Int
  private let connection: Connection
  private let gauge: (@Sendable (Int) -> Void)?
  /// Runs the opening at once on the thread that saw the flood (in tests); nil: the opening is
  /// handed to `openings`, which the fast lane's Service drains.
  private let run: (@Sendable (@escaping @Sendable () -> Void) -> Void)?
  /// The seconds in which the lane opened, for the Service to open it in (the newest only: one
  /// opening covers any before it).
  let openings: AsyncStream<Int64>
  private let opening: AsyncStream<Int64>.Continuation
  /// Copies are compared while this is set: while any device is on the lane or left it lately.
  private let active = Atomic<Bool>(false)
  /// Refusals in `refusalSecond`, counted without a lock.
  private let refusals = Atomic<Int>(0)
  private let refusalSecond = Atomic<Int64>(-1)
  private let state = Mutex(State())

  init(
    capacity: Int, lane: Int, connection: Connection, gauge: (@Sendable (Int) -> Void)? = nil,
    run: (@Sendable (@escaping @Sendable () -> Void) -> Void)? = nil
  ) {
    self.capacity = capacity
    self.lane = lane
    self.connection = connection
    self.gauge = gauge
    self.run = run
    (openings, opening) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
  }

  var isActive: Bool { active.load(ordering: .relaxed) }
  var isFlooded: Bool { state.withLock { $0.flooded } }
  var subscribedDevices: Int { state.withLock { $0.subscribed } }
  /// Devices whose copies are kept: on the lane, or left it lately.
  var knownDevices: Int { state.withLock { $0.devices.count } }

  /// Counts one refusal at monotonic time `now` (nanoseconds); the one that reaches
  /// `floodRefusals` in its second opens the lane, at once, on the calling thread.
  func noteRefusal(now: Int64) {
    let second = now / 1_000_000_000
    let current = refusalSecond.load(ordering: .relaxed)
    if current != second {
      if refusalSecond.compareExchange(
        expected: current, desired: second, ordering: .relaxed
      ).exchanged {
        refusals.store(0, ordering: .relaxed)
      }
    }
    guard refusals.wrappingAdd(1, ordering: .relaxed).newValue == Self.floodRefusals else {
      return
    }
    let opening = state.withLock { state in
      state.lastFloodSecond = second
      defer { state.flooded = true }
      if !state.flooded {
        state.floodBegan = now
      }
      return !state.flooded
    }
    guard opening else { return }
    // Off the network thread: the look through the device table and the SUBSCRIBEs take a while.
    if let run {
      run { self.open(second: second) }
    } else {
      self.opening.yield(second)
    }
  }

  /// Takes the devices that behave onto the lane: in the fast lane's Service, after a flood's
  /// refusals opened it.
  func open(second: Int64) {
    scan(second: second)
    connection.log(
      "flooded: \(Self.floodRefusals) requests refused within a second; fast lane open for \(subscribedDevices) devices that behave"
    )
  }

  /// Makes the subscriptions and unsubscriptions decided under the lock, in order, outside it.
  /// One caller sends at a time; one that finds another sending leaves its changes to it.
  private func sendPending() {
    let first = state.withLock { state -> Bool in
      guard !state.sending, !state.pending.isEmpty else { return false }
      state.sending = true
      return true
    }
    guard first else { return }
    while let change = state.withLock({ state -> Change? in
      guard !state.pending.isEmpty else {
        state.sending = false
        return nil
      }
      return state.pending.removeFirst()
    }) {
      switch change {
      case .subscribe(let device): connection.subscribe(device)
      case .unsubscribe(let device): connection.unsubscribe(device)
      }
    }
  }

  /// Whether `message` from `device`, come in on request connection `lane`, is the second copy
  /// of a request whose first was answered: then it is dropped. `now` is monotonic nanoseconds.
  func isSecondCopy(of message: MQTTIncoming, from device: String, lane: Int, now: Int64) -> Bool {
    state.withLock { state -> Bool in
      guard var copies = state.devices[device] else { return false }
      defer { state.devices[device] = copies }
      let hash = Self.hash(message)
      // A copy on the lane looks for its twin among the stream's, and the other way round; one
      // that finds none waits for its own.
      if lane == self.lane {
        return Self.take(hash, from: &copies.main, within: Self.mainFirstNanoseconds, now: now)
          != nil || Self.keep((hash, now), in: &copies.fast)
      }
      return Self.take(
        hash, from: &copies.fast, within: Self.twinSeconds * 1_000_000_000, now: now) != nil
        || Self.keep((hash, now), in: &copies.main)
    }
  }

  /// Takes a copy with `hash` seen in the last `nanoseconds` out of `copies`: when it came, or
  /// nil if none.
  private static func take(
    _ hash: UInt64, from copies: inout [(hash: UInt64, at: Int64)], within nanoseconds: Int64,
    now: Int64
  ) -> Int64? {
    guard
      let index = copies.firstIndex(where: { $0.hash == hash && now - $0.at <= nanoseconds })
    else { return nil }
    return copies.remove(at: index).at
  }

  /// A device told it went over its requests a minute: a refusal, and it leaves the lane.
  func refusedOverLimit(_ device: String, now: Int64) {
    noteRefusal(now: now)
    demote(device, now: now)
  }

  /// A device that went over its requests a minute leaves the fast lane (its copies stay, for
  /// the twins still to come).
  func demote(_ device: String, now: Int64) {
    // Decided under the lock, in order with a scan's subscriptions; sent after it.
    let left = state.withLock { state -> Bool in
      guard state.devices[device]?.subscribed == true else { return false }
      state.devices[device]?.subscribed = false
      state.devices[device]?.leftAt = now
      state.subscribed -= 1
      state.pending.append(.unsubscribe(device))
      return true
    }
    sendPending()
    if left { gauge?(subscribedDevices) }
  }

  /// Every half second or so: during a flood, subscribes devices that are back within their
  /// limits (once a second); `calmSeconds` after the last flood second, unsubscribes them all;
  /// forgets the copies of devices off the lane once their twins have had their time.
  func tick(now: Int64) {
    let second = now / 1_000_000_000
    enum Step {
      case none, scan
      case closed(Int)
    }
    let step = state.withLock { state -> Step in
      Self.forgetSettled(&state, now: now)
      if state.flooded {
        if second - state.lastFloodSecond > Self.calmSeconds {
          state.flooded = false
          let devices = state.devices.filter(\.value.subscribed).map(\.key)
          for device in devices {
            state.devices[device]?.subscribed = false
            state.devices[device]?.leftAt = now
            state.pending.append(.unsubscribe(device))
          }
          state.subscribed = 0
          return .closed(devices.count)
        }
        return second > state.lastScanSecond ? .scan : .none
      }
      if state.devices.isEmpty { active.store(false, ordering: .relaxed) }
      return .none
    }
    sendPending()
    switch step {
    case .none: break
    case .scan: scan(second: second)
    case .closed(let count):
      gauge?(0)
      connection.log(
        "no flood for \(Self.calmSeconds) s: fast lane closed for its \(count) devices")
    }
  }

  /// Forgets the devices that left the lane more than `twinSeconds` ago: what is kept is
  /// bounded by the devices on the lane and those that left it in the last minute.
  private static func forgetSettled(_ state: inout State, now: Int64) {
    for (device, copies) in state.devices
    where !copies.subscribed && now - copies.leftAt > twinSeconds * 1_000_000_000 {
      state.devices[device] = nil
    }
  }

  /// Subscribes the devices that behave and are not on the lane yet, up to `capacity` in all.
  private func scan(second: Int64) {
    let (room, floodBegan) = state.withLock { state in
      state.lastScanSecond = second
      return (capacity - state.subscribed, state.floodBegan)
    }
    guard room > 0 else { return }
    let candidates = connection.wellBehaved(capacity, floodBegan)
    let joined = state.withLock { state -> Int in
      // Only while flooded: the lane may have closed during the look.
      guard state.flooded else { return 0 }
      var joined = 0
      for device in candidates where state.subscribed < capacity {
        guard state.devices[device] != nil || state.devices.count < 2 * capacity else { break }
        if state.devices[device]?.subscribed == true { continue }
        state.devices[device, default: Copies(subscribed: false)].subscribed = true
        state.subscribed += 1
        joined += 1
        state.pending.append(.subscribe(device))
      }
      if joined > 0 { active.store(true, ordering: .relaxed) }
      return joined
    }
    sendPending()
    if joined > 0 { gauge?(subscribedDevices) }
  }

  /// Keeps `copy` to wait for its twin (the oldest goes past `copiesKept`); always false: this
  /// copy is the first, and answered.
  private static func keep(
    _ copy: (hash: UInt64, at: Int64), in copies: inout [(hash: UInt64, at: Int64)]
  ) -> Bool {
    if copies.count >= copiesKept { copies.removeFirst() }
    copies.append(copy)
    return false
  }

  /// FNV-1a over the payload and the correlation data: both copies of a message carry the same.
  static func hash(_ message: MQTTIncoming) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ byte: UInt8) {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    for byte in message.payload { mix(byte) }
    mix(0xff)
    if let correlation = message.correlationData() {
      for byte in correlation { mix(byte) }
    }
    return hash
  }
}

/// The fast lane's MQTT connection, as the request handler is given it: where its answers go,
/// how it subscribes and unsubscribes a request topic, and how many devices it may take.
struct FastLaneLink: Sendable {
  var sink: any FrameSink
  var subscribe: @Sendable (_ filter: String) -> Void
  var unsubscribe: @Sendable (_ filter: String) -> Void
  var capacity: Int
}
