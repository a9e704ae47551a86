import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// The air quality index in frames (v1.1 `air_quality`), from Open-Meteo's air-quality API (CAMS
/// data): cached per cell for `air-quality.ttl-seconds`, batched over the cells that miss within
/// the batch window, behind its own budget and breaker (`air-quality`).
final class AirQualitySupplement: Supplement {
  static let name = "open-meteo-air-quality"
  static let kind = SupplementKind(
    name: name,
    source: { configuration in
      guard configuration.airQuality.service == .openMeteo else { return nil }
      return GatewayInfo.Source(
        name: name, role: "air-quality",
        attribution:
          "Air quality by Open-Meteo.com, from CAMS (Copernicus Atmosphere Monitoring Service) data",
        license: "CC BY 4.0", url: "https://open-meteo.com/")
    },
    make: { AirQualitySupplement($0) })

  let guarded: UpstreamGuard
  /// Readings by cell.
  let readings: CellSupplement<AirQualityReading>
  private let scale: Mutex<AirQuality.Scale>
  private let context: SupplementContext

  init(_ context: SupplementContext) {
    self.context = context
    guarded = UpstreamGuard(
      name: Self.name, budget: context.configuration.airQuality.budget, context)
    readings = CellSupplement(
      settings: Self.settings(context.configuration), clock: context.clock,
      background: context.background)
    scale = Mutex(context.configuration.airQuality.scale)
  }

  private static func settings(_ configuration: GatewayConfiguration)
    -> CellSupplement<AirQualityReading>.Settings
  {
    .init(
      ttlSeconds: Int64(configuration.airQuality.ttlSeconds),
      maximumCells: configuration.cache.maximumCells,
      wait: .milliseconds(configuration.airQuality.waitMilliseconds))
  }

  var isEnabled: Bool { readings.isEnabled }

  func configure(_ configuration: GatewayConfiguration) {
    guarded.update(configuration.airQuality.budget, configuration)
    scale.withLock { $0 = configuration.airQuality.scale }
    let settings = Self.settings(configuration)
    guard configuration.airQuality.service == .openMeteo else {
      readings.update(settings, batcher: nil)
      return
    }
    let provider = OpenMeteoProvider(
      configuration: configuration.openMeteoConfiguration, httpClient: context.httpClient,
      logger: context.logger, clock: context.clock.providerClock)
    let guarded = guarded
    let batcher = PointBatcher<AirQualityReading>(
      maximumBatchSize: provider.maximumBatchSize,
      window: .milliseconds(configuration.weather.batchWindowMilliseconds), clock: context.clock
    ) { points async throws(ProviderError) in
      let batch = max(provider.maximumBatchSize, 1)
      return try await guarded.call((points.count + batch - 1) / batch) {
        () async throws(ProviderError) in try await provider.airQuality(for: points)
      }
    }
    readings.update(settings, batcher: batcher)
  }

  func amendment(for cell: WeatherDesk.Cell, at center: GeoPoint) async -> Amendment? {
    guard let reading = await readings.reading(for: cell, at: center) else { return nil }
    let index = reading.index(on: scale.withLock { $0 })
    return { $0.airQuality = index }
  }
}
