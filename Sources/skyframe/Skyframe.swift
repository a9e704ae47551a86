import ArgumentParser
import SkyframeGateway

@main
struct Skyframe: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "skyframe",
    abstract: "Weather for small displays: fixed 192-byte frames over MQTT.",
    version: SkyframeVersion.current,
    subcommands: [
      RunCommand.self, ConfigCommand.self, RequestCommand.self, DecodeCommand.self,
      EncodeCommand.self,
    ]
  )
}
