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
