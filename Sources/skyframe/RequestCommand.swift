import ArgumentParser
import Foundation
import Logging
import SkyframeCodec
import SkyframeJSON
import SkyframeMQTT

struct RequestCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "request",
    abstract:
      "Ask a running gateway for a place and print the answer: a one-line end-to-end check.",
    discussion: """
      Publishes LOCATION to {base}/v1/req/{device} as a device would and prints every frame that
      comes back on {base}/v1/frame/{device}, one per place. Exits 1 if no complete answer arrives
      in time.
      """
  )

  @Argument(
    help: "What a device would publish: '52.52,13.41', 'Berlin,DE', 'Berlin;Paris', 'refresh'.")
  var location: String

  @Option(help: "The device id to ask as.") var device = "skyframe-cli"
  @Option(help: "The broker's host.") var host = "127.0.0.1"
  @Option(help: "The broker's port.") var port = 1883
  @Option(help: "The gateway's topic base.") var base = "skyframe"
  @Option(help: "Seconds to wait for the answer.") var timeout = 15
  @Flag(help: "Print each frame as JSON.") var json = false

  func run() async throws {
    var logger = Logger(label: "skyframe-request")
    logger.logLevel = .warning
    var configuration = MQTTConfiguration(
      clientID: "skyframe-cli-\(UInt32.random(in: 0...UInt32.max))", host: host, port: port)
    configuration.cleanSession = true
    let client = try MQTTClient(configuration: configuration, logger: logger)
    try client.subscribe("\(base)/v1/frame/\(device)", qos: 1)
    do {
      try await client.connect(timeout: .seconds(timeout))
    } catch {
      await client.disconnect()
      Diagnostics.report("cannot reach the broker at \(host):\(port): \(error)")
      throw ExitCode.failure
    }
    let json = json
    let deadline = ContinuousClock.now + .seconds(timeout)
    let (base, device, location) = (base, device, location)
    let received = await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        var output = FrameOutput(json: json, now: Int(Date().timeIntervalSince1970))
        var published = false
        var expected: Int?
        var seen = 0
        for await event in client.events {
          switch event {
          case .connected:
            guard !published else { continue }
            published = true
            try? client.publish("\(base)/v1/req/\(device)", payload: Array(location.utf8), qos: 1)
          case .message(let message):
            guard output.show(message.payload, label: nil, origin: message.topic) else { continue }
            if let frame = try? WeatherFrame(decoding: message.payload) {
              expected = Int(frame.slotCount)
            }
            seen += 1
            if let expected, seen >= expected { return true }
          case .disconnected:
            continue
          }
        }
        return false
      }
      group.addTask {
        try? await Task.sleep(until: deadline)
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
    await client.disconnect()
    if !received {
      Diagnostics.report(
        "no complete answer within \(timeout) s: is `skyframe run` connected to \(host):\(port)?")
      throw ExitCode.failure
    }
  }
}
