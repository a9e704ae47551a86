import SkyframeCodec
import SkyframeMQTT
import SkyframeWeather
import Synchronization
import Testing

@testable import SkyframeGateway

/// The fast lane's rules, without a broker: when it opens and closes, whom it takes, and which
/// copy of a request is answered.
@Suite struct FastLaneTests {
  /// What the lane asked of its connection, in order.
  final class Calls: Sendable {
    let log = Mutex<[String]>([])
    let candidates = Mutex<[String]>([])
    func connection() -> FastLane.Connection {
      FastLane.Connection(
        subscribe: { device in self.log.withLock { $0.append("+\(device)") } },
        unsubscribe: { device in self.log.withLock { $0.append("-\(device)") } },
        wellBehaved: { limit, _ in Array(self.candidates.withLock { $0 }.prefix(limit)) })
    }
    var taken: [String] { log.withLock { $0 } }
  }

  static let second: Int64 = 1_000_000_000
  static let fast = 3
  static let start = 100 * second

  /// A lane on request connection `fast` whose device table offers `candidates`; it opens at
  /// once on the thread that saw the flood.
  static func lane(offering candidates: [String], capacity: Int = 10) -> (FastLane, Calls) {
    let calls = Calls()
    calls.candidates.withLock { $0 = candidates }
    let lane = FastLane(
      capacity: capacity, lane: fast, connection: calls.connection(), run: { $0() })
    return (lane, calls)
  }

  static func flood(_ lane: FastLane, at now: Int64, refusals: Int = FastLane.floodRefusals) {
    for _ in 0..<refusals { lane.noteRefusal(now: now) }
  }

  static func copy(
    _ lane: FastLane, _ payload: String, from device: String = "well-1", on index: Int,
    at now: Int64, correlation: [UInt8]? = nil
  ) -> Bool {
    let message = MQTTMessage(
      topic: "skyframe/v1/req/\(device)", payload: Array(payload.utf8), qos: 1,
      correlationData: correlation)
    return MQTTIncoming.with(message) {
      lane.isSecondCopy(of: $0, from: device, lane: index, now: now)
    }
  }

  @Test func aFloodsRefusalsOpenTheLaneForDevicesThatBehaveAndCalmClosesIt() {
    let (lane, calls) = Self.lane(offering: ["well-1", "well-2", "well-3"], capacity: 2)
    // One short of a flood in one second, and the rest in the next: no flood.
    Self.flood(lane, at: Self.start, refusals: FastLane.floodRefusals - 1)
    Self.flood(lane, at: Self.start + Self.second, refusals: FastLane.floodRefusals - 1)
    #expect(!lane.isFlooded && !lane.isActive && calls.taken.isEmpty)
    // The refusal that makes a flood opens the lane at once, for at most `capacity` devices.
    lane.noteRefusal(now: Self.start + Self.second + 1)
    #expect(lane.isFlooded && lane.isActive)
    #expect(calls.taken == ["+well-1", "+well-2"])
    // Still flooded `calmSeconds` after the last flood second; closed the second after.
    lane.tick(now: Self.start + (1 + FastLane.calmSeconds) * Self.second)
    #expect(lane.isFlooded)
    lane.tick(now: Self.start + (2 + FastLane.calmSeconds) * Self.second)
    #expect(!lane.isFlooded && lane.subscribedDevices == 0)
    #expect(
      calls.taken == ["+well-1", "+well-2", "-well-1", "-well-2"]
        || calls.taken == ["+well-1", "+well-2", "-well-2", "-well-1"])
    // Copies are still compared until the twins have had their time, then forgotten.
    #expect(lane.isActive)
    lane.tick(now: Self.start + (3 + FastLane.calmSeconds + FastLane.twinSeconds) * Self.second)
    #expect(!lane.isActive)
  }

  @Test func duringAFloodDevicesThatCameToBehaveJoinAndOneOverItsLimitLeaves() {
    let (lane, calls) = Self.lane(offering: ["well-1"])
    Self.flood(lane, at: Self.start)
    calls.candidates.withLock { $0 = ["well-2", "well-1"] }
    lane.tick(now: Self.start + Self.second)
    #expect(calls.taken == ["+well-1", "+well-2"])
    lane.demote("well-1", now: 0)
    lane.demote("well-1", now: 0)
    lane.demote("never-on-it", now: 0)
    #expect(calls.taken == ["+well-1", "+well-2", "-well-1"])
    #expect(lane.subscribedDevices == 1)
  }

  /// Devices that keep joining and going over their limit during a long flood: what the lane
  /// keeps stays within twice its capacity, and none join past that until the old ones go.
  @Test func whatTheLaneKeepsIsBoundedByTwiceItsCapacity() {
    let (lane, calls) = Self.lane(offering: ["d-0", "d-1"], capacity: 2)
    Self.flood(lane, at: Self.start)
    for round in 1...5 {
      let now = Self.start + Int64(round) * Self.second
      lane.demote("d-\(2 * round - 2)", now: now)
      lane.demote("d-\(2 * round - 1)", now: now)
      calls.candidates.withLock { $0 = ["d-\(2 * round)", "d-\(2 * round + 1)"] }
      Self.flood(lane, at: now)
      lane.tick(now: now)
      #expect(lane.knownDevices <= 4)
    }
    #expect(lane.subscribedDevices == 0)
    #expect(calls.taken.filter { $0.hasPrefix("+") } == ["+d-0", "+d-1", "+d-2", "+d-3"])
    // A minute after they left, they are forgotten and others may join.
    lane.tick(now: Self.start + (7 + FastLane.twinSeconds) * Self.second)
    Self.flood(lane, at: Self.start + (8 + FastLane.twinSeconds) * Self.second)
    lane.tick(now: Self.start + (8 + FastLane.twinSeconds) * Self.second)
    #expect(lane.subscribedDevices == 2)
  }

  @Test func eachRequestIsAnsweredOnceWhicheverCopyComesFirst() {
    let (lane, _) = Self.lane(offering: ["well-1"])
    Self.flood(lane, at: Self.start)
    var now = Self.start + 1_000
    // The stream busy with the flood's requests (refused quickly) can still be ahead: its copy
    // first is answered and kept, and the lane's twin a moment later is dropped. (Seen in a
    // running gateway: both copies were answered while the stream was busy.)
    for index in 0..<100 {
      _ = Self.copy(lane, "1,1", from: "flood-\(index)", on: 0, at: now)
    }
    #expect(!Self.copy(lane, "52.52,13.41", on: 0, at: now))
    #expect(Self.copy(lane, "52.52,13.41", on: Self.fast, at: now + 300_000))
    now += 2 * Self.second
    // Flooded stream: the fast-lane copy first, its twin up to a minute later.
    #expect(!Self.copy(lane, "52.52,13.41", on: Self.fast, at: now))
    #expect(!Self.copy(lane, "52.52,13.41", on: Self.fast, at: now + 2 * Self.second))
    now += 30 * Self.second
    #expect(Self.copy(lane, "52.52,13.41", on: 0, at: now))
    #expect(Self.copy(lane, "52.52,13.41", on: 0, at: now))
    #expect(!Self.copy(lane, "52.52,13.41", on: 0, at: now), "a third copy is a new request")
    // The stream's copy may come first, and the fast lane's twin a moment later.
    now += Self.second
    #expect(!Self.copy(lane, "refresh", on: 0, at: now))
    #expect(Self.copy(lane, "refresh", on: Self.fast, at: now + 1_000_000))
    // ...but not after `mainFirstNanoseconds`: then it is a request of its own.
    now += 10 * Self.second
    #expect(!Self.copy(lane, "refresh", on: 0, at: now))
    #expect(
      !Self.copy(lane, "refresh", on: Self.fast, at: now + FastLane.mainFirstNanoseconds + 1))
    // Another device's copies, or the same payload with other correlation data, are not twins.
    #expect(!Self.copy(lane, "x", on: Self.fast, at: now, correlation: [1]))
    #expect(!Self.copy(lane, "x", on: 0, at: now, correlation: [2]))
    #expect(!Self.copy(lane, "x", from: "other", on: 0, at: now, correlation: [1]))
    #expect(Self.copy(lane, "x", on: 0, at: now, correlation: [1]))
  }

  @Test func aDeviceThatLeftTheLaneKeepsItsCopiesForTheTwinsStillToCome() {
    let (lane, _) = Self.lane(offering: ["well-1"])
    Self.flood(lane, at: Self.start)
    #expect(!Self.copy(lane, "a", on: Self.fast, at: Self.start))
    lane.demote("well-1", now: Self.start + Self.second)
    // A copy already on its way on the lane, and the twins in the flooded stream.
    #expect(!Self.copy(lane, "b", on: Self.fast, at: Self.start + 2 * Self.second))
    #expect(Self.copy(lane, "a", on: 0, at: Self.start + 3 * Self.second))
    #expect(Self.copy(lane, "b", on: 0, at: Self.start + 3 * Self.second))
    // A request that only comes in the stream (off the lane) is answered.
    #expect(!Self.copy(lane, "c", on: 0, at: Self.start + 4 * Self.second))
    // Two more on their way on the lane: one twin comes, the other is lost.
    #expect(!Self.copy(lane, "e", on: Self.fast, at: Self.start + 2 * Self.second))
    #expect(!Self.copy(lane, "e", on: Self.fast, at: Self.start + 2 * Self.second))
    #expect(Self.copy(lane, "e", on: 0, at: Self.start + 30 * Self.second))
    // `twinSeconds` after it left the device is forgotten, and with it the lost twin's copy:
    // a later request with the same payload is answered.
    let later = Self.start + (2 + FastLane.twinSeconds) * Self.second
    lane.tick(now: later)
    lane.tick(now: later + Self.second)
    #expect(!lane.isActive)
    #expect(!Self.copy(lane, "e", on: 0, at: later + Self.second))
  }

  @Test func aFastLaneCopyWaitsForItsTwinNoLongerThanTwinSeconds() {
    let (lane, _) = Self.lane(offering: ["well-1"])
    Self.flood(lane, at: Self.start)
    #expect(!Self.copy(lane, "a", on: Self.fast, at: Self.start))
    #expect(!Self.copy(lane, "a", on: 0, at: Self.start + (FastLane.twinSeconds + 1) * Self.second))
  }

  @Test func theDeviceTableOffersDevicesThatBehaveNewestFirst() {
    let devices = DeviceTable(capacity: 100)
    let berlin = LocationList([.coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000))]
    )
    let topic: @Sendable (String) -> String = { "frames/\($0)" }
    for device in ["old", "refused", "never-parsed", "greedy", "new"] {
      _ = devices.admit(device, minute: 1, perMinute: 2, frameTopic: topic)
      if device != "never-parsed" { devices.remember(berlin, for: device) }
    }
    devices.markRefused("refused")
    for _ in 0..<2 { _ = devices.admit("greedy", minute: 1, perMinute: 2, frameTopic: topic) }
    #expect(devices.wellBehaved(limit: 10, minute: 1, walking: 100) == ["new", "old"])
    #expect(devices.wellBehaved(limit: 1, minute: 1, walking: 100) == ["new"])
    #expect(devices.wellBehaved(limit: 10, minute: 1, walking: 1) == [])
    #expect(devices.wellBehaved(limit: 10, minute: 1, walking: 2) == ["new"])
    // A new minute: the greedy device is within its limit again; a refused one asks again.
    #expect(devices.wellBehaved(limit: 10, minute: 2, walking: 100) == ["greedy", "new", "old"])
    _ = devices.admit("refused", minute: 2, perMinute: 2, frameTopic: topic)
    #expect(
      devices.wellBehaved(limit: 10, minute: 2, walking: 100) == [
        "refused", "greedy", "new", "old",
      ])
    // Only those first seen by a second: a device that came with a flood is not taken.
    _ = devices.admit("flood-1", minute: 2, perMinute: 2, frameTopic: topic, second: 150)
    devices.remember(berlin, for: "flood-1")
    _ = devices.admit("old", minute: 2, perMinute: 2, frameTopic: topic, second: 151)
    #expect(
      devices.wellBehaved(limit: 10, minute: 2, knownBy: 149, walking: 100) == [
        "old", "refused", "greedy", "new",
      ])
    #expect(
      devices.wellBehaved(limit: 10, minute: 2, knownBy: 150, walking: 100) == [
        "old", "flood-1", "refused", "greedy", "new",
      ])
  }
}
