// The HTTP library's own ceiling for `make load-http`: Hummingbird, as the gateway's listener
// uses it, answering GET /frame with 192 fixed bytes and nothing else. Between nginx and the
// gateway in the same run, it tells what of the gap is the library's and what is the gateway's.
// A package of its own, so that the bench suite's plugin does not take it for a benchmark.
//
//   HTTPBaseline PORT
import Foundation
import Hummingbird
import Logging

guard CommandLine.arguments.count == 2, let port = Int(CommandLine.arguments[1]) else {
  print("usage: HTTPBaseline PORT")
  exit(2)
}
let body = ByteBuffer(repeating: 0x5A, count: 192)
let router = Router()
router.get("/frame") { _, _ in
  Response(
    status: .ok, headers: [.contentType: "application/octet-stream"],
    body: ResponseBody(byteBuffer: body))
}
var logger = Logger(label: "http-baseline")
logger.logLevel = .warning
let application = Application(
  router: router,
  configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: port)),
  logger: logger)
try await application.runService()
