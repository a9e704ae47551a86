import Testing

@testable import SkyframeGateway

/// The queue of scheduled items waiting for a turn: a watch handed out again while it still
/// waits is not queued twice, so the queue stays within the number of watches.
struct WaitingItemsTests {
  @Test func aKeyWaitsAtMostOnce() {
    var waiting = WaitingItems<(key: String, interval: Int)>(key: { $0.key })
    let added = [
      waiting.add(("pin-a", 60)), waiting.add(("pin-b", 60)), waiting.add(("pin-a", 60)),
    ]
    #expect(added == [true, true, false])
    #expect(waiting.count == 2)
    let first = waiting.popFirst()?.key
    #expect(first == "pin-a")
    // Its turn came: it may wait again.
    let again = waiting.add(("pin-a", 60))
    #expect(again)
    var order: [String] = []
    while let item = waiting.popFirst() { order.append(item.key) }
    #expect(order == ["pin-b", "pin-a"])
    #expect(waiting.isEmpty)
    var unkeyed = WaitingItems<Int>(key: nil)
    unkeyed.add(1)
    unkeyed.add(1)
    #expect(unkeyed.count == 2)
  }
}

/// A frame found retained when a member (re)subscribes was pushed some time after its weather
/// was fetched; a push may serve weather fetched long before. Taken as the fetch time, a member
/// that started seconds after another pushed from the cache pushed again at once.
struct RetainedPushTests {
  @Test func aRetainedFrameCountsAsPushedAtMostHalfAnIntervalAgo() {
    // Weather fetched 30 minutes before, a watch every 10: the frame may be seconds old.
    #expect(DueTimes.retainedPushSecondsAgo(fetchedSecondsAgo: 1_800, intervalSeconds: 600) == 300)
    #expect(DueTimes.retainedPushSecondsAgo(fetchedSecondsAgo: 120, intervalSeconds: 600) == 120)
    // A clock a little behind the one that wrote the frame.
    #expect(DueTimes.retainedPushSecondsAgo(fetchedSecondsAgo: -5, intervalSeconds: 600) == 0)

    var due = DueTimes()
    let now = Duration.seconds(10_000)
    let watches = ["hall": 600]
    // The member's start: the retained watch waits a moment for its frame.
    due.noteDone("hall", at: now + .seconds(3), seconds: 0)
    let ago = DueTimes.retainedPushSecondsAgo(fetchedSecondsAgo: 1_800, intervalSeconds: 600)
    due.noteDone("hall", at: now - .seconds(ago), seconds: 600)
    func take(_ at: Duration) -> [String] {
      due.takeDue(watches, now: at, key: \.key, seconds: \.value).map(\.key)
    }
    #expect(take(now + .seconds(299)) == [], "not again within half an interval")
    #expect(take(now + .seconds(300)) == ["hall"])
  }
}
