import CMosquitto
import Logging
import Synchronization

/// Everything libmosquitto's callbacks and the network thread share with the API: the event
/// stream, the remembered subscriptions and who is waiting for what.
///
/// It is the callbacks' context (`obj` of `mosquitto_new`). Callbacks run on the network thread
/// inside libmosquitto's mutex, so each method here copies, updates a little state, yields and
/// returns; continuations are resumed outside `state`'s lock.
final class ConnectionState: Sendable {
  struct Subscription: Sendable {
    var filter: String
    var qos: Int32
  }

  enum Phase {
    case idle
    case running
    /// `disconnect()` was called or the client was released; the thread may still be flushing.
    case stopping
  }

  fileprivate struct State: ~Copyable {
    var phase = Phase.idle
    var networkThreadRunning = false
    var connected = false
    /// Accepted CONNACKs so far: tells the network thread when to start its backoff over.
    var acceptedConnections = 0
    var subscriptions: [Subscription] = []
    /// Filters an earlier run may have left in a persistent session; unsubscribed when it is.
    var dropped: [String] = []
    /// Outstanding SUBSCRIBEs by message id, to name the filter if the broker refuses it.
    var pendingSubscriptions: [Int32: String] = [:]
    var lastFailure: MQTTError?
    /// CONNACKs so far, accepted or refused: tells whether an attempt got an answer.
    var answers = 0
    /// What libmosquitto logged during the current attempt.
    var clues = TLSClues()
    /// The configuration problem last logged, so a retry that fails alike stays quiet.
    var loggedProblem: ConnectionProblem?
    var nextWaiterID: UInt64 = 0
    var connectWaiters: [UInt64: CheckedContinuation<Result<Void, MQTTError>, Never>] = [:]
    var exitWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
  }

  let logger: Logger
  let endpoint: String
  let protocolVersion: MQTTConfiguration.ProtocolVersion
  let settingNames: MQTTConfiguration.SettingNames
  private let continuation: AsyncStream<MQTTEvent>.Continuation
  private let state = Mutex(State())
  /// Held weakly: the receiver owns the client, not the other way round.
  private let receiver = Mutex<WeakReceiver?>(nil)

  private struct WeakReceiver: @unchecked Sendable {
    // Only ever read under `receiver`'s lock and called on the network thread.
    weak var receiver: (any MQTTMessageReceiver)?
  }

  init(
    endpoint: String, protocolVersion: MQTTConfiguration.ProtocolVersion,
    settingNames: MQTTConfiguration.SettingNames = .init(),
    continuation: AsyncStream<MQTTEvent>.Continuation, logger: Logger
  ) {
    self.endpoint = endpoint
    self.protocolVersion = protocolVersion
    self.settingNames = settingNames
    self.continuation = continuation
    self.logger = logger
  }

  static func from(_ context: UnsafeMutableRawPointer?) -> ConnectionState {
    // Set by MosquittoHandle for every handle it creates; never nil.
    Unmanaged<ConnectionState>.fromOpaque(context!).takeUnretainedValue()
  }

  // MARK: Lifecycle

  /// Moves `idle` to `running`; `true` if the caller must start the network thread.
  func startIfIdle() -> Bool {
    state.withLock { state in
      guard case .idle = state.phase else { return false }
      state.phase = .running
      state.networkThreadRunning = true
      return true
    }
  }

  var isStopping: Bool {
    state.withLock { state in
      if case .stopping = state.phase { return true }
      return false
    }
  }

  var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }

  /// Marks the client as stopping; afterwards connect waiters fail and the thread winds down.
  func beginStop() {
    let waiters = state.withLock { state in
      state.phase = .stopping
      return state.takeConnectWaiters()
    }
    let error = stoppedError
    for waiter in waiters { waiter.resume(returning: .failure(error)) }
  }

  /// Ends `events`; anything yielded later is dropped.
  func finish() {
    continuation.finish()
  }

  func networkThreadExited() {
    let (exitWaiters, connectWaiters) = state.withLock { state in
      state.networkThreadRunning = false
      state.connected = false
      let exitWaiters = Array(state.exitWaiters.values)
      state.exitWaiters.removeAll()
      return (exitWaiters, state.takeConnectWaiters())
    }
    let error = stoppedError
    for waiter in connectWaiters { waiter.resume(returning: .failure(error)) }
    for waiter in exitWaiters { waiter.resume() }
  }

  /// Returns `true` once the network thread has exited, `false` if it still runs after `limit`.
  func waitForNetworkThread(upTo limit: Duration) async -> Bool {
    let id = state.withLock { $0.makeWaiterID() }
    // The timer is a child of this call: it ends with it, and no task outlives the wait.
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        try? await Task.sleep(for: limit)
        let waiter = self.state.withLock { $0.exitWaiters.removeValue(forKey: id) }
        waiter?.resume()
      }
      await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
        let running = state.withLock { state in
          if state.networkThreadRunning { state.exitWaiters[id] = waiter }
          return state.networkThreadRunning
        }
        if !running { waiter.resume() }
      }
      group.cancelAll()
    }
    return state.withLock { !$0.networkThreadRunning }
  }

  // MARK: Connecting

  /// Waits for an accepted CONNACK. Fails at once if the broker refuses, after `timeout` with
  /// the last reason an attempt failed, or when the client stops or the task is cancelled.
  func waitUntilConnected(timeout: Duration) async -> Result<Void, MQTTError> {
    let id = state.withLock { $0.makeWaiterID() }
    // The timer is a child of this call: it ends with it, and no task outlives the wait.
    return await withTaskGroup(of: Void.self) { group in
      group.addTask {
        guard (try? await Task.sleep(for: timeout)) != nil else { return }
        self.resumeConnectWaiter(id, with: .failure(self.timeoutError(after: timeout)))
      }
      let result = await waitForConnectWaiter(id)
      group.cancelAll()
      return result
    }
  }

  private func waitForConnectWaiter(_ id: UInt64) async -> Result<Void, MQTTError> {
    await withTaskCancellationHandler {
      await withCheckedContinuation { waiter in
        let immediate: Result<Void, MQTTError>? = state.withLock { state in
          if state.connected { return .success(()) }
          if case .stopping = state.phase { return .failure(stoppedError) }
          state.connectWaiters[id] = waiter
          return nil
        }
        if let immediate { waiter.resume(returning: immediate) }
      }
    } onCancel: {
      resumeConnectWaiter(
        id,
        with: .failure(
          MQTTError(
            operation: connectOperation, code: MOSQ_ERR_UNKNOWN.rawValue,
            description: "\(connectOperation) cancelled")))
    }
  }

  private func resumeConnectWaiter(_ id: UInt64, with result: Result<Void, MQTTError>) {
    let waiter = state.withLock { $0.connectWaiters.removeValue(forKey: id) }
    waiter?.resume(returning: result)
  }

  /// Starts an attempt's notes over; returns the CONNACKs so far, to tell later whether this
  /// attempt got one.
  func beginAttempt() -> Int {
    state.withLock { state in
      state.clues = TLSClues()
      return state.answers
    }
  }

  var answers: Int { state.withLock { $0.answers } }

  /// What libmosquitto logged during the attempt so far.
  func takeClues() -> TLSClues {
    state.withLock { state in
      defer { state.clues = TLSClues() }
      return state.clues
    }
  }

  /// libmosquitto's log callback, installed only while an attempt waits for its CONNACK.
  func libraryLogged(level: Int32, text: String, ssl: UnsafeMutableRawPointer?) {
    state.withLock { $0.clues.note(level: level, text: text, ssl: ssl) }
  }

  /// The reason the last attempt failed while no connection is up; nil once connected.
  var lastFailure: MQTTError? {
    state.withLock { $0.connected ? nil : $0.lastFailure }
  }

  /// A TCP connect (or DNS lookup, TLS handshake, ...) failed; the network thread will retry.
  /// A problem in the configuration is logged as an error when it is new, and fails whoever
  /// waits in `connect(timeout:)` at once: retrying alone will not mend it.
  func attemptFailed(_ error: MQTTError) {
    let (isNew, waiters) = state.withLock { state in
      state.lastFailure = error
      defer { state.loggedProblem = error.problem }
      guard let problem = error.problem else {
        return (false, [CheckedContinuation<Result<Void, MQTTError>, Never>]())
      }
      return (state.loggedProblem != problem, state.takeConnectWaiters())
    }
    if isNew { logger.error("MQTT connection failed, retrying: \(error.description)") }
    for waiter in waiters { waiter.resume(returning: .failure(error)) }
  }

  /// CONNACK callback. Re-subscribes before announcing the connection, so a consumer that sees
  /// `.connected` knows its subscriptions are on their way.
  func connackReceived(_ mosquitto: OpaquePointer?, code: Int32, flags: Int32) {
    guard code == 0 else {
      let error = MQTTError.refused(
        operation: connectOperation, code: code, protocolVersion: protocolVersion,
        names: settingNames)
      // Logged when new: a wrong password refused every retry says nothing more each time.
      let (isNew, waiters) = state.withLock { state in
        state.answers += 1
        state.lastFailure = error
        defer { state.loggedProblem = error.problem }
        return (state.loggedProblem != error.problem, state.takeConnectWaiters())
      }
      if isNew {
        logger.error("MQTT broker refused the connection", metadata: ["mqtt.error": "\(error)"])
      }
      for waiter in waiters { waiter.resume(returning: .failure(error)) }
      return
    }
    let (subscriptions, dropped) = state.withLock { state in
      state.connected = true
      state.acceptedConnections += 1
      state.answers += 1
      state.lastFailure = nil
      state.loggedProblem = nil
      state.pendingSubscriptions.removeAll()
      return (state.subscriptions, state.dropped)
    }
    let sessionPresent = flags & 1 != 0
    if sessionPresent {
      for filter in dropped { _ = mosquitto_unsubscribe(mosquitto, nil, filter) }
    }
    for subscription in subscriptions {
      send(subscription, on: mosquitto)
    }
    logger.info(
      "MQTT connected",
      metadata: [
        "mqtt.session_present": "\(sessionPresent)",
        "mqtt.subscriptions": "\(subscriptions.count)",
      ])
    continuation.yield(.connected(sessionPresent: sessionPresent))
    let waiters = state.withLock { $0.takeConnectWaiters() }
    for waiter in waiters { waiter.resume(returning: .success(())) }
  }

  /// Disconnect callback, and the network thread's fallback when `mosquitto_loop` fails: only a
  /// connection that had been accepted produces `.disconnected`, and only once.
  func connectionEnded(code: Int32) {
    let wasConnected = state.withLock { state in
      defer { state.connected = false }
      return state.connected
    }
    guard wasConnected else { return }
    if code == 0 {
      logger.info("MQTT disconnected")
    } else {
      // Codes of 0x80 and up are MQTT 5 reason codes from the broker's DISCONNECT; below that
      // they are libmosquitto's own.
      let text = code >= 0x80 ? mosquitto_reason_string(code) : mosquitto_strerror(code)
      logger.warning(
        "MQTT connection lost",
        metadata: [
          "mqtt.code": "\(code)", "mqtt.error": "\(text.map { String(cString: $0) } ?? "")",
        ])
    }
    continuation.yield(.disconnected(code: code))
  }

  // MARK: Subscriptions and messages

  /// Remembers `subscription` (replacing one with the same filter); `true` if it should also be
  /// sent now because a connection is up.
  func remember(_ subscription: Subscription) -> Bool {
    state.withLock { state in
      if let index = state.subscriptions.firstIndex(where: { $0.filter == subscription.filter }) {
        state.subscriptions[index] = subscription
      } else {
        state.subscriptions.append(subscription)
      }
      return state.connected
    }
  }

  /// Forgets a subscription; `true` if an UNSUBSCRIBE should be sent now (it was remembered and
  /// a connection is up).
  func forget(_ filter: String) -> Bool {
    state.withLock { state in
      guard let index = state.subscriptions.firstIndex(where: { $0.filter == filter }) else {
        return false
      }
      state.subscriptions.remove(at: index)
      return state.connected
    }
  }

  /// Remembers a filter to unsubscribe after every connect that finds the session present.
  func drop(_ filter: String) {
    state.withLock { state in
      if !state.dropped.contains(filter) { state.dropped.append(filter) }
    }
  }

  /// Sends a SUBSCRIBE. A missing connection is not an error: the next CONNACK sends it again.
  @discardableResult
  func send(_ subscription: Subscription, on mosquitto: OpaquePointer?) -> Int32 {
    var messageID: Int32 = 0
    let rc = mosquitto_subscribe(mosquitto, &messageID, subscription.filter, subscription.qos)
    if rc == MQTTError.success {
      state.withLock { $0.pendingSubscriptions[messageID] = subscription.filter }
    } else if rc != MOSQ_ERR_NO_CONN.rawValue {
      logger.warning(
        "MQTT subscribe failed",
        metadata: [
          "mqtt.filter": "\(subscription.filter)",
          "mqtt.error": "\(String(cString: mosquitto_strerror(rc)))",
        ])
    }
    return rc
  }

  /// SUBACK callback: a granted QoS of 0x80 or more means the broker refused the filter.
  func subackReceived(messageID: Int32, granted: UnsafeBufferPointer<Int32>) {
    let filter = state.withLock { $0.pendingSubscriptions.removeValue(forKey: messageID) }
    for code in granted where code >= 0x80 {
      logger.warning(
        "MQTT broker refused a subscription",
        metadata: ["mqtt.filter": "\(filter ?? "message id \(messageID)")", "mqtt.code": "\(code)"])
    }
  }

  /// Installs the network-thread receiver; from then on messages are no `.message` events.
  func deliver(to receiver: any MQTTMessageReceiver) {
    self.receiver.withLock { $0 = WeakReceiver(receiver: receiver) }
  }

  func received(_ message: MQTTIncoming) {
    if let slot = receiver.withLock({ $0 }) {
      slot.receiver?.receive(message)
    } else {
      continuation.yield(.message(message.copy()))
    }
  }

  // MARK: Errors

  private var connectOperation: String { "connect to \(endpoint)" }

  private var stoppedError: MQTTError {
    MQTTError(
      operation: connectOperation, code: MOSQ_ERR_NO_CONN.rawValue,
      description: "\(connectOperation) abandoned: the client was disconnected")
  }

  private func timeoutError(after timeout: Duration) -> MQTTError {
    let last = state.withLock { $0.lastFailure }
    let because = last.map { " (last attempt: \($0.description))" } ?? ""
    return MQTTError(
      operation: connectOperation, code: last?.code ?? MOSQ_ERR_TIMEOUT.rawValue,
      description: "\(connectOperation) timed out after \(timeout)\(because)")
  }
}

extension ConnectionState.State {
  fileprivate mutating func makeWaiterID() -> UInt64 {
    nextWaiterID += 1
    return nextWaiterID
  }

  fileprivate mutating func takeConnectWaiters() -> [CheckedContinuation<
    Result<Void, MQTTError>, Never
  >] {
    defer { connectWaiters.removeAll() }
    return Array(connectWaiters.values)
  }
}
