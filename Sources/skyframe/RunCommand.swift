import ArgumentParser
import Logging
import SkyframeAssembly
import SkyframeGateway

struct RunCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "run",
    abstract: "Run the gateway: device requests in over MQTT, weather frames out.",
    // One line per paragraph: the help wraps it to the terminal, never mid-sentence.
    discussion: """
      Every key of the file can be overridden by an environment variable named SKYFRAME_ + the \
      key in upper case with '.' and '-' as '_' (mqtt.host → SKYFRAME_MQTT_HOST).

      SIGHUP reloads the whole file without dropping the broker connection; the keys bound at \
      start keep their running value until a restart (`skyframe config describe` lists them, \
      last), and the log names each such key that changed. SIGTERM and SIGINT stop gracefully.
      """
  )

  @Option(name: .long, help: "The YAML configuration file (see config/skyframe.example.yaml).")
  var config: String

  func run() async throws {
    let configuration = try await ConfigLoading.load(config)
    let logger = Logging.bootstrap(level: configuration.logLevel)
    logger.info(
      "starting",
      metadata: [
        "broker": "\(configuration.mqtt.host):\(configuration.mqtt.port)",
        "requests": "\(configuration.requestFilter)",
        "instance": "\(configuration.cluster.resolvedInstanceID() ?? "alone")",
        "request-connections": "\(configuration.mqtt.requestConnections)",
        "locations": "\(configuration.locations.count)",
      ])
    try await SkyframeApplication.run(
      configuration: configuration, configurationPath: config, logger: logger)
  }
}

struct ConfigCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "config", abstract: "Work with the configuration file.",
    subcommands: [Check.self, Describe.self])

  struct Describe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Print every configuration key the gateway reads, what it takes and its default (the page docs/operators/configuration-reference.md)."
    )

    func run() async throws {
      print(try await GatewayConfiguration.referenceMarkdown(parts: PartKind.all), terminator: "")
    }
  }

  struct Check: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract:
        "Check the configuration and print it resolved (file + environment), secrets redacted.")

    @Option(name: .long, help: "The YAML configuration file.")
    var config: String

    func run() async throws {
      let configuration = try await ConfigLoading.load(config)
      print(configuration.redactedDescription)
      // Said last, as a YAML comment: the output stays a configuration a person can read back.
      print("# \(config) is valid: the gateway would run with the values above")
    }
  }
}

enum ConfigLoading {
  /// The checked configuration, or every problem on standard error and exit status 1.
  static func load(_ path: String) async throws -> GatewayConfiguration {
    do {
      return try await GatewayConfiguration.load(path: path, parts: PartKind.all) { warning in
        Diagnostics.report("configuration: warning: \(warning)")
      }
    } catch {
      for problem in error.errors { Diagnostics.report("configuration: \(problem)") }
      throw ExitCode.failure
    }
  }
}

enum Logging {
  /// Log lines go to standard error at the configured level; returns the gateway's logger.
  static func bootstrap(level: String) -> Logger {
    // One level for every logger, read at each line: a reloaded log.level changes it
    // (LogLevelSwitch).
    LogLevelSwitch.shared.level = Logger.Level(rawValue: level) ?? .info
    LoggingSystem.bootstrap { label in
      SwitchedLogHandler(StreamLogHandler.standardError(label: label))
    }
    return Logger(label: "skyframe")
  }
}
