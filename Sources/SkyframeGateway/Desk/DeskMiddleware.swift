import SkyframeProviders
import SkyframeWeather

/// What a fetch of a cell gave: the entry, the data its frames are composed from, and whether it
/// was fetched upstream by this process (not found in the cache, not taken from elsewhere).
package struct FetchedCell: Sendable {
  package var entry: WeatherDesk.CachedFrame
  package var series: FrameSeries?
  package var isNew: Bool

  package init(entry: WeatherDesk.CachedFrame, series: FrameSeries?, isNew: Bool) {
    self.entry = entry
    self.series = series
    self.isNew = isNew
  }
}

/// The desk's fetcher, as what stands in front of it sees it: the cell and the profiles it must
/// hold in, the fetched cell or the failure out.
package typealias CellFetch =
  @Sendable (WeatherDesk.Cell, ProfileSet) async -> Result<
    FetchedCell, ProviderError
  >

/// Stands in front of the desk's fetcher as middleware stands in front of a router's handler:
/// it may answer a miss itself, and it sees what was fetched. The fleet is one (ask the cell's
/// owner first, share what was fetched here). A part offers one as
/// `GatewayPart.deskMiddleware`; the gateway puts it in front when it is assembled.
package protocol DeskMiddleware: Sendable {
  /// A miss of `cell` (coalesced: once however many wait); `next` is the fetcher behind.
  func fetch(_ cell: WeatherDesk.Cell, needs: ProfileSet, next: CellFetch) async -> Result<
    FetchedCell, ProviderError
  >
  /// A name was looked up upstream here (found or not) and cached.
  func lookedUp(_ place: WeatherDesk.CachedPlace, for key: WeatherDesk.GeocodeKey)
}

extension DeskMiddleware {
  package func lookedUp(_ place: WeatherDesk.CachedPlace, for key: WeatherDesk.GeocodeKey) {}
}
