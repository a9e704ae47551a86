import Logging
import ServiceLifecycle
import SkyframeMQTT
import Synchronization

/// The fast lane as a part (`mqtt.fast-lane-devices`): its connection, opened once the main
/// connection is up (a broker that refuses the gateway, for TLS or a password, is reported once,
/// by the main connection); its openings (a flood seen on a network thread is answered here:
/// the look through the device table and the subscriptions); and its clock: every half second
/// it closes the lane when the flood is over, and rescans. All run in this part's Service.
final class FastLanePart: GatewayPart, Service {
  private let lane: FastLane
  private let client: MQTTClient
  private let clock: GatewayClock
  private let logger: Logger
  private let firstConnect = Signal()

  static let tick = Duration.milliseconds(500)

  init(lane: FastLane, client: MQTTClient, clock: GatewayClock, logger: Logger) {
    self.lane = lane
    self.client = client
    self.clock = clock
    self.logger = logger
  }

  var services: [any Service] { [self] }

  func connected(sessionPresent: Bool) { firstConnect.fire() }

  func run() async {
    await cancelWhenGracefulShutdown { await self.firstConnect.wait() }
    guard !Task.isShuttingDownGracefully, !Task.isCancelled else { return }
    await withDiscardingTaskGroup { group in
      group.addTask { [lane] in
        await cancelWhenGracefulShutdown {
          for await second in lane.openings { lane.open(second: second) }
        }
      }
      group.addTask { [lane, clock] in
        while true {
          do {
            try await cancelWhenGracefulShutdown { try await clock.sleep(for: Self.tick) }
          } catch { return }
          lane.tick(now: clock.reading())
        }
      }
      await client.follow(name: "fast lane connection", logger: logger)
    }
    await client.disconnect()
  }
}

/// Fires once; every wait before or after it returns then (or when its task is cancelled).
final class Signal: Sendable {
  private struct State {
    var fired = false
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var next: UInt64 = 0
  }

  private let state = Mutex(State())

  func fire() {
    let waiters = state.withLock { state in
      state.fired = true
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait() async {
    let id = state.withLock { state in
      defer { state.next += 1 }
      return state.next
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let resumeNow = state.withLock { state in
          guard !state.fired, !Task.isCancelled else { return true }
          state.waiters[id] = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    } onCancel: {
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
  }
}

extension FastLanePart {
  /// Nil without the fast lane's connection (`mqtt.fast-lane-devices` 0).
  static func part(_ context: PartContext) -> FastLanePart? {
    context.fastLane.map { fastLane in
      FastLanePart(
        lane: fastLane.lane, client: fastLane.client, clock: context.clock,
        logger: context.logger)
    }
  }
}
