import CMosquitto
import Dispatch
import Logging

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Owns one `struct mosquitto` and the retained callback context it points to; both are released
/// exactly once, in `deinit`. The network thread keeps the handle alive while it runs.
final class MosquittoHandle: Sendable {
  /// libmosquitto is thread safe (other than `mosquitto_lib_init`) and the callbacks are set
  /// once, here, before any thread can run: sharing the pointer is fine.
  nonisolated(unsafe) let pointer: OpaquePointer
  let state: ConnectionState
  let configuration: MQTTConfiguration
  private let context: Unmanaged<ConnectionState>
  /// Cuts the network thread's backoff short when the client stops.
  private let wake = DispatchSemaphore(value: 0)

  init(configuration: MQTTConfiguration, state: ConnectionState) throws(MQTTError) {
    _ = MosquittoLibrary.initialized
    let id = configuration.clientID.isEmpty ? nil : configuration.clientID
    let context = Unmanaged.passRetained(state)
    guard let pointer = mosquitto_new(id, configuration.cleanSession, context.toOpaque()) else {
      let code = errno == EINVAL ? MOSQ_ERR_INVAL.rawValue : MOSQ_ERR_NOMEM.rawValue
      context.release()
      throw MQTTError(operation: "create client '\(configuration.clientID)'", code: code)
    }
    do {
      try Self.configure(pointer, with: configuration)
    } catch {
      mosquitto_destroy(pointer)
      context.release()
      throw error
    }
    self.pointer = pointer
    self.state = state
    self.configuration = configuration
    self.context = context
  }

  deinit {
    mosquitto_destroy(pointer)
    context.release()
  }

  private static func configure(_ pointer: OpaquePointer, with configuration: MQTTConfiguration)
    throws(MQTTError)
  {
    func invalid(_ what: String) -> MQTTError {
      MQTTError(
        operation: "configure", code: MOSQ_ERR_INVAL.rawValue, description: "configure: \(what)")
    }
    guard (1...65_535).contains(configuration.port) else {
      throw invalid("port \(configuration.port) out of range")
    }
    guard (5...65_535).contains(configuration.keepAlive.wholeSeconds) else {
      throw invalid("keepAlive \(configuration.keepAlive) not within 5...65535 s")
    }
    guard configuration.reconnectDelay > .zero,
      configuration.reconnectDelayMax >= configuration.reconnectDelay
    else {
      throw invalid("reconnect delays must be positive, the maximum at least the first")
    }

    let version = configuration.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
    try mosquitto_int_option(pointer, MOSQ_OPT_PROTOCOL_VERSION, version).check(
      "set protocol version")
    // Frames are small and answered at once: without this, Nagle's algorithm holds an answer
    // back until the broker's delayed ACK of the previous packet (~40 ms per request, measured).
    try mosquitto_int_option(pointer, MOSQ_OPT_TCP_NODELAY, 1).check("set TCP_NODELAY")
    // In-flight windows: 0 is "ours imposes none"; the broker's own limit still applies.
    guard (0...65_535).contains(configuration.sendMaximum),
      (0...65_535).contains(configuration.receiveMaximum)
    else { throw invalid("in-flight windows must be 0-65535") }
    try mosquitto_int_option(
      pointer, MOSQ_OPT_SEND_MAXIMUM,
      Int32(configuration.sendMaximum == 0 ? 65_535 : configuration.sendMaximum)
    ).check("set the send maximum")
    try mosquitto_int_option(
      pointer, MOSQ_OPT_RECEIVE_MAXIMUM,
      Int32(configuration.receiveMaximum == 0 ? 65_535 : configuration.receiveMaximum)
    ).check("set the receive maximum")
    // The network thread is ours (mosquitto_loop), so publishes from other threads are only
    // queued and the loop is woken, as with mosquitto_loop_start.
    try mosquitto_threaded_set(pointer, true).check("enable threaded mode")

    if configuration.username != nil || configuration.password != nil {
      try mosquitto_username_pw_set(pointer, configuration.username, configuration.password)
        .check("set username and password")
    }
    if let tls = configuration.tls {
      try mosquitto_tls_set(pointer, tls.caFile, nil, tls.certFile, tls.keyFile, nil).check(
        "set up TLS")
    }
    if let will = configuration.will {
      try will.payload.withBytes { bytes throws(MQTTError) in
        try mosquitto_will_set(
          pointer, will.topic, Int32(clamping: bytes.count), bytes.baseAddress,
          Int32(clamping: will.qos), will.retain
        ).check("set last will on '\(will.topic)'")
      }
    }
    MosquittoCallbacks.install(on: pointer)
  }

  // MARK: Operations for the API

  func subscribe(_ filter: String, qos: Int) throws(MQTTError) {
    let operation = "subscribe to '\(filter)'"
    guard (0...2).contains(qos) else {
      throw MQTTError(
        operation: operation, code: MOSQ_ERR_INVAL.rawValue,
        description: "\(operation): QoS \(qos) is not 0, 1 or 2")
    }
    try mosquitto_sub_topic_check(filter).check(operation)
    let subscription = ConnectionState.Subscription(filter: filter, qos: Int32(qos))
    if state.remember(subscription) {
      let rc = state.send(subscription, on: pointer)
      if rc != MOSQ_ERR_NO_CONN.rawValue { try rc.check(operation) }
    }
  }

  func unsubscribe(_ filter: String) {
    if state.forget(filter) { _ = mosquitto_unsubscribe(pointer, nil, filter) }
  }

  func publish(
    _ topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool,
    responseTopic: String?, correlationData: [UInt8]?, expirySeconds: UInt32? = nil
  ) throws(MQTTError) {
    let operation = "publish to '\(topic)'"
    var properties: OpaquePointer?
    defer { mosquitto_property_free_all(&properties) }
    if configuration.protocolVersion == .v5 {
      if let expirySeconds {
        try mosquitto_property_add_int32(
          &properties, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expirySeconds
        ).check(operation)
      }
      if let responseTopic {
        try mosquitto_property_add_string(
          &properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), responseTopic
        )
        .check(operation)
      }
      if let correlationData {
        guard correlationData.count <= Int(UInt16.max) else {
          throw MQTTError(
            operation: operation, code: MOSQ_ERR_INVAL.rawValue,
            description: "\(operation): correlation data longer than 65535 bytes")
        }
        try correlationData.withBytes { bytes throws(MQTTError) in
          try mosquitto_property_add_binary(
            &properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), bytes.baseAddress,
            UInt16(bytes.count)
          ).check(operation)
        }
      }
    }
    guard let length = Int32(exactly: payload.count) else {
      throw MQTTError(operation: operation, code: MOSQ_ERR_PAYLOAD_SIZE.rawValue)
    }
    try mosquitto_publish_v5(
      pointer, nil, topic, length, payload.baseAddress, Int32(clamping: qos), retain, properties
    ).check(operation)
  }

  /// Asks the network thread to end: queues a clean DISCONNECT (so the broker drops the will)
  /// and interrupts a backoff wait. The thread flushes the DISCONNECT and exits.
  func requestStop() {
    state.beginStop()
    _ = mosquitto_disconnect(pointer)
    wake.signal()
  }

  // MARK: The network thread

  /// Runs on the client's own thread until `requestStop()`: connects, services the socket with
  /// `mosquitto_loop`, reconnects with exponential backoff. Blocking calls are fine here.
  func runNetworkLoop() {
    var delay = configuration.reconnectDelay
    var acceptedBefore = state.acceptedConnections
    var reachedBroker = false
    while !state.isStopping {
      var restarting = false
      let answersBefore = state.beginAttempt()
      MosquittoCallbacks.watchLog(on: pointer)
      let rc = reachedBroker ? mosquitto_reconnect(pointer) : connectFirstTime()
      let connectErrno = errno
      if rc == MQTTError.success {
        reachedBroker = true
        let lost = serviceConnection(answersBefore: answersBefore)
        let lostErrno = errno
        MosquittoCallbacks.unwatchLog(on: pointer)
        if state.isStopping { break }
        if state.answers == answersBefore {
          // Connected, but the broker never answered CONNECT: a TLS handshake that failed late
          // (client certificate), or a listener that speaks something else.
          state.attemptFailed(diagnose(rc: lost, errno: lostErrno))
        }
        state.connectionEnded(code: lost)
        if state.acceptedConnections != acceptedBefore {
          acceptedBefore = state.acceptedConnections
          delay = configuration.reconnectDelay
        }
      } else {
        MosquittoCallbacks.unwatchLog(on: pointer)
        let error = diagnose(rc: rc, errno: connectErrno)
        state.attemptFailed(error)
        // A broker that was there and now refuses the TCP connection is restarting: it is tried
        // again every `reconnectDelay` (1 s), so the gateway is back within a second of it, and
        // the requests queued for it meanwhile are answered. A broker that answers and refuses
        // (a password, TLS), or was never reached, is tried ever less often.
        restarting =
          state.acceptedConnections > 0 && rc == MOSQ_ERR_ERRNO.rawValue
          && Self.isRestarting(errno: connectErrno)
        if restarting { delay = configuration.reconnectDelay }
        state.logger.debug(
          "MQTT connect attempt failed",
          metadata: ["mqtt.error": "\(error)", "mqtt.retry_in": "\(delay)"])
      }
      _ = wake.wait(timeout: .now() + .nanoseconds(Int(clamping: delay.clampedNanoseconds)))
      if !restarting { delay = min(delay * 2, configuration.reconnectDelayMax) }
    }
    flushDisconnect()
    state.networkThreadExited()
  }

  /// Whether a failed TCP connect says the broker's host is there but nothing listens (yet):
  /// refused or reset, as while a broker restarts.
  static func isRestarting(errno code: Int32) -> Bool {
    code == ECONNREFUSED || code == ECONNRESET
  }

  /// Until the first TCP connection: `mosquitto_connect_bind_v5` stores host, port and the CONNECT
  /// properties, which `mosquitto_reconnect` sends again (verified with libmosquitto 2.0.11).
  /// It also recreates libmosquitto's wake-up socket pair, so it is not used once other threads
  /// may be queueing packets.
  private func connectFirstTime() -> Int32 {
    var properties: OpaquePointer?
    defer { mosquitto_property_free_all(&properties) }
    if configuration.protocolVersion == .v5, !configuration.cleanSession {
      // Without it an MQTT 5 session ends with the connection, whatever clean start says.
      let expiry = UInt32(clamping: configuration.sessionExpiry.wholeSeconds)
      let rc = mosquitto_property_add_int32(
        &properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), expiry)
      guard rc == MQTTError.success else { return rc }
    }
    return mosquitto_connect_bind_v5(
      pointer, configuration.host, Int32(configuration.port),
      Int32(configuration.keepAlive.wholeSeconds), nil,
      properties)
  }

  /// Reads, writes and keeps alive until the connection fails or the client stops. Stops
  /// watching libmosquitto's log once the broker has answered CONNECT.
  private func serviceConnection(answersBefore: Int) -> Int32 {
    var rc = MQTTError.success
    var watching = true
    while rc == MQTTError.success, !state.isStopping {
      // One packet per select at QoS 0, as libmosquitto's own loop. Every packet queued (each
      // answer) writes a byte to libmosquitto's wake-up socket pair and a `mosquitto_loop` reads
      // one back: reading more packets between selects leaves bytes behind, the pair fills, and
      // the thread spins through selects that return at once instead of sleeping (issue 43).
      rc = mosquitto_loop(pointer, 500, 1)
      if watching, state.answers != answersBefore {
        MosquittoCallbacks.unwatchLog(on: pointer)
        watching = false
      }
    }
    return rc
  }

  /// Why an attempt failed: `rc` and `errno` from libmosquitto, what its log said, and, when
  /// the log says nothing, one look at what the port speaks.
  private func diagnose(rc: Int32, errno: Int32) -> MQTTError {
    let clues = state.takeClues()
    var problem: ConnectionProblem?
    if let tls = configuration.tls {
      if clues.endedInHandshake, !clues.hostNameMismatch, clues.verifyResult == nil {
        problem =
          ListenerProbe.answersPlainMQTT(host: configuration.host, port: configuration.port)
          ? .tlsAgainstPlainListener : .tls("the broker closed the connection in the handshake")
      } else if clues.brokerRefusedCertificate
        || (rc == MOSQ_ERR_ERRNO.rawValue && errno == EPROTO && clues.isEmpty)
      {
        // TLS 1.3 servers check the client's certificate after the client's side of the
        // handshake is done: an alert at the first read, or (blocking connect) only EPROTO.
        problem = tls.certFile == nil ? .clientCertificateRequired : .clientCertificateRefused
      } else if let found = clues.problem {
        problem = found
      } else if rc == MOSQ_ERR_TLS.rawValue {
        problem = .tls("no reason given by OpenSSL")
      }
    } else if rc == MOSQ_ERR_CONN_LOST.rawValue
      || (rc == MOSQ_ERR_ERRNO.rawValue && [ECONNRESET, EPIPE].contains(errno)),
      ListenerProbe.answersTLS(host: configuration.host, port: configuration.port)
    {
      problem = .plainAgainstTLSListener
    }
    return MQTTError(
      connectingTo: state.endpoint, code: rc, errno: errno, problem: problem,
      configuration: configuration)
  }

  /// Writes a DISCONNECT if a socket is still open; bounded, so a dead peer cannot hold us.
  private func flushDisconnect() {
    guard mosquitto_disconnect(pointer) == MQTTError.success else { return }
    for _ in 0..<20 {
      guard mosquitto_loop(pointer, 50, 1) == MQTTError.success else { return }
    }
  }
}

extension Duration {
  /// Whole seconds, rounded up: a keepalive or expiry is never shorter than asked.
  var wholeSeconds: Int {
    let (seconds, attoseconds) = components
    return Int(seconds) + (attoseconds > 0 ? 1 : 0)
  }

  var clampedNanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
      ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
