import Logging
import SkyframeMQTT
import SkyframeProviders

/// The gateway's request path with the network cut off at both ends: a request message in, its
/// frames handed to `sink`. What the bench suite measures for a cache hit.
public final class RequestPath: Sendable {
  let handler: RequestHandler

  public init(
    configuration: GatewayConfiguration, provider: any WeatherProvider, sink: any FrameSink,
    logger: Logger, now: @escaping @Sendable () -> Int64
  ) {
    let desk = WeatherDesk(
      settings: WeatherDesk.Settings(provider: provider, cache: configuration.cache),
      now: now, logger: logger)
    handler = RequestHandler(
      settings: Gateway.handlerSettings(configuration), desk: desk, sink: sink, logger: logger,
      now: now)
  }

  public func handle(_ message: MQTTMessage) async {
    await handler.handle(message)
  }
}
