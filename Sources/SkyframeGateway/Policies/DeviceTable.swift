import SkyframeCodec
import SkyframeProviders
import Synchronization

/// Everything the gateway remembers about device ids, in one table bounded by
/// `requests.max-devices`: each device's request window, its last places (for `refresh`), its
/// frame topic and how many new cells it made the gateway fetch this minute. A flood of made-up
/// ids pushes out the least recently seen devices; a device pushed out starts afresh (a new
/// window, and `refresh` answers `bad_request` until it names places again).
package final class DeviceTable: Sendable {
  struct Record: Sendable {
    var frameTopic: String
    var minute: Int64 = -1
    var requests = 0
    /// Whether the device was told `rate_limited` in this minute already.
    var toldOverLimit = false
    /// Kept as a small array rather than a `LocationList` (room for 16 places inline): most
    /// devices ask for one place, and a table of 10 000 devices stays small.
    var lastPlaces: [LocationQuery]?
    /// The profile of the last request, which a refresh without one keeps.
    var lastProfile: FrameProfile = .standard
    var newCellMinute: Int64 = -1
    var newCells = 0
    /// Whether the device's latest request was refused (a new cell past the limits, or the
    /// queue full): such a device is not one that behaves (`wellBehaved`).
    var refused = false
    /// The Unix second of the device's first request since it came into the table.
    var firstSecond: Int64 = 0
  }

  /// What a request may do, decided in one look-up.
  package struct Admission: Sendable {
    var frameTopic: String
    /// False when the device is over its requests a minute.
    package var allowed: Bool
    /// Over the limit for the first time this minute: answered `rate_limited` once; later
    /// requests of the minute get no answer (`frame-v1.md` §6.10).
    package var firstRefusal = false
    /// The device's remembered request when this one was admitted, so that a device asking for
    /// the same again (`isRemembered`) costs no second look-up.
    var lastPlaces: [LocationQuery]? = nil
    var lastProfile: FrameProfile = .standard

    /// Whether `places` in `profile` is what the table held for the device at admission.
    func isRemembered(_ places: borrowing LocationList, profile: FrameProfile) -> Bool {
      guard let lastPlaces, lastProfile == profile else { return false }
      return lastPlaces.elementsEqual(places)
    }
  }

  private let table: Mutex<LRUTable<String, Record>>

  package init(capacity: Int) {
    table = Mutex(LRUTable(capacity: capacity))
  }

  var count: Int { table.withLock { $0.count } }

  package func resize(to capacity: Int) {
    table.withLock { $0.resize(to: capacity) }
  }

  /// Counts a request from `device` in the minute `minute` (at Unix second `second`, which a
  /// device new to the table keeps as its first); `perMinute` 0 allows everything.
  package func admit(
    _ device: String, minute: Int64, perMinute: Int, frameTopic: @Sendable (String) -> String,
    second: Int64 = 0
  ) -> Admission {
    table.withLock { table in
      // One look-up, the record changed where it is (no copy of its topic and places).
      table.modify(
        device, orInsert: { Record(frameTopic: frameTopic(device), firstSecond: second) }
      ) { record in
        if record.minute != minute {
          record.minute = minute
          record.requests = 0
          record.toldOverLimit = false
        }
        let allowed = perMinute == 0 || record.requests < perMinute
        if allowed {
          record.requests += 1
          record.refused = false
          return Admission(
            frameTopic: record.frameTopic, allowed: true, lastPlaces: record.lastPlaces,
            lastProfile: record.lastProfile)
        }
        defer { record.toldOverLimit = true }
        return Admission(
          frameTopic: record.frameTopic, allowed: false, firstRefusal: !record.toldOverLimit)
      }
    }
  }

  /// Marks the device's latest request as refused (a new cell past the limits, a full queue).
  func markRefused(_ device: String) {
    table.withLock { table in table.update(device) { $0.refused = true } }
  }

  /// Up to `limit` devices that behave, most recently seen first: each was first seen at or
  /// before Unix second `knownBy`, has asked for places that were not refused, and is within its
  /// requests of `minute`. At most `walking` devices are looked at (under the table's lock).
  func wellBehaved(limit: Int, minute: Int64, knownBy: Int64 = .max, walking: Int) -> [String] {
    table.withLock { table in
      var found: [String] = []
      var looked = 0
      table.forEachNewestFirst { device, record in
        looked += 1
        if record.firstSecond <= knownBy, record.lastPlaces != nil, !record.refused,
          !(record.minute == minute && record.toldOverLimit)
        {
          found.append(device)
        }
        return found.count < limit && looked < walking
      }
      return found
    }
  }

  /// Keeps `places` as the device's last request, for `refresh`.
  package func remember(
    _ places: LocationList, profile: FrameProfile = .standard, for device: String
  ) {
    table.withLock { table in
      table.update(device) { record in
        // A device asking for the same places again (the common case) writes nothing.
        if let last = record.lastPlaces, last.elementsEqual(places),
          record.lastProfile == profile
        {
          return
        }
        record.lastPlaces = Array(places)
        record.lastProfile = profile
      }
    }
  }

  /// The device's last places, for `refresh`.
  package func lastPlaces(of device: String) -> LocationList? { lastRequest(of: device)?.places }

  /// The places and profile of the device's last request, which a refresh repeats.
  func lastRequest(of device: String) -> (places: LocationList, profile: FrameProfile)? {
    table.withLock { table in
      table.peek(device).flatMap { record in
        record.lastPlaces.map { (LocationList($0), record.lastProfile) }
      }
    }
  }

  /// Takes one of the device's new cells for this minute; false when it has none left.
  /// Whether `device` has used up its new cells of `minute` (nothing is taken).
  package func hasSpentNewCells(_ device: String, minute: Int64, perMinute: Int) -> Bool {
    guard perMinute > 0 else { return false }
    return table.withLock { table in
      table.peek(device).map { $0.newCellMinute == minute && $0.newCells >= perMinute } ?? false
    }
  }

  package func takeNewCell(_ device: String, minute: Int64, perMinute: Int) -> Bool {
    guard perMinute > 0 else { return true }
    return table.withLock { table in
      var allowed = true
      table.update(device) { record in
        if record.newCellMinute != minute {
          record.newCellMinute = minute
          record.newCells = 0
        }
        if record.newCells < perMinute { record.newCells += 1 } else { allowed = false }
      }
      return allowed
    }
  }
}
