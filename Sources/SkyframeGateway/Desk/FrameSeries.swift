import SkyframeCodec
import SkyframeWeather

/// A cell's frames composed again from the data of the call that fetched them (`ForecastSeries`),
/// at each moment something in them changes: the frames a fresh call to the same run would give
/// then, but for `fetched_at`, which stays the time of the call.
package final class FrameSeries: Sendable {
  package let series: ForecastSeries
  package let service: WeatherService
  /// The air quality index the fetch put in the frame (from its own desk and time-to-live).
  package let airQuality: AirQuality?
  package let fetchedAt: Int64
  /// Which cached entry this is the data of (`CachedFrame.seriesGeneration`): a number the desk
  /// gives each, so that a frame is never composed from another call's data.
  package let generation: UInt32

  package init(
    _ series: ForecastSeries, service: WeatherService, airQuality: AirQuality?, fetchedAt: Int64,
    generation: UInt32 = 0
  ) {
    self.series = series
    self.service = service
    self.airQuality = airQuality
    self.fetchedAt = fetchedAt
    self.generation = generation
  }

  /// The same data for the entry numbered `generation`.
  package func numbered(_ generation: UInt32) -> FrameSeries {
    FrameSeries(
      series, service: service, airQuality: airQuality, fetchedAt: fetchedAt,
      generation: generation)
  }

  /// The standard frame as at `time`, followed by the large one when `holds` names it; nil when
  /// the series does not reach `time`.
  package func bytes(at time: Int64, holds: ProfileSet) -> [UInt8]? {
    guard let forecast = series.forecast(at: time) else { return nil }
    var frame = forecast.frame(fetchedAt: fetchedAt, at: time, service: service)
    frame.airQuality = airQuality
    // Compaction clamps every value into range: encoding fails only on a bug.
    guard let standard = try? frame.encoded() else { return nil }
    guard holds.contains(.large) else { return standard }
    guard let large = try? forecast.largeFrame(standard: standard, fetchedAt: time) else {
      return nil
    }
    return standard + large
  }
}
