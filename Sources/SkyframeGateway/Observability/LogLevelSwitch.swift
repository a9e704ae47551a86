import Logging
import Synchronization

/// The gateway's log level, one for the whole process, changed by a reloaded `log.level`: every
/// logger whose handler is a `SwitchedLogHandler` reads it at each line.
public final class LogLevelSwitch: Sendable {
  /// The process's switch: `skyframe run` wraps its handlers around it.
  public static let shared = LogLevelSwitch(.info)

  private let raw: Atomic<UInt8>

  public init(_ level: Logger.Level) {
    raw = Atomic(Self.number(level))
  }

  public var level: Logger.Level {
    get { Logger.Level.allCases[Int(raw.load(ordering: .relaxed))] }
    set { raw.store(Self.number(newValue), ordering: .relaxed) }
  }

  private static func number(_ level: Logger.Level) -> UInt8 {
    UInt8(Logger.Level.allCases.firstIndex(of: level) ?? 2)
  }
}

/// A log handler whose level is the switch's: lines below it are not written, whatever level the
/// logger was made with.
public struct SwitchedLogHandler<Inner: LogHandler>: LogHandler {
  public var inner: Inner
  public let levelSwitch: LogLevelSwitch

  public init(_ inner: Inner, levelSwitch: LogLevelSwitch = .shared) {
    self.inner = inner
    self.levelSwitch = levelSwitch
  }

  public var logLevel: Logger.Level {
    get { levelSwitch.level }
    set { levelSwitch.level = newValue }
  }

  public var metadataProvider: Logger.MetadataProvider? {
    get { inner.metadataProvider }
    set { inner.metadataProvider = newValue }
  }

  public var metadata: Logger.Metadata {
    get { inner.metadata }
    set { inner.metadata = newValue }
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { inner[metadataKey: key] }
    set { inner[metadataKey: key] = newValue }
  }

  public func log(event: LogEvent) {
    inner.log(event: event)
  }
}
