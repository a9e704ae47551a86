import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One run of a child process (the broker, the gateway, mosquitto_rr), with an awaitable exit.
///
/// Spawned with `posix_spawn` rather than Foundation's `Process`: a child inherits the signal mask
/// of the thread that starts it, and the cooperative pool's threads block SIGTERM (and others), so
/// a process started through `Process` from a test ignores SIGTERM and never sees its own alarms.
/// Here the child starts with an empty mask and default handlers.
public final class ChildProcess: Sendable {
  public let pid: pid_t
  private let exit = ExitSignal()
  private let status = Mutex<Int32?>(nil)

  /// - Parameters:
  ///   - input: a file for the child's standard input, else /dev/null.
  ///   - output: a file for the child's standard output, else /dev/null.
  ///   - errors: a file for the child's standard error, else /dev/null.
  ///   - environment: the child's environment, else this process's.
  public init(
    executable: String, arguments: [String], input: String? = nil, output: String? = nil,
    errors: String? = nil, environment: [String: String]? = nil
  ) throws {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, input ?? "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(
      &actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(
      &actions, 2, errors ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)

    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    let variables = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
    defer { for variable in variables ?? [] { free(variable) } }
    var pid: pid_t = 0
    let rc =
      if let variables {
        posix_spawn(&pid, executable, &actions, &attributes, argv, variables)
      } else {
        posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
      }
    guard rc == 0 else {
      throw MosquittoBrokerError(
        message: "posix_spawn \(executable): \(String(cString: strerror(rc)))")
    }
    self.pid = pid
    _ = killChildrenAtExit
    runningChildren.withLock { _ = $0.insert(pid) }
    // Reaps the child; nothing else waits for this pid.
    let thread = Thread { [self, pid] in
      var status: Int32 = 0
      while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
      runningChildren.withLock { _ = $0.remove(pid) }
      // Exit code when it exited, 128 + signal when a signal ended it (as a shell reports it).
      let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
      self.status.withLock { $0 = code }
      self.exit.fire()
    }
    thread.name = "child \(pid) reaper"
    thread.start()
  }

  public var isRunning: Bool { !exit.fired }

  /// The exit status once the process has ended.
  public var exitStatus: Int32? { status.withLock { $0 } }

  public func signal(_ signal: Int32) {
    // The pid stays ours until the reaper has collected it.
    if isRunning { _ = kill(pid, signal) }
  }

  /// `true` once the process has exited, `false` if it still runs after `limit`.
  public func waitForExit(upTo limit: Duration) async -> Bool {
    await exit.wait(upTo: limit)
  }
}

/// The children that have not exited yet. When the test process exits, whatever still runs is
/// killed: a broker or gateway a test kept alive to the end would otherwise outlive the run, hold
/// its port and keep every file descriptor it inherited open.
private let runningChildren = Mutex<Set<pid_t>>([])
private let killChildrenAtExit: Void = {
  atexit {
    for pid in runningChildren.withLock({ $0 }) { kill(pid, SIGKILL) }
  }
}()

/// Fires once; waiters wake when it does or when their time is up.
private final class ExitSignal: Sendable {
  private struct State {
    var fired = false
    var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    var nextID: UInt64 = 0
  }
  private let state = Mutex(State())

  var fired: Bool { state.withLock { $0.fired } }

  func fire() {
    let waiters = state.withLock { state in
      state.fired = true
      defer { state.waiters.removeAll() }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  func wait(upTo limit: Duration) async -> Bool {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    let timer = Task {
      try? await Task.sleep(for: limit)
      state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
    }
    defer { timer.cancel() }
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let fired = state.withLock { state in
        if !state.fired { state.waiters[id] = waiter }
        return state.fired
      }
      if fired { waiter.resume() }
    }
    return fired
  }
}
