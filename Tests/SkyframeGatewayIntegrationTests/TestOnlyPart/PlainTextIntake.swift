import Logging
import SkyframeCodec
import SkyframeMQTT

@testable import SkyframeGateway

/// A way in that exists only in the tests, to show what a new one takes: its own folder (this
/// one) and one line where parts are listed (here the harness's `extraParts`). A device
/// publishes a text request on `test/ask/{device}`; the one device intake admits it against the
/// device limits, reads it, resolves and composes it — in the profile it names, errors too — and
/// this way out publishes the answers on `test/answer/{device}`. Nothing in the gateway names it.
final class PlainTextIntake: GatewayPart, Sendable {
  private let intake: DeviceIntake
  private let out: Answers

  /// Publishes each answer on the main connection.
  struct Answers: WayOut {
    let own: OwnMessages

    func send(_ answer: SentAnswer, to topic: String) {
      _ = own.send(topic, Array(answer.bytes), retain: false)
    }
  }

  init(_ context: PartContext) {
    intake = context.rooms.intake(way: "plain", configuration: context.configuration)
    out = Answers(own: context.own)
  }

  var subscriptions: [String] { ["test/ask/+"] }
  var claims: [TopicClaim] { [.device(under: "test/ask/")] }

  func receive(claim: Int, rest: String, _ message: MQTTIncoming) {
    let device = rest
    let (reading, now) = (intake.rooms.clock.reading(), intake.rooms.clock.unixTime())
    guard let admission = intake.admit(device, now: now, reading: reading) else { return }
    intake.answer(
      message.payload, from: device, admission: admission, reply: "test/answer/\(device)",
      via: out, arrived: reading, now: now)
  }

  func apply(_ configuration: GatewayConfiguration) { intake.update(configuration) }
}
