import Foundation
import SkyframeCodec

/// The status page on the metrics listener (`GET /`): the gateway's state, each service with its
/// breaker, budget and last error, cache and queue figures, the cluster's members, and every
/// named place and watched place drawn as its displays show it (`/display/{path}.png`, by the
/// virtual display's renderer). Server-rendered HTML with its style and one small script inline
/// and nothing from elsewhere; the script fetches `/status/live` every few seconds and swaps it
/// in, so the page follows the gateway without reloading. Read-only; it shows what `/health`
/// shows, never a secret.
enum StatusPage {
  /// Seconds between the page's refreshes.
  static let refreshSeconds = 3

  struct Snapshot {
    var status: GatewayStatus
    var displays: [DisplayBoard.Entry]
    /// The cluster's live members; nil alone.
    var members: [String]?
    var instance: String
  }

  static func page(_ snapshot: Snapshot) -> [UInt8] {
    Array(
      """
      <!doctype html>
      <html lang="en">
      <head>
      <meta charset="utf-8">
      <meta name="viewport" content="width=device-width, initial-scale=1">
      <title>Skyframe \(escaped(snapshot.instance))</title>
      <style>
      body { font: 15px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d1d1f; background: #f5f5f7; }
      h1 { font-size: 1.4em; margin: 0 0 .2em; } h2 { font-size: 1.1em; margin: 1.4em 0 .5em; }
      table { border-collapse: collapse; background: #fff; }
      th, td { text-align: left; padding: .3em .8em; border-bottom: 1px solid #ddd; vertical-align: top; }
      .ok { color: #137333; } .bad { color: #b3261e; } .warn { color: #a56300; }
      .displays { display: flex; flex-wrap: wrap; gap: 1em; }
      .display { background: #fff; padding: .6em; border: 1px solid #ddd; border-radius: 6px; }
      .display img { display: block; image-rendering: pixelated; border: 1px solid #999; }
      .figures span { margin-right: 1.5em; }
      .muted { color: #6e6e73; font-size: .9em; }
      </style>
      </head>
      <body>
      <div id="live">
      \(live(snapshot))
      </div>
      <script>
      setInterval(async () => {
        try {
          const answer = await fetch("/status/live", { cache: "no-store" });
          if (answer.ok) document.getElementById("live").innerHTML = await answer.text();
        } catch (e) {
          document.getElementById("state").textContent = "gateway not reachable";
          document.getElementById("state").className = "bad";
        }
      }, \(refreshSeconds * 1_000));
      </script>
      </body>
      </html>

      """.utf8)
  }

  /// The part of the page that changes: swapped in whole by the page's script.
  static func live(_ snapshot: Snapshot) -> String {
    let status = snapshot.status
    var html = """
      <h1>Skyframe gateway <span class="muted">\(escaped(snapshot.instance))</span></h1>
      <div class="figures">
      <span id="state" class="\(status.broker.connected ? "ok" : "bad")">\(status.broker.connected ? "connected to the broker" : "not connected to the broker" + (status.broker.lastError.map { ": " + escaped($0) } ?? ""))</span>
      <span>up \(duration(status.uptimeSeconds))</span>
      <span>answers per minute: <b data-field="answers-per-minute">\(status.answersPerMinute.value.map(String.init) ?? "–")</b></span>
      <span>devices: \(status.devices)</span>
      <span>watches: \(status.watches)</span>
      </div>
      <h2>Services</h2>
      <table>
      <tr><th>Service</th><th>Breaker</th><th>Budget left (minute / day)</th><th>Last success</th><th>Last error</th></tr>

      """
    for service in status.services {
      let breakerClass =
        switch service.breaker {
        case "closed": "ok"
        case "half_open": "warn"
        default: "bad"
        }
      let breaker =
        service.breaker == "open"
        ? "open" + (service.breakerOpenUntil.map { " until \(clock($0))" } ?? "")
        : service.breaker.replacingOccurrences(of: "_", with: " ")
      html += """
        <tr data-service="\(escaped(service.name))"><td>\(escaped(service.name))</td>\
        <td class="breaker \(breakerClass)">\(breaker)</td>\
        <td>\(service.budgetLeftMinute.map(String.init) ?? "no limit") / \(service.budgetLeftDay.map(String.init) ?? "no limit")</td>\
        <td>\(service.lastSuccess.map(clock) ?? "–")</td>\
        <td>\(service.lastError.map { escaped($0) + (service.lastErrorAt.map { " (\(clock($0)))" } ?? "") } ?? "–")</td></tr>

        """
    }
    html += "</table>\n"
    if let models = status.models { html += modelRuns(models) }
    html += """
      <h2>Cache and queue</h2>
      <div class="figures">
      <span>frames cached: \(status.cache.frames)</span>
      <span>hits: \(status.cache.hits)</span>
      <span>misses: \(status.cache.misses)</span>
      <span>served stale: \(status.cache.stale)</span>
      <span>queue: \(status.queue.depth) of \(status.queue.limit) (\(status.queue.dropped) refused)</span>
      <span>upstream calls: \(status.upstream.calls) (\(status.upstream.failures) failed)</span>
      <span>calls saved (same model run): \(status.upstream.skippedSameRun)</span>
      </div>

      """
    if let members = snapshot.members {
      html += "<h2>Cluster</h2>\n<div class=\"figures\">"
      html += members.map { "<span>\(escaped($0))</span>" }.joined()
      html += "</div>\n"
    }
    html += "<h2>Displays</h2>\n"
    if snapshot.displays.isEmpty {
      html += "<p class=\"muted\">No named place or watch has been published yet.</p>\n"
    }
    html += "<div class=\"displays\">\n"
    for entry in snapshot.displays { html += display(entry) }
    html += "</div>\n"
    html += "<p class=\"muted\">\(clock(status.time)) UTC · refreshed every \(refreshSeconds) s · "
    html += "<a href=\"/health\">/health</a> · <a href=\"/metrics\">/metrics</a></p>\n"
    return html
  }

  /// The models behind the Open-Meteo cells and their latest runs (`runs.models`).
  private static func modelRuns(_ models: [GatewayStatus.ModelRun]) -> String {
    var html = """
      <h2>Model runs</h2>
      <table>
      <tr><th>Model</th><th>Latest run</th><th>Available</th><th>Seen</th><th>Last error</th></tr>

      """
    for model in models {
      html += """
        <tr data-model="\(escaped(model.model))"><td>\(escaped(model.model))</td>\
        <td>\(model.run.map(clock) ?? "–")</td><td>\(model.availableAt.map(clock) ?? "–")</td>\
        <td>\(model.seenAt.map(clock) ?? "–")</td><td>\(model.lastError.map(escaped) ?? "–")</td></tr>

        """
    }
    return html + "</table>\n"
  }

  private static func display(_ entry: DisplayBoard.Entry) -> String {
    let frame = try? WeatherFrame(decoding: entry.frame)
    let name = frame.map { $0.name.string } ?? entry.key.path
    let statusName = frame.flatMap { $0.status.name.map { "\($0)" } } ?? "unknown"
    let temperature = frame?.current.temperature.map { tenths -> String in
      let value = Double(tenths) / 10
      return String(format: "%.1f °C", value)
    }
    let path = entry.key.path
    let size = DisplayPicture.size(scale: DisplayPicture.pageScale)
    return """
      <div class="display" data-display="\(escaped(path))">
      <img src="/display/\(path).png?v=\(entry.publishedAt)" width="\(size.width)" height="\(size.height)" alt="\(escaped(name)) as its display shows it">
      <div><b class="name">\(escaped(name))</b> <span class="temperature">\(temperature ?? "")</span> \
      <span class="status \(statusName == "ok" ? "ok" : statusName == "stale" ? "warn" : "bad")">\(statusName)</span></div>
      <div class="muted">\(escaped(path)) · published \(clock(entry.publishedAt))</div>
      </div>

      """
  }

  static func escaped(_ text: String) -> String {
    var result = ""
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&#39;"
      default: result.append(character)
      }
    }
    return result
  }

  /// `15:05:00` in UTC.
  private static func clock(_ seconds: Int64) -> String {
    let day = ((seconds % 86_400) + 86_400) % 86_400
    func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(two(day / 3_600)):\(two(day / 60 % 60)):\(two(day % 60))"
  }

  private static func duration(_ seconds: Int64) -> String {
    if seconds < 120 { return "\(seconds) s" }
    if seconds < 7_200 { return "\(seconds / 60) min" }
    if seconds < 172_800 { return "\(seconds / 3_600) h" }
    return "\(seconds / 86_400) days"
  }
}
