internal import CSkyframeCoAP
import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// libcoap's context on a thread of its own, as a Service of the gateway: the thread runs the
/// library (every callback comes on it), triggers the deferred answers the workers completed and
/// notifies the observers whose answer is due. It stops on graceful shutdown.
final class CoAPService: Service, Sendable {
  private let settings: CoAPSettings
  private let logger: Logger
  /// Set once, before `run`.
  private let way = Mutex<WeakWay>(WeakWay())
  /// Deferred answers completed, to trigger on the library's thread.
  private let completed = Mutex<[UInt64]>([])
  private let stopping = Atomic<Bool>(false)
  /// The C server while running (an address; only the library's thread uses it but to wake it).
  private let server = Atomic<Int>(0)

  private struct WeakWay { weak var way: CoAPWayIn? }

  init(settings: CoAPSettings, logger: Logger) {
    self.settings = settings
    self.logger = logger
  }

  var wayIn: CoAPWayIn? {
    get { way.withLock { $0.way } }
    set { way.withLock { $0.way = newValue } }
  }

  /// A deferred answer is complete (on a worker's thread): the library's thread answers it.
  func complete(_ id: UInt64) {
    completed.withLock { $0.append(id) }
    wake()
  }

  private func wake() {
    let address = server.load(ordering: .acquiring)
    if address != 0, let pointer = OpaquePointer(bitPattern: address) {
      skyframe_coap_wake(pointer)
    }
  }

  func run() async throws {
    let (ready, started) = AsyncStream.makeStream(of: String?.self)
    let thread = Thread { [self] in
      var error = [CChar](repeating: 0, count: 200)
      let context = Unmanaged.passUnretained(self).toOpaque()
      guard
        let made = skyframe_coap_new(
          settings.host, UInt16(settings.port), settings.maximumObserved,
          settings.maximumSessions, context, coapHandler, &error, error.count)
      else {
        started.yield(
          String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        started.finish()
        return
      }
      if settings.dtlsPort > 0, let identity = settings.pskIdentity, let file = settings.pskKeyFile
      {
        let key = (try? Data(contentsOf: URL(fileURLWithPath: file))).map { [UInt8]($0) } ?? []
        let trimmed = Array(key.reversed().drop { $0 == 10 || $0 == 13 }.reversed())
        if skyframe_coap_add_dtls(
          made, settings.host, UInt16(settings.dtlsPort), identity, trimmed, trimmed.count) == 0
        {
          logger.error("coap: DTLS cannot listen on udp \(settings.host):\(settings.dtlsPort)")
        }
      }
      server.store(Int(bitPattern: made), ordering: .releasing)
      started.yield(nil)
      started.finish()
      var nextObservedCheck = ContinuousClock.now
      var notified = false
      while !stopping.load(ordering: .relaxed) {
        skyframe_coap_run_once(made, 1_000)
        if notified {
          wayIn?.endNotifying()
          notified = false
        }
        for id in completed.withLock({ ids in
          defer { ids = [] }
          return ids
        }) where skyframe_coap_trigger(made, id) == 0 {
          // Its exchange is gone (libcoap freed it with its peer's session): nothing to answer.
          wayIn?.forget(id)
        }
        // Observed resources whose answer is due: looked for four times a second, not every
        // round (a round is a datagram or a few under load).
        let now = ContinuousClock.now
        if now >= nextObservedCheck, let way = wayIn {
          nextObservedCheck = now + .milliseconds(250)
          for path in way.dueObserved() {
            _ = path.withCString { skyframe_coap_notify(made, $0) }
            notified = true
          }
        }
      }
      server.store(0, ordering: .releasing)
      skyframe_coap_free(made)
    }
    thread.name = "skyframe-coap"
    thread.start()
    var failure: String?
    for await result in ready { failure = result }
    if let failure {
      logger.error("coap: the listener cannot start: \(failure)")
      return
    }
    logger.info("coap: listening on udp \(settings.host):\(settings.port)")
    try? await gracefulShutdown()
    stopping.store(true, ordering: .relaxed)
    wake()
  }

  /// Puts `bytes` into `response` as its payload, in memory the C side frees.
  static func withPayload(
    _ bytes: [UInt8], _ response: UnsafeMutablePointer<skyframe_coap_response>
  ) {
    guard !bytes.isEmpty, let memory = malloc(bytes.count) else { return }
    bytes.withUnsafeBytes { memory.copyMemory(from: $0.baseAddress!, byteCount: bytes.count) }
    response.pointee.payload = UnsafePointer(memory.assumingMemoryBound(to: UInt8.self))
    response.pointee.payload_length = bytes.count
  }

  fileprivate func handle(
    _ request: UnsafePointer<skyframe_coap_request>,
    _ response: UnsafeMutablePointer<skyframe_coap_response>
  ) {
    guard let way = wayIn else {
      response.pointee.code = 503
      return
    }
    way.handle(request, response)
  }
}

/// libcoap's callback, on the library's thread: to the service whose context it is.
private func coapHandler(
  _ context: UnsafeMutableRawPointer?, _ request: UnsafePointer<skyframe_coap_request>?,
  _ response: UnsafeMutablePointer<skyframe_coap_response>?
) {
  guard let context, let request, let response else { return }
  Unmanaged<CoAPService>.fromOpaque(context).takeUnretainedValue().handle(request, response)
}
