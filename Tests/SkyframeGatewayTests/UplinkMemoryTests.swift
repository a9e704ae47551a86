import Testing

@testable import SkyframeGateway
@testable import SkyframeLoRaWAN

/// The memory of uplinks is bounded by `requests.max-devices` (least recently heard devices go
/// first) and by four uplinks a device; a copy counts only within the window.
@Suite struct UplinkMemoryTests {
  @Test func randomDevicesPushOutTheOldestAndCopiesCountOnlyInTheWindow() {
    let memory = UplinkMemory(capacity: 3)
    #expect(memory.isFirst(device: "A", frameCount: 1, payload: [1], second: 0))
    #expect(!memory.isFirst(device: "A", frameCount: 1, payload: [1], second: 10))
    // Past the window the same uplink is a new one (a device that rejoined and counts again).
    #expect(
      memory.isFirst(device: "A", frameCount: 1, payload: [1], second: 10 + UplinkMemory.window))
    // Three other devices: A, the least recently heard, is forgotten.
    for device in ["B", "C", "D"] {
      #expect(memory.isFirst(device: device, frameCount: 1, payload: [1], second: 100))
    }
    #expect(memory.isFirst(device: "A", frameCount: 1, payload: [1], second: 101))
    // Per device: the oldest of more than four uplinks goes.
    for count in 2...6 {
      #expect(memory.isFirst(device: "B", frameCount: UInt32(count), payload: [1], second: 102))
    }
    #expect(memory.isFirst(device: "B", frameCount: 1, payload: [1], second: 103))
    #expect(!memory.isFirst(device: "B", frameCount: 6, payload: [1], second: 103))
  }
}
