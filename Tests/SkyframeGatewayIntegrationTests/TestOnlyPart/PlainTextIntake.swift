import Logging
import SkyframeCodec
import SkyframeMQTT

@testable import SkyframeGateway

/// A way in that exists only in the tests, to show what a new one takes: its own folder (this
/// one) and one line where parts are listed (here the harness's `extraParts`). A device
/// publishes a text request on `test/ask/{device}`; it is parsed, its places resolved by the
/// shared resolver and answered by the shared composer and outbox — in the profile it names,
/// errors too — on `test/answer/{device}`. Nothing in the gateway names it.
final class PlainTextIntake: GatewayPart, Sendable {
  private let resolver: Resolver
  private let outbox: MQTTOutbox
  private let background: BackgroundWork
  private let logger: Logger
  private let limiter: DeviceLogLimiter

  init(_ context: PartContext) {
    resolver = context.resolver
    outbox = context.outbox
    background = context.background
    logger = context.logger
    limiter = context.logLimiter
  }

  var subscriptions: [String] { ["test/ask/+"] }
  var claims: [TopicClaim] { [.device(under: "test/ask/")] }

  func receive(claim: Int, rest: String, _ message: MQTTIncoming) {
    let device = rest
    let reply = Reply(topic: "test/answer/\(device)", qos: 1)
    let log = DeviceLog(logger: logger, device: device, limiter: limiter)
    let request: DeviceRequest
    do throws(RequestError) {
      request = try DeviceRequest(parsing: message.payload, maximumLocations: 4)
    } catch {
      outbox.refuse(
        error.frameStatus, "\(error)", requestID: DeviceRequest.requestID(in: message.payload),
        to: reply, profile: DeviceRequest.namedProfile(in: message.payload) ?? .standard,
        logger: log)
      return
    }
    let profile = request.profile ?? .standard
    let (id, places) = (request.id, request.places)
    _ = background.start { [resolver, outbox] in
      let outcomes = await resolver.resolve(places, for: .scheduled, needs: ProfileSet(profile))
      for (slot, outcome) in outcomes.enumerated() {
        outbox.send(
          outcome, requestID: id, slot: slot, of: outcomes.count, to: reply,
          answering: Answering(profile: profile), logger: log)
      }
    }
  }
}
