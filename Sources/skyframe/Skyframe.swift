import ArgumentParser

@main
struct Skyframe: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "skyframe",
    abstract: "Weather for small displays: fixed 192-byte frames over MQTT.",
    subcommands: [
      RunCommand.self, ConfigCommand.self, RequestCommand.self, DecodeCommand.self,
      EncodeCommand.self,
    ]
  )
}
