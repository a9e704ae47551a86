import AsyncHTTPClient
import Logging
import ServiceLifecycle
import SkyframeProviders
import Synchronization

/// When Open-Meteo has something new: the latest run of each model in `runs.models`, read from
/// its metadata every `runs.poll-seconds` (calls that do not count toward the limits), so that a
/// cell is fetched again when a newer run can be asked for, not at every time-to-live.
///
/// The desk reads one number on every hit: `gate()`, the latest moment a run became usable
/// (available plus `runs.margin-seconds`) that has passed. A frame whose fetch began at or after
/// that moment holds the run; it is fresh until the gate passes its start. The gate moves exactly
/// when a pending run's margin ends (the service sleeps until then on the gateway's clock).
final class ModelRuns: Service, Sendable {
  /// `gate()` when no model is configured: frames follow the time-to-live.
  static let off: Int64 = -2
  /// `gate()` while the metadata cannot be read (no model read within three polls): frames
  /// fetched under the gate stay fresh until `runs.maximum-age-seconds`.
  static let unknown: Int64 = -1

  struct Model: Sendable {
    var name: String
    var run: OpenMeteoModelRun?
    /// When this gateway first saw `run`.
    var seenAt: Int64?
    var lastRead: Int64?
    var lastError: String?
    var lastErrorAt: Int64?
  }

  private struct State {
    var settings: GatewayConfiguration.Runs
    var models: [Model]
  }

  private let state: Mutex<State>
  private let gateValue = Atomic<Int64>(ModelRuns.off)
  /// The earliest moment a newer run is expected to be usable (for `next_update`); 0: unknown.
  private let expectedValue = Atomic<Int64>(0)
  /// The start (initialisation) of the newest usable run of any model; 0: none known.
  private let newestValue = Atomic<Int64>(0)
  private let httpClient: HTTPClient
  private let clock: GatewayClock
  private let logger: Logger

  init(
    settings: GatewayConfiguration.Runs, httpClient: HTTPClient, clock: GatewayClock,
    logger: Logger
  ) {
    state = Mutex(State(settings: settings, models: settings.models.map { Model(name: $0) }))
    self.httpClient = httpClient
    self.clock = clock
    self.logger = logger
    if settings.isEnabled { gateValue.store(Self.unknown, ordering: .relaxed) }
  }

  /// The latest usable run's start of use that has passed; `off` or `unknown`.
  func gate() -> Int64 { gateValue.load(ordering: .relaxed) }

  /// When a newer run is expected to be usable; nil when not known.
  func expectedNext() -> Int64? {
    let value = expectedValue.load(ordering: .relaxed)
    return value > 0 ? value : nil
  }

  /// The start (initialisation, `06Z`) of the newest run of any model that is usable now: what a
  /// frame fetched now holds at the newest; nil when none is known.
  func newestRun() -> Int64? {
    let value = newestValue.load(ordering: .relaxed)
    return value > 0 ? value : nil
  }

  /// The models and what was last read of each.
  var models: [Model] { state.withLock { $0.models } }

  /// A reload: models added are read at the next poll (within `runs.poll-seconds`).
  func update(_ settings: GatewayConfiguration.Runs) {
    state.withLock { state in
      state.models = settings.models.map { name in
        state.models.first { $0.name == name } ?? Model(name: name)
      }
      state.settings = settings
    }
    recompute(at: clock.unixTime())
  }

  func run() async {
    await cancelWhenGracefulShutdown { await self.poll() }
  }

  private func poll() async {
    while !Task.isCancelled {
      let (settings, names) = state.withLock { ($0.settings, $0.models.map(\.name)) }
      for name in names {
        await read(name, settings: settings)
      }
      // Both readings at once: the deadline is absolute, so time that passes before the sleep
      // begins is not slept again.
      let (reading, now) = (clock.now, clock.unixTime())
      recompute(at: now)
      // Until the next poll, or until a pending run's margin ends if that comes first.
      var wake = now + Int64(settings.pollSeconds)
      if let pending = pendingUsable(after: now) { wake = min(wake, pending) }
      do {
        try await clock.sleep(until: reading + .seconds(max(1, wake - now)))
      } catch {
        return
      }
      // The margin of a run read before may have ended: the gate moves now, then the poll.
      recompute(at: clock.unixTime())
    }
  }

  private func read(_ name: String, settings: GatewayConfiguration.Runs) async {
    let result: Result<OpenMeteoModelRun, ProviderError>
    do {
      result = .success(
        try await OpenMeteoModelRun.fetch(
          model: name, baseURL: settings.url, httpClient: httpClient, timeout: .seconds(10),
          clock: clock.providerClock, logger: logger))
    } catch {
      result = .failure(error)
    }
    let (newRun, firstError) = record(name, result, at: clock.unixTime())
    if let newRun {
      logger.info(
        "model run seen",
        metadata: [
          "model": "\(name)", "run": "\(newRun.initialisation)",
          "available": "\(newRun.availability)",
        ])
    }
    if let firstError {
      logger.warning(
        "model metadata could not be read (cells keep their frames up to runs.maximum-age-seconds)",
        metadata: ["model": "\(name)", "error": "\(firstError)"])
    }
  }

  /// What a read of `name`'s metadata at `now` gave: returns the run when it is new, and the
  /// error when it is the first of a series. (The simulated day calls it with its own runs.)
  @discardableResult
  func record(_ name: String, _ result: Result<OpenMeteoModelRun, ProviderError>, at now: Int64)
    -> (OpenMeteoModelRun?, String?)
  {
    state.withLock { state -> (OpenMeteoModelRun?, String?) in
      guard let index = state.models.firstIndex(where: { $0.name == name }) else {
        return (nil, nil)
      }
      switch result {
      case .success(let run):
        state.models[index].lastRead = now
        state.models[index].lastError = nil
        state.models[index].lastErrorAt = nil
        // An older run than the one known (a server not yet consistent): the known one stays.
        if let known = state.models[index].run, run.initialisation <= known.initialisation {
          return (nil, nil)
        }
        state.models[index].seenAt = now
        state.models[index].run = run
        return (run, nil)
      case .failure(let error):
        let first = state.models[index].lastError == nil
        state.models[index].lastError = "\(error)"
        state.models[index].lastErrorAt = now
        return (nil, first ? "\(error)" : nil)
      }
    }
  }

  /// Sets the gate and the expected next run from what is known at `now`: over the models read
  /// lately (a model never read, or not for three polls, says nothing; when none was, the gate is
  /// `unknown`). Stored under the lock, so that a reload and the poll cannot publish each
  /// other's halves.
  func recompute(at now: Int64) {
    state.withLock { state in
      guard state.settings.isEnabled else {
        gateValue.store(Self.off, ordering: .relaxed)
        expectedValue.store(0, ordering: .relaxed)
        newestValue.store(0, ordering: .relaxed)
        return
      }
      let margin = Int64(state.settings.marginSeconds)
      // Three polls, and the time one poll's reads may take (10 s each, one after another).
      let patience = 3 * Int64(state.settings.pollSeconds) + 10 * Int64(state.models.count)
      var gate = Self.unknown
      var expected: Int64 = 0
      var newest: Int64 = 0
      for model in state.models {
        guard let run = model.run, let lastRead = model.lastRead, now - lastRead <= patience
        else { continue }
        let usable = run.availability + margin
        // The run after this one, or this one when its margin has not passed; one already due
        // but not seen (a late run) says nothing of when.
        let next = usable <= now ? usable + run.updateInterval : usable
        if usable <= now {
          gate = max(gate, usable)
          newest = max(newest, run.initialisation)
        }
        if next > now { expected = expected == 0 ? next : min(expected, next) }
      }
      gateValue.store(gate, ordering: .relaxed)
      expectedValue.store(expected, ordering: .relaxed)
      newestValue.store(newest, ordering: .relaxed)
    }
  }

  /// The earliest time after `now` when a read run becomes usable.
  private func pendingUsable(after now: Int64) -> Int64? {
    state.withLock { state in
      let margin = Int64(state.settings.marginSeconds)
      return state.models.compactMap { $0.run.map { $0.availability + margin } }
        .filter { $0 > now }.min()
    }
  }
}
