import Logging
import SkyframeGateway
import SkyframeProviders

/// The gateway's answer path with no socket and no broker, as HummingbirdTesting runs an
/// application's router without a server: the rooms (the cell cache and fetcher over a scripted
/// weather service, the resolver, the composer, the bounded queue) on a manual clock, and ways in
/// whose answers are collected in memory. A test sends requests, lets the workers' share run with
/// `answerQueued()` and moves the clock with `advance(by:)`: nothing sleeps, nothing is timed.
package final class TestRooms: Sendable {
  package let clock: ManualClock
  package let weather: ScriptedWeather
  package let rooms: AnswerRooms
  package let configuration: GatewayConfiguration

  /// - Parameters:
  ///   - unixTime: the Unix time the clock starts at (the sample forecast's first hour).
  ///   - configure: changes to the default configuration (limits, cache, profiles).
  package init(
    startingAt unixTime: Int64 = ScriptedWeather.sampleStart,
    weather: ScriptedWeather = ScriptedWeather(),
    configure: (inout GatewayConfiguration) -> Void = { _ in }
  ) {
    var configuration = GatewayConfiguration()
    configure(&configuration)
    let clock = ManualClock()
    self.clock = clock
    self.weather = weather
    self.configuration = configuration
    rooms = AnswerRooms.standalone(
      configuration: configuration, provider: weather,
      clock: GatewayClock(clock, unixTimeAtStart: unixTime),
      logger: Logger(label: "skyframe.test-rooms") { _ in SwiftLogNoOpLogHandler() })
  }

  /// A way in of its own name (its own device table, as each way in has).
  package func wayIn(_ name: String = "test") -> TestWayIn {
    TestWayIn(intake: rooms.intake(way: name, configuration: configuration))
  }

  /// Requests waiting for a worker.
  package var queued: Int { rooms.queued }

  /// Does the workers' share: answers every queued request, each in a task of its own.
  package func answerQueued() async { await rooms.answerQueued() }

  /// Moves the clock on (limits' minutes, the cache's ages, deadlines).
  package func advance(by duration: Duration) { clock.advance(by: duration) }
}

/// A way in as a test drives it: a device id and the request's text or bytes in, the frames of
/// its answer collected in memory.
package struct TestWayIn: Sendable {
  package let intake: DeviceIntake

  /// A request as it arrives: admitted against the device's limit, then answered at once (from
  /// the cache, or refused) or queued for a worker. nil: dropped unanswered (the device was
  /// told `rate_limited` this minute already).
  package func send(_ request: String, from device: String) -> CollectedAnswers? {
    send(Array(request.utf8), from: device)
  }

  package func send(_ bytes: [UInt8], from device: String) -> CollectedAnswers? {
    let clock = intake.rooms.clock
    let reading = clock.reading()
    let now = clock.unixTime(atReading: reading)
    guard let admission = intake.admit(device, now: now, reading: reading) else { return nil }
    let answers = CollectedAnswers()
    bytes.withUnsafeBytes { payload in
      intake.answer(
        payload, from: device, admission: admission, reply: answers, via: CollectingOut(),
        arrived: reading, now: now)
    }
    return answers
  }

  /// Sends the request, does the workers' share, and returns the answer's frames in slot order
  /// (empty: no answer at all).
  package func ask(_ request: String, from device: String) async -> [CollectedAnswers.Frame] {
    guard let answers = send(request, from: device) else { return [] }
    await intake.rooms.answerQueued()
    return await answers.all()
  }
}
