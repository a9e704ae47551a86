import Logging
import ServiceLifecycle
import SkyframeMQTT

extension MQTTClient {
  /// Connects a second or later connection (`name` in the log: a request connection, the fast
  /// lane's) and logs its connects and losses until graceful shutdown; it reconnects by itself.
  /// The caller disconnects it when its answers are done.
  func follow(name: String, logger: Logger) async {
    do {
      try await connect(timeout: .seconds(5))
    } catch {
      logger.warning("\(name) not connected yet, retrying: \(error)")
    }
    for await event in events.cancelOnGracefulShutdown() {
      switch event {
      case .connected:
        logger.info("\(name) connected")
      case .disconnected(0):
        logger.info("\(name) closed")
      case .disconnected(let code):
        logger.warning("\(name) lost, reconnecting", metadata: ["code": "\(code)"])
      case .message:
        break
      }
    }
  }
}
