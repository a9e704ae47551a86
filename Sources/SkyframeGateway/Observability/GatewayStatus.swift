import CoreMetrics
import Foundation
import SkyframeMQTT
import SkyframeProviders
import Synchronization

/// How the gateway is doing, in one document: what `/health` answers and what goes retained to
/// `{base}/v1/gateway/stats`. Times are Unix seconds.
package struct GatewayStatus: Codable, Sendable {
  struct Broker: Codable, Sendable {
    var connected: Bool
    var reconnects: Int
    /// While disconnected: why the last attempt failed, in the words of the log (a TLS
    /// problem names the key to change).
    var lastError: String?
  }

  struct Service: Codable, Sendable {
    var name: String
    var lastSuccess: Int64?
    var lastError: String?
    var lastErrorAt: Int64?
    /// Calls left in this minute and today; nil: no limit.
    var budgetLeftMinute: Int?
    var budgetLeftDay: Int?
    /// `closed`, `open` (no calls until `breaker_open_until`) or `half_open` (a probe is out).
    var breaker: String
    var breakerOpenUntil: Int64?
    var consecutiveFailures: Int
  }

  struct Queue: Codable, Sendable {
    var depth: Int
    var limit: Int
    var dropped: Int
  }

  struct Cache: Codable, Sendable {
    var frames: Int
    var names: Int
    var places: Int
    var hits: Int
    var misses: Int
    var stale: Int
  }

  /// A LoRaWAN network server connection (`lorawan.servers`).
  package struct NetworkServer: Codable, Sendable {
    var name: String
    var kind: String
    var connected: Bool
    /// While disconnected: why the last attempt failed.
    var lastError: String?
    /// In a cluster, the member that holds the connection (one at a time).
    var heldBy: String?

    package init(
      name: String, kind: String, connected: Bool, lastError: String?, heldBy: String?
    ) {
      self.name = name
      self.kind = kind
      self.connected = connected
      self.lastError = lastError
      self.heldBy = heldBy
    }
  }

  struct Upstream: Codable, Sendable {
    var calls: Int
    var failures: Int
    var refusedNewCells: Int
    /// Calls not sent because a breaker was open.
    var paused: Int
    /// Cells kept past their time-to-live because no model had a newer run (`runs`): calls
    /// saved, once per cell per time-to-live.
    var skippedSameRun: Int
  }

  /// A model whose runs decide when cells are fetched again (`runs.models`).
  struct ModelRun: Codable, Sendable {
    var model: String
    /// The latest run's start (its "00Z"), when it became available, and when this gateway saw
    /// it; absent until the metadata was read.
    var run: Int64?
    var availableAt: Int64?
    var seenAt: Int64?
    /// The last time the metadata was read, and the last failure to read it.
    var readAt: Int64?
    var lastError: String?
    var lastErrorAt: Int64?
  }

  var healthy: Bool
  var time: Int64
  var uptimeSeconds: Int64
  var broker: Broker
  var services: [Service]
  /// Frames sent in answer to requests, by status.
  var answers: [String: Int]
  /// Answers of any status in the last minute or so (`AnswerRate`); `null` just after the start
  /// (always written, so that readers such as Home Assistant's templates find the key).
  var answersPerMinute: AlwaysWritten<Int>
  var queue: Queue
  var cache: Cache
  var upstream: Upstream
  /// The models in `runs.models` and their latest runs; absent without any.
  var models: [ModelRun]?
  var devices: Int
  var watches: Int
  var publishFailures: Int
  /// Requests whose MQTT v5 response topic was refused.
  var responseTopicsRefused: Int
  /// Requests left unanswered: their device was over its limit and already told so this minute.
  var unansweredOverLimit: Int
  /// The LoRaWAN network server connections; absent without any.
  package var lorawan: [NetworkServer]?

  func json() -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys]
    return (try? encoder.encode(self)).map { [UInt8]($0) } ?? Array("{}".utf8)
  }
}

/// An optional value written as `null` when absent, where synthesized coding would leave the key
/// out.
struct AlwaysWritten<Value: Codable & Sendable>: Codable, Sendable {
  var value: Value?

  init(_ value: Value?) { self.value = value }

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    value = container.decodeNil() ? nil : try container.decode(Value.self)
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    if let value { try container.encode(value) } else { try container.encodeNil() }
  }
}

extension Gateway {
  /// The status now; also brings the budget gauges up to date for a scrape.
  func status() -> GatewayStatus {
    let totals = metrics.snapshot
    let entries = desk.entries
    let services = self.services.status.map { service in
      service.health.report(service.budget, service.breaker)
      let record = service.health.current
      let remaining = service.budget.remaining
      let breaker = service.breaker.current
      let openUntil: Int64? =
        breaker.position == .open
        ? clock.unixTime() + max(0, (breaker.openUntil - clock.now).components.seconds) : nil
      return GatewayStatus.Service(
        name: service.name, lastSuccess: record.lastSuccess, lastError: record.lastError,
        lastErrorAt: record.lastErrorAt, budgetLeftMinute: remaining.minute,
        budgetLeftDay: remaining.day, breaker: breaker.position.rawValue,
        breakerOpenUntil: openUntil, consecutiveFailures: breaker.failures)
    }
    let depth = queue.depth
    metrics.queueDepth.record(depth)
    var status = GatewayStatus(
      healthy: isConnected, time: clock.unixTime(),
      uptimeSeconds: clock.now.components.seconds,
      broker: GatewayStatus.Broker(
        connected: isConnected, reconnects: totals.reconnects,
        lastError: isConnected ? nil : client.lastFailure?.description),
      services: services, answers: GatewayMetrics.byName(totals.answers),
      answersPerMinute: AlwaysWritten(
        answerRate.perMinute(total: totals.answers.reduce(0, +), at: clock.unixTime())),
      queue: GatewayStatus.Queue(depth: depth, limit: queue.limit, dropped: totals.queueDropped),
      cache: GatewayStatus.Cache(
        frames: entries.frames, names: entries.names, places: entries.places,
        hits: totals.cacheHits, misses: totals.cacheMisses, stale: totals.cacheStale),
      upstream: GatewayStatus.Upstream(
        calls: totals.upstreamCalls, failures: totals.upstreamFailures,
        refusedNewCells: totals.upstreamRefused, paused: totals.upstreamPaused,
        skippedSameRun: totals.savedSameRun),
      models: modelRunStatus(),
      devices: intake.rememberedDevices, watches: 0,
      publishFailures: totals.publishFailures, responseTopicsRefused: totals.responseTopicsRefused,
      unansweredOverLimit: totals.unansweredOverLimit, lorawan: nil)
    for part in parts { part.report(into: &status) }
    return status
  }
}

extension Gateway {
  func modelRunStatus() -> [GatewayStatus.ModelRun]? {
    let models = services.modelRuns.models
    guard !models.isEmpty else { return nil }
    return models.map { model in
      GatewayStatus.ModelRun(
        model: model.name, run: model.run?.initialisation, availableAt: model.run?.availability,
        seenAt: model.seenAt, readAt: model.lastRead, lastError: model.lastError,
        lastErrorAt: model.lastErrorAt)
    }
  }
}

extension Gateway {
  /// What the status page shows now.
  func statusSnapshot() -> StatusPage.Snapshot {
    StatusPage.Snapshot(
      status: status(), displays: board.entries, members: members?.live,
      instance: configuration.withLock { $0.mqttConfiguration.clientID })
  }
}
