import Foundation
import Logging
import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Testing

@testable import SkyframeCluster
@testable import SkyframeGateway

/// The cluster's pieces on their own: membership from presence messages, rendezvous ownership of
/// scheduled work, the budget share, the instance id.
struct ClusterTests {
  static let online = Array(#"{"state":"online"}"#.utf8)

  func members(_ own: String, with others: [String]) -> ClusterMembers {
    let members = ClusterMembers(own: own)
    for other in others { members.receive(id: other, payload: Self.online) }
    return members
  }

  /// A member gone by its last will: its devices are left to it until the taker's marker comes
  /// back (what came before sits in its session), then they are the taker's; at most 5 s.
  @Test func aTakenOverMembersDevicesWaitForTheMarker() {
    let members = members("gw-b", with: ["gw-a"])
    members.connected(at: .zero)
    let device = (0..<200).map { "d\($0)" }.first {
      ClusterMembers.owner(of: "device:" + $0, among: ["gw-a", "gw-b"]) == "gw-a"
    }!
    let now = Duration.seconds(2)
    #expect(members.answers(device: device, at: now) == .otherMember)
    #expect(members.receive(id: "gw-a", payload: [], at: now))
    members.beginTakeover(of: "gw-a", at: now)
    #expect(members.answers(device: device, at: now) == .otherMember)
    // Not for a device that was this member's already.
    let own = (0..<200).map { "e\($0)" }.first {
      ClusterMembers.owner(of: "device:" + $0, among: ["gw-a", "gw-b"]) == "gw-b"
    }!
    #expect(members.answers(device: own, at: now) == .answer)
    members.endTakeover(of: "gw-a")
    #expect(members.answers(device: device, at: now) == .answer)
    // A marker that never comes back: 5 s.
    members.beginTakeover(of: "gw-a", at: now)
    #expect(members.answers(device: device, at: now + .seconds(4)) == .otherMember)
    #expect(members.answers(device: device, at: now + .seconds(5)) == .answer)
  }

  /// Takeovers are a bounded table: random ids in last wills fill it to `maximumMembers` at
  /// most, and those older than 5 s give way.
  @Test func takeoversAreBounded() {
    let members = ClusterMembers(own: "gw-b")
    for index in 0..<500 { members.beginTakeover(of: "x\(index)", at: .seconds(1)) }
    #expect(members.takeoverCount == ClusterSettings.maximumMembers)
    members.beginTakeover(of: "late", at: .seconds(7))
    #expect(members.takeoverCount == 1)
  }

  @Test func everyKeyHasExactlyOneOwnerWhoEveryMemberAgreesOn() {
    let ids = ["gw-a", "gw-b", "gw-c"]
    let views = ids.map { id in members(id, with: ids.filter { $0 != id }) }
    var counts = [String: Int]()
    for index in 0..<3_000 {
      let key = "device-\(index)"
      let owners = zip(ids, views).filter { $0.1.owns(key) }.map(\.0)
      #expect(owners.count == 1, "\(key): \(owners)")
      counts[owners.first ?? "", default: 0] += 1
    }
    // Spread: each of three members gets roughly a third.
    for id in ids { #expect((800...1_200).contains(counts[id] ?? 0), "\(counts)") }
  }

  @Test func aMemberLeavingMovesOnlyTheKeysItHeld() {
    let keys = (0..<2_000).map { "place-\($0)" }
    let before = Dictionary(
      uniqueKeysWithValues: keys.map { ($0, ClusterMembers.owner(of: $0, among: ["a", "b", "c"])) })
    let after = Dictionary(
      uniqueKeysWithValues: keys.map { ($0, ClusterMembers.owner(of: $0, among: ["a", "c"])) })
    for key in keys where before[key] != "b" {
      #expect(after[key] == before[key], "\(key) moved though its owner stayed")
    }
    #expect(keys.contains { before[$0] == "b" })
  }

  @Test func presenceMessagesAddAndRemoveWithinTheBound() {
    let members = ClusterMembers(own: "me")
    #expect(members.live == ["me"])
    #expect(members.owns("anything"))
    #expect(members.receive(id: "other", payload: Self.online))
    #expect(!members.receive(id: "other", payload: Self.online))
    #expect(members.live == ["me", "other"])
    #expect(members.receive(id: "other", payload: []))
    // A stale empty message for this instance does not remove it.
    #expect(!members.receive(id: "me", payload: []))
    #expect(members.live == ["me"])
    for index in 0..<200 { members.receive(id: "flood-\(index)", payload: Self.online) }
    #expect(members.count == ClusterSettings.maximumMembers)
    #expect(members.live.contains("me"))
  }

  /// Members that left lately (kept to be confirmed again after a reconnect) stay within the
  /// same bound however many ids come and go through the presence topics.
  @Test func membersThatLeftLatelyStayWithinTheBound() {
    let members = ClusterMembers(own: "gw-a")
    for index in 0..<500 {
      members.receive(id: "x\(index)", payload: Array("online".utf8), at: .seconds(index))
      members.receive(id: "x\(index)", payload: [], at: .seconds(index))
    }
    members.beginReconfirming(at: .seconds(500))
    #expect(members.count <= ClusterSettings.maximumMembers)
    // The last to leave are kept; of them, those gone within `recentlyGone` (30 s: x470 to
    // x499) come back to be confirmed.
    #expect(members.count == 31)
    members.endReconfirming()
    #expect(members.live == ["gw-a"])
  }

  @Test func eachInstanceSpendsItsShareOfTheBudget() {
    let fleet = FleetShare()
    let budget = CallBudget(
      ServiceBudget(perMinute: 600, perDay: 10_000),
      clock: GatewayClock(
        ContinuousClock(), unixTimeAtStart: 1_800_000_000), fleet: fleet)
    fleet.set(2)
    #expect(budget.remaining.minute == 300)
    #expect(budget.take(300))
    #expect(!budget.take(1))
    fleet.set(1)
    #expect(budget.take(1))
    #expect(fleet.share(of: 0) == 0)
    fleet.set(3)
    #expect(fleet.share(of: 1) == 1)
    #expect(fleet.share(of: 10_000) == 3_333)
  }

  @Test func theFleetStateNamesTheMembersAndTheOneThatWentOffline() {
    #expect(
      String(decoding: FleetState.online(["gw-a", "gw-b"]), as: UTF8.self)
        == #"{"state":"online","instances":["gw-a","gw-b"]}"#)
    #expect(FleetState.offlineInstance(in: FleetState.offline("gw-b")) == "gw-b")
    for junk in [
      #"{"state":"online","instances":["gw-a"]}"#, #"{"state":"offline"}"#,
      #"{"state":"offline","instance":""}"#, #"{"state":"offline","instance":"a/b"}"#,
      #"{"state":"offline","instance":"this-one-is-longer-than-23"}"#, "",
    ] {
      #expect(FleetState.offlineInstance(in: Array(junk.utf8)) == nil, "\(junk)")
    }
  }

  @Test func derivedInstanceIdsDifferByHostAndProcessAndFitAClientID() {
    var settings = ClusterSettings()
    #expect(settings.resolvedInstanceID() == nil)
    settings.group = "a-rather-long-group-name-of-32ch"
    let one = settings.resolvedInstanceID(host: "pi-kitchen", process: 4_194_304)
    let two = settings.resolvedInstanceID(host: "pi-garage", process: 4_194_304)
    let three = settings.resolvedInstanceID(host: "pi-kitchen", process: 77)
    #expect(Set([one, two, three]).count == 3)
    for id in [one, two, three] { #expect((id?.utf8.count ?? 99) <= 23, "\(id ?? "")") }
    settings.instanceID = "gw-1"
    #expect(settings.resolvedInstanceID() == "gw-1")
  }

  /// A removed watch leaves one empty message a retained topic, sent by the watch's owner only:
  /// in a fleet of two, both members hear the removal (it was four messages: two members, the
  /// frame and its JSON mirror, with the mirror off).
  @Test func aRemovedWatchIsClearedOnceByItsOwner() {
    var topics = GatewayConfiguration.Topics()
    #expect(
      WatchScheduler.topicsToClear(of: "hall", slots: 1, keeping: 0, topics: topics)
        == ["skyframe/v1/frame/hall"])
    // Three places become one: slots 0-2 go, the single frame topic comes.
    #expect(
      WatchScheduler.topicsToClear(of: "hall", slots: 3, keeping: 1, topics: topics)
        == ["skyframe/v1/frame/hall/0", "skyframe/v1/frame/hall/1", "skyframe/v1/frame/hall/2"])
    #expect(WatchScheduler.topicsToClear(of: "hall", slots: 2, keeping: 2, topics: topics) == [])
    topics.debugJSON = true
    #expect(
      WatchScheduler.topicsToClear(of: "hall", slots: 1, keeping: 0, topics: topics)
        == ["skyframe/v1/frame/hall", "skyframe/v1/frame/hall/json"])
    // Whoever of two members hears it, exactly one of them owns the device.
    let a = members("gw-a", with: ["gw-b"])
    let b = members("gw-b", with: ["gw-a"])
    for device in (0..<50).map({ "d\($0)" }) {
      #expect([a.owns(device), b.owns(device)].filter { $0 }.count == 1)
    }
  }
}

/// The shared cache's entries: signed, bound to their cell, checked before use.
struct SharedFrameCacheTests {
  /// RFC 4231 test cases 1 and 2 (and a key longer than the block, case 6): the HMAC-SHA256 the
  /// entries are signed with.
  @Test func theHMACIsRFC4231s() {
    func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    #expect(
      hex(
        SharedFrameCache.hmacSHA256(
          Array("Hi There".utf8)[...], key: [UInt8](repeating: 0x0b, count: 20)))
        == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    #expect(
      hex(
        SharedFrameCache.hmacSHA256(
          Array("what do ya want for nothing?".utf8)[...], key: Array("Jefe".utf8)))
        == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    #expect(
      hex(
        SharedFrameCache.hmacSHA256(
          Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8)[...],
          key: [UInt8](repeating: 0xaa, count: 131)))
        == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    #expect(SharedFrameCache.constantTimeEqual([1, 2, 3], [1, 2, 3][...]))
    #expect(!SharedFrameCache.constantTimeEqual([1, 2, 3], [1, 2, 4][...]))
    #expect(!SharedFrameCache.constantTimeEqual([1, 2, 3], [1, 2][...]))
  }

  let cache = SharedFrameCache(
    key: Array("a cluster key of 32 bytes, or so".utf8), topics: .init(), staleSeconds: 3_600)
  let cell = WeatherDesk.Cell(row: 525, column: -134)

  func frame() throws -> WeatherDesk.CachedFrame {
    var frame = WeatherFrame()
    frame.current.temperature = 215
    return WeatherDesk.CachedFrame(
      bytes: try frame.encoded(), fetchedAt: 1_800_000_000, validUntil: 1_800_000_600)
  }

  @Test func aSignedEntryComesBackWithItsCellAndFrame() throws {
    let entry = cache.entry(try frame(), for: cell)
    #expect(entry.count == SharedFrameCache.size)
    #expect(cache.topic(cell) == "skyframe/v1/gateway/cache/525_-134")
    let (got, cached) = try cache.verify(entry, cellText: "525_-134").get().pair
    #expect(got == cell)
    #expect(cached.bytes == (try frame()).bytes)
    #expect(cached.fetchedAt == 1_800_000_000)
    #expect(cached.validUntil == 1_800_000_600)
    #expect(cache.expiry(cached, now: 1_800_000_100) == 3_500)
  }

  /// A frame kept under the models' runs keeps its gate across the fleet; a version 1 entry
  /// (257 bytes, from a member not yet upgraded) is still taken, as a frame on the TTL.
  @Test func anEntryCarriesTheRunGateAndAVersionOneEntryIsStillTaken() throws {
    var gated = try frame()
    gated.fetchBegan = 1_799_990_000
    gated.keepUntil = 1_800_010_800
    gated.expectedUntil = 1_800_004_000
    let (_, back) = try cache.verify(cache.entry(gated, for: cell), cellText: "525_-134").get().pair
    #expect(back.fetchBegan == 1_799_990_000)
    #expect(back.keepUntil == 1_800_010_800 && back.expectedUntil == 1_800_004_000)
    #expect(
      try cache.verify(cache.entry(try frame(), for: cell), cellText: "525_-134").get().frame
        .fetchBegan == nil)
    // Version 1: version, fetched_at, valid_until, row, column, the frame, HMAC over all that.
    var old: [UInt8] = [1]
    for value in [Int64(1_800_000_000), 1_800_000_600, 525, -134] {
      withUnsafeBytes(of: value.littleEndian) { old.append(contentsOf: $0) }
    }
    old += try frame().bytes
    old += SharedFrameCache.hmacSHA256(
      old[...], key: Array("a cluster key of 32 bytes, or so".utf8))
    #expect(old.count == 257)
    let (oldCell, oldFrame) = try cache.verify(old, cellText: "525_-134").get().pair
    let expectedBytes = try frame().bytes
    #expect(oldCell == cell && oldFrame.bytes == expectedBytes)
    #expect(oldFrame.fetchedAt == 1_800_000_000 && oldFrame.fetchBegan == nil)
    old[40] ^= 1
    #expect(refusal(old) == "the HMAC does not match the cluster key")
  }

  /// An owner's word that it could not fetch a cell is signed and recent: one made without the
  /// cluster key, for another cell, or older than a minute is ignored.
  @Test func anUnavailableNoticeIsSignedAndRecent() {
    let now: Int64 = 1_800_000_000
    let notice = cache.unavailableNotice(for: cell, now: now)
    #expect(notice.count == 40)
    #expect(cache.verifyUnavailable(notice, cellText: "525_-134", now: now + 30) == cell)
    #expect(cache.verifyUnavailable(notice, cellText: "525_-135", now: now) == nil)
    #expect(cache.verifyUnavailable(notice, cellText: "525_-134", now: now + 61) == nil)
    #expect(cache.verifyUnavailable([], cellText: "525_-134", now: now) == nil)
    let forger = SharedFrameCache(
      key: Array("not the cluster's key, 32 bytes!".utf8), topics: .init(), staleSeconds: 3_600)
    #expect(
      cache.verifyUnavailable(
        forger.unavailableNotice(for: cell, now: now), cellText: "525_-134", now: now) == nil)
  }

  func refusal(_ payload: [UInt8], _ cellText: Substring = "525_-134") -> String? {
    switch cache.verify(payload, cellText: cellText) {
    case .success: nil
    case .failure(let refused): "\(refused)"
    }
  }

  @Test func cellTextsRoundTripAndJunkIsNoCell() {
    #expect(cache.cell(from: Array(cache.cellText(cell).utf8)) == cell)
    for junk in ["", "5", "5_", "_5", "5_6_7", "a_b", "1_2 ", String(repeating: "9", count: 50)] {
      #expect(cache.cell(from: Array(junk.utf8)) == nil, "\(junk)")
    }
  }

  /// Shared place names: an entry comes back with its name and place; one signed with another
  /// key, altered, or published under another name's topic is refused.
  @Test func sharedNamesComeBackAndForgeriesAreRefused() throws {
    let names = SharedNames(key: Array("a cluster key of 32 bytes, here!".utf8), topics: .init())
    let key = WeatherDesk.GeocodeKey(name: "berlin", countryCode: "DE")
    let place = WeatherDesk.CachedPlace(
      place: Forecast.Place(name: "Berlin", countryCode: "DE", latitude: 52.52, longitude: 13.41),
      expiresAt: 1_900_000_000)
    let entry = names.entry(place, for: key)
    let level = Substring(SharedNames.level(key))
    guard case .success(let (back, found)) = names.verify(entry, level: level) else {
      Issue.record("refused its own entry")
      return
    }
    #expect(back == key && found.place == place.place && found.expiresAt == place.expiresAt)
    let forger = SharedNames(key: Array("not the cluster's key, 32 bytes!".utf8), topics: .init())
    guard case .failure(.signature) = names.verify(forger.entry(place, for: key), level: level)
    else {
      Issue.record("took a forged entry")
      return
    }
    var altered = entry
    altered[3] ^= 1
    guard case .failure = names.verify(altered, level: level) else {
      Issue.record("took an altered entry")
      return
    }
    let other = Substring(SharedNames.level(.init(name: "paris", countryCode: "FR")))
    guard case .failure(.topic) = names.verify(entry, level: other) else {
      Issue.record("took an entry under another name's topic")
      return
    }
    #expect(SharedNames.level(key).count == 16)
  }

  @Test func forgedAlteredOrMisplacedEntriesAreRefused() throws {
    let entry = cache.entry(try frame(), for: cell)
    #expect(refusal(entry) == nil)
    // Another key: a device that can publish here but does not hold the cluster key.
    let forger = SharedFrameCache(
      key: Array("not the cluster's key, 32 bytes!".utf8), topics: .init(), staleSeconds: 3_600)
    #expect(
      refusal(forger.entry(try frame(), for: cell)) == "the HMAC does not match the cluster key")
    // Any byte changed.
    for position in [0, 1, 20, 40, 50, 100, 248, 280] {
      var altered = entry
      altered[position] ^= 0x01
      #expect(refusal(altered) != nil, "byte \(position)")
    }
    // A genuine entry replayed under another cell's topic.
    #expect(refusal(entry, "525_-135") == "the cell in the entry is not the one in its topic")
    let shape = "not a 281-byte version 2 (or 257-byte version 1) entry"
    #expect(refusal(Array(entry.dropLast())) == shape)
    #expect(refusal([]) == shape)
    // Signed, but the frame inside does not check.
    var broken = try frame()
    broken.bytes[100] ^= 0xFF
    #expect(refusal(cache.entry(broken, for: cell)) == "the frame in the entry does not check")
  }
}

/// The process's log level as a switch every handler reads at each line.
struct LogLevelSwitchTests {
  final class Lines: @unchecked Sendable {
    var all: [String] = []
  }

  struct Capturing: LogHandler {
    let lines: Lines
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { lines.all.append("\(event.level) \(event.message)") }
  }

  @Test func linesBelowTheSwitchedLevelAreNotWritten() {
    let lines = Lines()
    let levelSwitch = LogLevelSwitch(.warning)
    let logger = Logger(label: "test") { _ in
      SwitchedLogHandler(Capturing(lines: lines), levelSwitch: levelSwitch)
    }
    logger.info("one")
    logger.warning("two")
    levelSwitch.level = .debug
    logger.debug("three")
    levelSwitch.level = .error
    logger.warning("four")
    #expect(lines.all == ["warning two", "debug three"])
  }
}

extension SharedFrameCache.Shared {
  var pair: (WeatherDesk.Cell, WeatherDesk.CachedFrame) { (cell, frame) }
}
