import SkyframeCodec
import SkyframeGateway
import SkyframeGatewayTesting
import SkyframeProviders
import Testing

/// The answer path through the rooms alone (`SkyframeGatewayTesting`): no broker, no socket, no
/// sleep; time moves when a test moves it. What only a broker shows (sessions, retained
/// messages, wills, shared subscriptions) stays in the integration tests.
struct AnswerPathTests {
  static func status(_ frame: CollectedAnswers.Frame) -> FrameStatus { frame.status }

  /// A request for a new cell waits for the fetch; the next for it is answered from the cache at
  /// once, with no second upstream call.
  @Test func aColdCellIsFetchedOnceAndThenAnsweredFromTheCache() async throws {
    let test = TestRooms()
    let way = test.wayIn()
    let cold = try #require(way.send("#1 52.52,13.41", from: "kitchen"))
    #expect(cold.frames == nil, "a new cell waits for a worker")
    #expect(test.queued == 1)
    await test.answerQueued()
    let first = await cold.all()
    #expect(first.map(\.status) == [.ok])
    #expect(first.first?.bytes.count == MessageKind.standard.size)
    #expect(test.weather.calls == 1)

    let warm = try #require(way.send("#2 52.52,13.41", from: "hall"))
    let answered = try #require(warm.frames, "answered on arrival, from the cache")
    #expect(answered.map(\.status) == [.ok])
    #expect(test.queued == 0)
    #expect(test.weather.calls == 1)
  }

  /// Requests of several devices for one cell, while its fetch is under way, meet in that one
  /// fetch: one upstream call, every device answered.
  @Test func requestsForOneCellShareItsOneFetch() async throws {
    let test = TestRooms()
    let way = test.wayIn()
    test.weather.hold()
    let asked = (1...5).compactMap { way.send("#\($0) 48.85,2.35", from: "d\($0)") }
    #expect(asked.count == 5)
    let workers = Task { await test.answerQueued() }
    await test.weather.waitForCalls(1)
    test.weather.release()
    await workers.value
    for answers in asked {
      #expect(await answers.all().map(\.status) == [.ok])
    }
    #expect(test.weather.calls == 1)
  }

  /// Past `requests.per-device-per-minute` a device gets one `rate_limited`, then nothing for
  /// the rest of the minute; the next minute it is answered again. Another device is not touched.
  @Test func aDevicePastItsLimitIsToldOnceThenNotAnswered() async throws {
    let test = TestRooms { $0.requests.perDevicePerMinute = 2 }
    let way = test.wayIn()
    #expect(await way.ask("#1 52.52,13.41", from: "busy").map(\.status) == [.ok])
    #expect(await way.ask("#2 52.52,13.41", from: "busy").map(\.status) == [.ok])
    let told = await way.ask("#3 52.52,13.41", from: "busy")
    #expect(told.map(\.status) == [.rateLimited])
    #expect(way.send("#4 52.52,13.41", from: "busy") == nil, "silence after the one refusal")
    #expect(await way.ask("#5 52.52,13.41", from: "calm").map(\.status) == [.ok])
    test.advance(by: .seconds(60))
    #expect(await way.ask("#6 52.52,13.41", from: "busy").map(\.status) == [.ok])
  }

  /// Each way in has a device table of its own: the same id on two ways has two allowances.
  @Test func waysInDoNotShareADevicesAllowance() async throws {
    let test = TestRooms { $0.requests.perDevicePerMinute = 1 }
    let (one, two) = (test.wayIn("one"), test.wayIn("two"))
    #expect(await one.ask("#1 52.52,13.41", from: "same").map(\.status) == [.ok])
    #expect(await two.ask("#1 52.52,13.41", from: "same").map(\.status) == [.ok])
    #expect(await one.ask("#2 52.52,13.41", from: "same").map(\.status) == [.rateLimited])
  }

  /// Every answer comes in the profile asked for, refusals included, and a refusal carries the
  /// request's id.
  @Test func answersAndRefusalsComeInTheProfileAsked() async throws {
    let test = TestRooms()
    let way = test.wayIn()
    let tiny = await way.ask("#7 ~tiny 52.52,13.41", from: "e-paper")
    #expect(tiny.map(\.bytes.count) == [MessageKind.tiny.size])
    let large = await way.ask("#8 ~large 52.52,13.41", from: "panel")
    #expect(large.map(\.bytes.count) == [MessageKind.large.size])
    let refused = await way.ask("#9 ~tiny 999,13", from: "e-paper")
    #expect(refused.map(\.status) == [.badRequest])
    let frame = try #require(refused.first)
    try frame.bytes.withUnsafeBytes { bytes in
      let view = try ProfileView(checking: bytes)
      #expect(view.wire(TinyLayout.requestID) == 9)
    }
  }

  /// Several places: one frame a slot, in order; more than `requests.max-locations` is one
  /// `too_many_locations`.
  @Test func severalPlacesAreOneFrameEachAndTooManyIsRefused() async throws {
    let test = TestRooms { $0.requests.maximumLocations = 2 }
    let way = test.wayIn()
    let two = await way.ask("#3 52.52,13.41;48.85,2.35", from: "wall")
    #expect(two.map(\.status) == [.ok, .ok])
    let three = await way.ask("#4 52.52,13.41;48.85,2.35;40.71,-74.01", from: "wall")
    #expect(three.map(\.status) == [.tooManyLocations])
  }

  /// `refresh` asks again for what the device asked last, in its profile; with nothing asked
  /// before it is refused.
  @Test func refreshRepeatsTheDevicesLastRequest() async throws {
    let test = TestRooms()
    let way = test.wayIn()
    #expect(await way.ask("#1 refresh", from: "new").map(\.status) == [.badRequest])
    _ = await way.ask("#2 ~tiny 52.52,13.41;48.85,2.35", from: "known")
    let again = await way.ask("#3 refresh", from: "known")
    #expect(again.map(\.status) == [.ok, .ok])
    #expect(again.map(\.bytes.count) == [MessageKind.tiny.size, MessageKind.tiny.size])
    // The places in their order, under the refresh's own id.
    for (slot, frame) in again.enumerated() {
      try frame.bytes.withUnsafeBytes { bytes in
        let view = try ProfileView(checking: bytes)
        #expect(view.wire(TinyLayout.requestID) == 3)
        #expect(view.wire(TinyLayout.slotIndex) == Int64(slot))
        #expect(view.wire(TinyLayout.slotCount) == 2)
      }
    }
    #expect(test.weather.calls == 2, "both cells came from the cache")
  }

  /// A service that fails with nothing cached: `upstream_unavailable`; once it answers again,
  /// so does the gateway.
  @Test func aFailingServiceWithNothingCachedIsUpstreamUnavailable() async throws {
    let test = TestRooms()
    let way = test.wayIn()
    test.weather.fail(with: .unavailable("down"))
    #expect(await way.ask("#1 52.52,13.41", from: "d").map(\.status) == [.upstreamUnavailable])
    test.weather.fail(with: nil)
    test.advance(by: .seconds(120))
    #expect(await way.ask("#2 52.52,13.41", from: "d").map(\.status) == [.ok])
  }
}
