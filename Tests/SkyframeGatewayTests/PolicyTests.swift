import SkyframeCodec
import SkyframeProviders
import Testing

@testable import SkyframeGateway

/// The named policies on their own: bounded tables, the bounded queue, request and upstream
/// limits, routes.
struct PolicyTests {
  @Test func theLeastRecentlyUsedEntryMakesRoom() {
    var table = LRUTable<String, Int>(capacity: 3)
    table.set(1, forKey: "a")
    table.set(2, forKey: "b")
    table.set(3, forKey: "c")
    #expect(table.value(forKey: "a") == 1)  // "b" is now the oldest
    table.set(4, forKey: "d")
    #expect(table.count == 3)
    #expect(table.peek("b") == nil)
    #expect(table.entries.map(\.key) == ["d", "a", "c"])
    #expect(table.evictions == 1)
    table.removeValue(forKey: "a")
    table.set(5, forKey: "e")
    table.set(6, forKey: "f")
    #expect(table.entries.map(\.key) == ["f", "e", "d"])
    table.resize(to: 1)
    #expect(table.entries.map(\.key) == ["f"])
  }

  @Test func aFloodOfKeysNeverGrowsATablePastItsCapacity() {
    var table = LRUTable<Int, Int>(capacity: 100)
    // A fixed walk over 1 000 keys (7 919 is prime, so each pass visits them in a new order),
    // every fifth step a removal: the same sequence on every run.
    for step in 0..<100_000 {
      let key = (step * 7_919 + step / 1_000) % 1_000
      if step % 5 == 0 {
        table.removeValue(forKey: key)
      } else {
        table.set(key, forKey: key)
      }
      #expect(table.count <= 100)
    }
    // Every remembered key still maps to its own value, and the list holds exactly the keys.
    #expect(table.entries.allSatisfy { $0.key == $0.value })
    #expect(table.entries.count == table.count)
  }

  @Test func theQueueRefusesWhenFullAndHandsOutOldestFirst() async {
    let queue = BoundedQueue<Int>(limit: 2)
    #expect((try? queue.offer(1).get()) != nil)
    #expect((try? queue.offer(2).get()) != nil)
    if case .failure(let refusal) = queue.offer(3) {
      #expect(refusal == .full)
    } else {
      Issue.record("a third element fit into a queue of two")
    }
    #expect(await queue.next() == 1)
    #expect(await queue.next() == 2)
    queue.finish()
    if case .failure(let refusal) = queue.offer(4) {
      #expect(refusal == .finished)
    } else {
      Issue.record("a finished queue took an element")
    }
    #expect(await queue.next() == nil)
  }

  @Test func aWaitingWorkerGetsTheNextElementDirectly() async {
    let queue = BoundedQueue<Int>(limit: 1)
    async let taken = queue.next()
    // Let the worker start waiting, then offer twice: one goes to the worker, one waits.
    while queue.depth == 0, (try? queue.offer(7).get()) == nil { await Task.yield() }
    #expect(await taken == 7)
    queue.finish()
  }

  @Test func aDeviceOverItsLimitIsRefusedUntilTheNextMinute() {
    let devices = DeviceTable(capacity: 10)
    let topic: @Sendable (String) -> String = { device in "frames/\(device)" }
    for _ in 0..<3 {
      #expect(devices.admit("kitchen", minute: 5, perMinute: 3, frameTopic: topic).allowed)
    }
    let refused = devices.admit("kitchen", minute: 5, perMinute: 3, frameTopic: topic)
    #expect(!refused.allowed)
    #expect(refused.frameTopic == "frames/kitchen")
    #expect(devices.admit("kitchen", minute: 6, perMinute: 3, frameTopic: topic).allowed)
  }

  @Test func deviceIdsAreBoundedAndRememberTheirLastPlaces() {
    let devices = DeviceTable(capacity: 50)
    let places = LocationList([.coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000))]
    )
    for index in 0..<10_000 {
      _ = devices.admit("flood-\(index)", minute: 1, perPerMinute: 0)
    }
    #expect(devices.count == 50)
    _ = devices.admit("display", minute: 1, perPerMinute: 0)
    devices.remember(places, for: "display")
    #expect(devices.lastPlaces(of: "display") == places)
    #expect(devices.lastPlaces(of: "flood-0") == nil)
  }

  @Test func anAdmissionCarriesTheRequestRememberedUntilThen() {
    let devices = DeviceTable(capacity: 10)
    let berlin = LocationList([.coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000))]
    )
    let paris = LocationList([.coordinates(Coordinates(latitude: 4_885_000, longitude: 235_000))])
    let first = devices.admit("display", minute: 1, perPerMinute: 0)
    #expect(first.lastPlaces == nil)
    #expect(!first.isRemembered(berlin, profile: .standard))
    devices.remember(berlin, profile: .large, for: "display")
    let second = devices.admit("display", minute: 1, perPerMinute: 0)
    #expect(second.isRemembered(berlin, profile: .large))
    #expect(!second.isRemembered(berlin, profile: .standard))
    #expect(!second.isRemembered(paris, profile: .large))
    #expect(!second.isRemembered(LocationList(), profile: .large))
  }

  @Test func newCellsAreLimitedPerDeviceAndInAll() {
    let devices = DeviceTable(capacity: 10)
    _ = devices.admit("a", minute: 1, perPerMinute: 0)
    #expect(devices.takeNewCell("a", minute: 1, perMinute: 2))
    #expect(devices.takeNewCell("a", minute: 1, perMinute: 2))
    #expect(!devices.takeNewCell("a", minute: 1, perMinute: 2))
    #expect(devices.takeNewCell("a", minute: 2, perMinute: 2))

    let all = NewCellAdmission()
    #expect(all.take(minute: 1, perMinute: 2))
    #expect(all.take(minute: 1, perMinute: 2))
    #expect(!all.take(minute: 1, perMinute: 2))
    #expect(all.take(minute: 2, perMinute: 2))
    #expect(all.take(minute: 2, perMinute: 0))
  }

  @Test func devicesSpendOnlyWhatTheReserveLeaves() {
    let budget = CallBudget(
      GatewayConfiguration.Budget(perMinute: 10, perDay: 0), reservePercent: 30,
      clock: GatewayClock(ContinuousClock(), unixTimeAtStart: 1_800_000_000))
    var device = 0
    while budget.take(1, for: .device) { device += 1 }
    #expect(device == 7)
    var scheduled = 0
    while budget.take(1, for: .scheduled) { scheduled += 1 }
    #expect(scheduled == 3)
    #expect(budget.remaining.minute == 0)
    #expect(budget.remaining.day == nil)
  }

  @Test func topicsRouteOnceWithTheDeviceId() {
    var topics = GatewayConfiguration.Topics()
    topics.base = "home/weather"
    // Two parts: one claims devices under the watch prefix, the other an exact topic and a prefix.
    let router = Router(
      topics: topics,
      claims: [
        [.device(under: "home/weather/v1/watch/")],
        [.exact("homeassistant/status"), .prefix("home/weather/v1/gateway/cache/")],
      ])
    #expect(router.route("home/weather/v1/req/esp32-1") == .request(device: "esp32-1"))
    #expect(
      router.route("home/weather/v1/watch/e.paper_2") == .part(0, claim: 0, rest: "e.paper_2"))
    #expect(router.route("home/weather/v1/watch/a/b") == .invalidDevice)
    #expect(router.route("homeassistant/status") == .part(1, claim: 0, rest: ""))
    #expect(router.route("homeassistant/status/x") == .unknown)
    #expect(
      router.route("home/weather/v1/gateway/cache/525_-134") == .part(1, claim: 1, rest: "525_-134")
    )
    #expect(router.route("home/weather/v1/req/") == .invalidDevice)
    // `.` and `..` would be other directories in the status page's picture paths.
    #expect(router.route("home/weather/v1/req/.") == .invalidDevice)
    #expect(router.route("home/weather/v1/watch/..") == .invalidDevice)
    #expect(router.route("home/weather/v1/req/...") == .request(device: "..."))
    #expect(router.route("home/weather/v1/req/a/b") == .invalidDevice)
    #expect(
      router.route("home/weather/v1/req/" + String(repeating: "x", count: 33)) == .invalidDevice)
    #expect(router.route("home/weather/v1/frame/esp32-1") == .unknown)
    #expect(router.route("skyframe/v1/req/esp32-1") == .unknown)
  }

  @Test func responseTopicsStayBelowTheAskingDevicesOwnBranch() {
    let rule = ResponseTopicRule(topics: GatewayConfiguration.Topics())
    #expect(rule.refusal(of: "skyframe/v1/resp/mallory", for: "mallory") == nil)
    #expect(rule.refusal(of: "skyframe/v1/resp/mallory/display-2", for: "mallory") == nil)
    #expect(rule.refusal(of: "skyframe/v1/resp/victim", for: "mallory") == .notOwnBranch)
    #expect(rule.refusal(of: "skyframe/v1/resp/mallory2", for: "mallory") == .notOwnBranch)
    for topic in [
      "skyframe/v1/frame/victim", "skyframe/v1/loc/home", "skyframe/v1/gateway/state",
      "skyframe/v1/req/victim", "skyframe/v1/watch/victim",
    ] {
      #expect(rule.refusal(of: topic, for: "mallory") == .gatewayTopic, "\(topic)")
    }
    #expect(rule.refusal(of: "skyframe/v1/resp/mallory/#", for: "mallory") == .wildcard)
    let long = "skyframe/v1/resp/mallory/" + String(repeating: "x", count: 65_000)
    #expect(rule.refusal(of: long, for: "mallory") == .tooLong(128))
    #expect(rule.refusal(of: "elsewhere/mallory", for: "mallory") == .notOwnBranch)
  }

  @Test func answersFollowTheRequestQoSUnlessConfigured() {
    typealias AnswerQoS = GatewayConfiguration.Topics.AnswerQoS
    #expect(AnswerQoS.request.qos(answering: 0) == 0)
    #expect(AnswerQoS.request.qos(answering: 1) == 1)
    #expect(AnswerQoS.request.qos(answering: 2) == 1)
    #expect(AnswerQoS.one.qos(answering: 0) == 1)
    #expect(AnswerQoS.zero.qos(answering: 1) == 0)
  }
}

extension DeviceTable {
  fileprivate func admit(_ device: String, minute: Int64, perPerMinute: Int) -> Admission {
    admit(device, minute: minute, perMinute: perPerMinute, frameTopic: { "f/\($0)" })
  }
}
