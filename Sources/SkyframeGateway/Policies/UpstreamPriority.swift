import Synchronization

/// Who an upstream call is for. Scheduled refreshes (named places, watches) may spend a service's
/// whole budget; device requests only what `upstream.reserve-percent` leaves, so a flood of
/// requests cannot starve the places displays are subscribed to.
enum UpstreamPriority: Sendable {
  case device
  case scheduled

  /// Set by `RequestHandler.resolve` from whom a place is resolved for; read where the budget is
  /// spent. Coalesced and batched calls run in tasks started by their first caller, and inherit
  /// its priority (a batch that carries a scheduled point spends as scheduled).
  @TaskLocal static var current = UpstreamPriority.device
}

/// Whether the gateway has scheduled work (named places or watches) right now: only then is
/// part of each budget held back from device requests.
final class ScheduledWork: Sendable {
  private let locations = Atomic<Int>(0)
  private let watches = Atomic<Int>(0)

  func setLocations(_ count: Int) { locations.store(count, ordering: .relaxed) }
  func setWatches(_ count: Int) { watches.store(count, ordering: .relaxed) }

  var exists: Bool {
    locations.load(ordering: .relaxed) > 0 || watches.load(ordering: .relaxed) > 0
  }
}
