import AsyncHTTPClient
import Foundation
import Logging

/// The latest run of one of Open-Meteo's weather models, from its metadata
/// (`{runs-url}/{model}/static/meta.json`; those calls do not count toward the limits). Times are
/// Unix seconds.
public struct OpenMeteoModelRun: Sendable, Equatable, Decodable {
  /// When the run starts (its "00Z").
  public var initialisation: Int64
  /// When the run was applied on Open-Meteo's servers. They are eventually consistent: a run is
  /// asked for only a margin after this (about 10 minutes, by Open-Meteo's advice), and a run not
  /// yet everywhere is answered as the previous one, without an error.
  public var availability: Int64
  /// Seconds between runs (10,800 for ICON-D2, 21,600 for ECMWF IFS).
  public var updateInterval: Int64

  public init(initialisation: Int64, availability: Int64, updateInterval: Int64) {
    self.initialisation = initialisation
    self.availability = availability
    self.updateInterval = updateInterval
  }

  enum CodingKeys: String, CodingKey {
    case initialisation = "last_run_initialisation_time"
    case availability = "last_run_availability_time"
    case updateInterval = "update_interval_seconds"
  }

  /// The times as JSON numbers, whole or not.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    func seconds(_ key: CodingKeys) throws -> Int64 {
      let value = try container.decode(Double.self, forKey: key)
      guard value.isFinite, abs(value) < 1e15 else {
        throw DecodingError.dataCorruptedError(
          forKey: key, in: container, debugDescription: "not a time in seconds")
      }
      return Int64(value)
    }
    initialisation = try seconds(.initialisation)
    availability = try seconds(.availability)
    updateInterval = try seconds(.updateInterval)
  }

  /// Reads the metadata of `model` (a name as Open-Meteo's model-updates page lists it, e.g.
  /// `dwd_icon_d2`) under `baseURL` (`https://api.open-meteo.com/data`).
  public static func fetch(
    model: String, baseURL: String, httpClient: HTTPClient, timeout: Duration,
    clock: ProviderClock, logger: Logger
  ) async throws(ProviderError) -> OpenMeteoModelRun {
    let url = joinedURL(baseURL, "/\(model)/static/meta.json")
    var call = UpstreamCall(
      service: "open-meteo-runs", endpoint: url, url: url, loggedURL: url, timeout: timeout)
    call.clock = clock
    let body = try await call.body(client: httpClient, logger: logger) { _ in nil }
    let run = try decodeJSON(OpenMeteoModelRun.self, from: body)
    guard run.initialisation > 0, run.availability >= run.initialisation,
      run.updateInterval > 0
    else {
      throw .malformed(
        "meta.json of \(model): initialisation \(run.initialisation), availability "
          + "\(run.availability), update interval \(run.updateInterval)")
    }
    return run
  }
}
