/// A configuration value the gateway cannot run with, named by its key, the environment variable
/// that overrides it, the value, and what is allowed; or a key in the file that means nothing,
/// named with where it is and the key it probably stands for.
public struct ConfigurationError: Error, Equatable, CustomStringConvertible {
  public var key: String
  /// The value as given, or nil when the key is missing or the value is secret.
  public var value: String?
  public var allowed: String
  /// For an unknown key: the file and line it is on.
  public var location: String?
  /// For an unknown key: the closest known key, or why it is unknown.
  public var hint: String?
  /// What is wrong with a value that is of the right kind, such as a file that holds no
  /// certificate; shown instead of `allowed`.
  public var problem: String?

  public init(key: String, value: String?, allowed: String) {
    self.key = key
    self.value = value
    self.allowed = allowed
  }

  /// A value of the right kind that cannot be used: `'/x.pem' holds no certificate`.
  public init(key: String, value: String, problem: String) {
    self.key = key
    self.value = value
    self.allowed = ""
    self.problem = problem
  }

  /// A key that the gateway does not read.
  public init(unknownKey key: String, at location: String, hint: String?) {
    self.key = key
    self.value = nil
    self.allowed = ""
    self.location = location
    self.hint = hint
  }

  /// A value of the wrong shape (a list where one value is read, and so on), with where it is.
  public init(key: String, shape: String, expected: String, at location: String) {
    self.key = key
    self.value = nil
    self.allowed = expected
    self.problem = nil
    self.shape = shape
    self.shapeLocation = location
  }

  /// For a value of the wrong shape: what was given (`a list`), and the file and line.
  public var shape: String?
  public var shapeLocation: String?

  public var isUnknownKey: Bool { location != nil }

  /// `SKYFRAME_` and the key in upper case with `.` and `-` as `_`.
  public static func environmentName(of key: String) -> String {
    "SKYFRAME_" + String(key.uppercased().map { $0 == "." || $0 == "-" ? "_" : $0 })
  }

  public var description: String {
    if let location {
      return "\(key): unknown key" + (hint.map { "; \($0)" } ?? "") + " (\(location))"
    }
    // A command-line option (`--config`) has no environment variable.
    let name = key.hasPrefix("--") ? key : "\(key) (env \(Self.environmentName(of: key)))"
    if let shape {
      return "\(name): \(shape) is not allowed; expected \(allowed)"
        + (shapeLocation.map { " (\($0))" } ?? "")
    }
    let shown = value.map { "'\($0)'" } ?? "nothing"
    if let problem { return "\(name): \(shown) \(problem)" }
    return "\(name): \(shown) is not allowed; expected \(allowed)"
  }
}

/// All the problems found in one configuration, so a person fixes them in one go.
public struct ConfigurationErrors: Error, CustomStringConvertible {
  public var errors: [ConfigurationError]

  public var description: String {
    errors.map(\.description).joined(separator: "\n")
  }
}
