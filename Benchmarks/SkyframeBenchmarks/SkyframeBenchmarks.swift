import Benchmark
import Foundation
import Logging
import SkyframeCodec
import SkyframeGateway
import SkyframeHTTP
import SkyframeMQTT
import SkyframeProviders
import SkyframeWeather

// Each benchmark runs its body 1 000 times per sample (`scalingFactor: .kilo`), so a figure is the
// cost of one operation. Malloc counts are gated in CI against Thresholds/; times are reported.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .mallocCountTotal],
    timeUnits: .nanoseconds,
    scalingFactor: .kilo,
    maxDuration: .seconds(2),
    maxIterations: 1_000
  )

  let forecast = Fixtures.forecast()
  let frame = forecast.frame(fetchedAt: Fixtures.now, service: .openMeteo, requestID: 42)
  let frameBytes = try! frame.encoded()
  let textRequest = Array("#42 Berlin,DE;52.52,13.41;-33.8688,151.2093".utf8)
  let binaryRequest = try! BinaryRequest.encoded(
    DeviceRequest(
      id: 7,
      body: .locations(
        LocationList([.coordinates(Coordinates(latitude: 5_252_000, longitude: 1_341_000))]))))

  // The floor: moving a frame's worth of bytes from one buffer to another.
  Benchmark("Baseline_copy_frame") { benchmark in
    let source = UnsafeMutableRawBufferPointer.allocate(byteCount: WeatherFrame.size, alignment: 8)
    let target = UnsafeMutableRawBufferPointer.allocate(byteCount: WeatherFrame.size, alignment: 8)
    defer {
      source.deallocate()
      target.deallocate()
    }
    frameBytes.withUnsafeBytes { source.copyMemory(from: $0) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(source)
      target.copyMemory(from: UnsafeRawBufferPointer(source))
      blackHole(target)
    }
  }

  Benchmark("Codec_encode_frame") { benchmark in
    let target = UnsafeMutableRawBufferPointer.allocate(byteCount: WeatherFrame.size, alignment: 8)
    defer { target.deallocate() }
    var value = frame
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(value.requestID)
      try! value.encode(into: target)
      blackHole(target)
      value.requestID &+= 1
    }
  }

  Benchmark("Codec_decode_frame") { benchmark in
    let source = UnsafeMutableRawBufferPointer.allocate(byteCount: WeatherFrame.size, alignment: 8)
    defer { source.deallocate() }
    frameBytes.withUnsafeBytes { source.copyMemory(from: $0) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(source)
      blackHole(try! WeatherFrame(decoding: UnsafeRawBufferPointer(source)))
    }
  }

  // Decode without materializing: the same checks, the bytes kept, a field read in place.
  Benchmark("Codec_decode_frame_in_place") { benchmark in
    let source = UnsafeMutableRawBufferPointer.allocate(byteCount: WeatherFrame.size, alignment: 8)
    defer { source.deallocate() }
    frameBytes.withUnsafeBytes { source.copyMemory(from: $0) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(source)
      let checked = try! ValidatedFrame(decoding: UnsafeRawBufferPointer(source))
      blackHole(checked.value(StandardLayout.temperature))
    }
  }

  // The part of encode and decode that is the CRC-32 over the frame's first 188 bytes.
  Benchmark("Codec_crc32_frame") { benchmark in
    frameBytes.withUnsafeBytes { bytes in
      let covered = UnsafeRawBufferPointer(rebasing: bytes[0..<188])
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        blackHole(covered)
        blackHole(CRC32.checksum(covered))
      }
    }
  }

  Benchmark("Codec_parse_text_request") { benchmark in
    textRequest.withUnsafeBytes { bytes in
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        blackHole(bytes)
        blackHole(try! DeviceRequest(parsing: bytes))
      }
    }
  }

  Benchmark("Codec_parse_binary_request") { benchmark in
    binaryRequest.withUnsafeBytes { bytes in
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        blackHole(bytes)
        blackHole(try! DeviceRequest(parsing: bytes))
      }
    }
  }

  // The whole compaction: normalized forecast → frame values → 192 bytes.
  Benchmark("Weather_compact_and_encode") { benchmark in
    let target = UnsafeMutableRawBufferPointer.allocate(byteCount: WeatherFrame.size, alignment: 8)
    defer { target.deallocate() }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(forecast)
      let compacted = forecast.frame(fetchedAt: Fixtures.now, service: .openMeteo, requestID: 42)
      try! compacted.encode(into: target)
      blackHole(target)
    }
  }

  // The other profiles (schemas/frame-profiles.md). Large: the whole compaction of a fetch when
  // the cell is kept in the large profile, the standard frame first (large is built on it), so
  // the ratio to Weather_compact_and_encode is what a large cell adds. Tiny: made from the
  // standard frame at every answer.
  Benchmark("Weather_compact_and_encode_large") { benchmark in
    let standard = UnsafeMutableRawBufferPointer.allocate(
      byteCount: WeatherFrame.size, alignment: 8)
    let target = UnsafeMutableRawBufferPointer.allocate(byteCount: LargeLayout.size, alignment: 8)
    defer {
      standard.deallocate()
      target.deallocate()
    }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(forecast)
      let compacted = forecast.frame(fetchedAt: Fixtures.now, service: .openMeteo, requestID: 42)
      try! compacted.encode(into: standard)
      try! forecast.writeLargeFrame(
        standard: UnsafeRawBufferPointer(standard), fetchedAt: Fixtures.now, into: target)
      blackHole(target)
    }
  }

  Benchmark("Codec_encode_tiny") { benchmark in
    let source = UnsafeMutableRawBufferPointer.allocate(byteCount: WeatherFrame.size, alignment: 8)
    let target = UnsafeMutableRawBufferPointer.allocate(byteCount: TinyLayout.size, alignment: 8)
    defer {
      source.deallocate()
      target.deallocate()
    }
    frameBytes.withUnsafeBytes { source.copyMemory(from: $0) }
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(source)
      TinyLayout.write(
        from: ProfileView(unchecked: UnsafeRawPointer(source.baseAddress!), kind: .standard),
        into: target)
      blackHole(target)
    }
  }

  // The gateway's request path on a cache hit: request bytes in → frame bytes handed to MQTT.
  // No network: the weather service is a fixed forecast, the broker a sink that drops the frame.
  // The same for a device asking for the large and the tiny profile, and for one asking at QoS 1
  // (its id noted against the broker's replay after a restart: `AnsweredMemory`).
  for (name, request, qos) in [
    ("Gateway_request_cache_hit", "#42 52.52,13.41", 0),
    ("Gateway_request_cache_hit_large", "#42 ~large 52.52,13.41", 0),
    ("Gateway_request_cache_hit_tiny", "#42 ~tiny 52.52,13.41", 0),
    ("Gateway_request_cache_hit_qos1", "#42 52.52,13.41", 1),
  ] {
    Benchmark(name) { benchmark in
      let sink = DroppingSink()
      let path = Fixtures.requestPath(forecast: forecast, sink: sink)
      let message = MQTTMessage(
        topic: "skyframe/v1/req/esp32-kitchen", payload: Array(request.utf8), qos: qos)
      await path.handle(message)  // fills the cache
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        await path.handle(message)
      }
      benchmark.stopMeasurement()
      precondition(sink.count > benchmark.scaledIterations.count, "every request was answered")
    }
  }

  // The HTTP way in on a cache hit, from the parsed request to the response Hummingbird writes
  // (`GET /v1/frame/{device}?q=…`: the query read, the intake, the frame, ETag and max-age),
  // and the same display's next wake with the ETag it kept: 304 and no body. No socket.
  for (name, etag) in [("Gateway_http_cache_hit", false), ("Gateway_http_not_modified", true)] {
    Benchmark(name) { benchmark in
      let path = Fixtures.httpRequestPath(forecast: forecast)
      let target = "/v1/frame/esp32-kitchen?q=%2342+52.52,13.41"
      let first = await path.get(target, device: "esp32-kitchen")  // fills the cache
      precondition(first.status == 200 && first.contentLength == 192, "\(first)")
      let tag = etag ? first.etag : nil
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        blackHole(await path.get(target, device: "esp32-kitchen", ifNoneMatch: tag))
      }
      benchmark.stopMeasurement()
      let last = await path.get(target, device: "esp32-kitchen", ifNoneMatch: tag)
      precondition(last.status == (etag ? 304 : 200), "\(last)")
    }
  }

  // The same under the models' runs: the cell's frames are composed from the call's data when
  // something in them changes (not within these runs: the next change is minutes away), and a
  // hit serves the bytes composed last.
  let composable = Fixtures.composableForecast()
  for (name, request) in [
    ("Gateway_request_cache_hit_composed", "#42 52.52,13.41"),
    ("Gateway_request_cache_hit_composed_large", "#42 ~large 52.52,13.41"),
  ] {
    Benchmark(name) { benchmark in
      let sink = DroppingSink()
      let path = Fixtures.requestPath(
        forecast: composable, sink: sink,
        modelRun: (Fixtures.now - 4 * 3_600, Fixtures.now - 3_600))
      let message = MQTTMessage(
        topic: "skyframe/v1/req/esp32-kitchen", payload: Array(request.utf8), qos: 0)
      await path.handle(message)  // fills the cache
      benchmark.startMeasurement()
      for _ in benchmark.scaledIterations {
        await path.handle(message)
      }
      benchmark.stopMeasurement()
      precondition(sink.count > benchmark.scaledIterations.count, "every request was answered")
    }
  }

  // What the cache holds: the gateway's resident memory grown by filling 10,000 cells (the
  // default cache.max-cells), asked for by standard devices (192 bytes per cell; tiny answers
  // are made from it) and by large devices (192 + 960). Reported as kB per 10,000 cells.
  for (name, option) in [
    ("Gateway_cache_10000_cells", ""), ("Gateway_cache_10000_cells_large", "~large "),
  ] {
    Benchmark(
      name,
      configuration: .init(
        metrics: [.custom("resident kB", useScalingFactor: false)], scalingFactor: .one,
        maxDuration: .seconds(30), maxIterations: 3)
    ) { benchmark in
      let sink = DroppingSink()
      let path = Fixtures.requestPath(forecast: forecast, sink: sink)
      let requests = (0..<10_000).map { index in
        MQTTMessage(
          topic: "skyframe/v1/req/esp32-kitchen",
          payload: Array(
            "\(option)\(40 + Double(index / 100) * 0.01),\(Double(index % 100) * 0.01)".utf8))
      }
      let before = Fixtures.residentKilobytes()
      for message in requests { await path.handle(message) }
      benchmark.measurement(
        .custom("resident kB", useScalingFactor: false), Fixtures.residentKilobytes() - before)
      precondition(sink.count == requests.count, "every request was answered")
      blackHole(path)
    }
  }

  // What a gateway would otherwise send: the same forecast as JSON.
  Benchmark("Baseline_JSONEncoder_forecast") { benchmark in
    let encoder = JSONEncoder()
    benchmark.startMeasurement()
    for _ in benchmark.scaledIterations {
      blackHole(try! encoder.encode(forecast))
    }
  }
}

/// Berlin on 2024-01-15 with a full Open-Meteo answer: 48 hours and 8 days, with what only the
/// large frame carries (amounts, winds, dew point, per-day sums and maxima, an alert).
enum Fixtures {
  static let now: Int64 = 1_705_331_100

  /// The request path with the default configuration, except that one device may ask without
  /// limit (thousands of times a second here; the per-device and new-cell limits would answer
  /// rate_limited after the first few).
  static func requestPath(
    forecast: Forecast, sink: DroppingSink,
    modelRun: (initialisation: Int64, availability: Int64)? = nil
  ) -> RequestPath {
    var configuration = GatewayConfiguration()
    configuration.requests.perDevicePerMinute = 0
    configuration.upstream.newCellsPerMinute = 0
    configuration.upstream.newCellsPerDevicePerMinute = 0
    return RequestPath(
      configuration: configuration, provider: FixedForecast(forecast: forecast), sink: sink,
      logger: Logger(label: "bench"),
      clock: .system(unixTimeAtStart: now), modelRun: modelRun)
  }

  /// The HTTP way in on the same terms as `requestPath`.
  static func httpRequestPath(forecast: Forecast) -> HTTPRequestPath {
    var configuration = GatewayConfiguration()
    configuration.requests.perDevicePerMinute = 0
    configuration.upstream.newCellsPerMinute = 0
    configuration.upstream.newCellsPerDevicePerMinute = 0
    return HTTPRequestPath(
      configuration: configuration, provider: FixedForecast(forecast: forecast),
      clock: .system(unixTimeAtStart: now), logger: Logger(label: "bench"))
  }

  /// The same forecast as Open-Meteo answers it under the runs: the current conditions in
  /// 15-minute steps for four hours, four days of hours, nine days.
  static func composableForecast() -> Forecast {
    var forecast = forecast()
    let present = now - now % 900
    forecast.currentSteps = (0..<18).map { index in
      var step = forecast.current
      step.time = present + Int64(index) * 900
      step.temperature = (step.temperature ?? 0) + Double(index) * 0.1
      return step
    }
    forecast.current = forecast.currentSteps![0]
    let last = forecast.hourly.last!
    forecast.hourly += (1...48).map { index in
      var hour = last
      hour.time += Int64(index) * 3_600
      return hour
    }
    forecast.daily.append(
      Forecast.Day(date: forecast.daily.last!.date + 1, minimum: -3, maximum: 2))
    forecast.timeZone = "Europe/Berlin"
    return forecast
  }

  /// This process's resident set, from /proc/self/statm.
  static func residentKilobytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
      return 0
    }
    let pages = text.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1_024
  }

  static func forecast() -> Forecast {
    let hourStart: Int64 = 1_705_276_800
    var hours: [Forecast.Hour] = []
    for index in 0..<48 {
      let time: Int64 = hourStart + Int64(index) * 3_600
      let temperature: Double = -2.3 - Double(index % 7) * 0.4
      let codes = [71, 73, 3]
      let chance = Double(index * 7 % 100)
      hours.append(
        Forecast.Hour(
          time: time, temperature: temperature, weatherCode: codes[index % 3],
          precipitationProbability: chance, precipitation: Double(index % 5) * 0.3,
          windSpeed: 3.1 + Double(index % 4), windGusts: 7.2 + Double(index % 6)))
    }
    var days: [Forecast.Day] = []
    let dayCodes = [71, 3, 2, 61, 63, 3, 45]
    for index in 0..<8 {
      let shift = Int64(index) * 86_400
      days.append(
        Forecast.Day(
          date: 19_737 + index, minimum: -4.1 + Double(index), maximum: 1.5 + Double(index),
          weatherCode: dayCodes[index % 7], precipitationProbability: Double(index * 13),
          sunrise: 1_705_302_660 + shift, sunset: 1_705_333_140 + shift, daylightSeconds: 30_480,
          precipitationSum: Double(index) * 1.7, uvIndexMaximum: 0.8, windSpeedMaximum: 9.4))
    }
    return Forecast(
      place: .init(name: "Berlin", countryCode: "DE", latitude: 52.52, longitude: 13.405),
      utcOffsetSeconds: 3_600,
      current: .init(
        time: 1_705_330_800, temperature: -2.3, apparentTemperature: -6.8, relativeHumidity: 86,
        pressure: 1_021.4, windSpeed: 4.2, windGusts: 9.8, windDirection: 250, weatherCode: 71,
        isDay: true, cloudCover: 100, precipitation: 0.3, uvIndex: 0.4, visibility: 8_200,
        dewPoint: -4.0),
      hourly: hours, daily: days,
      alerts: [
        .init(
          severity: .moderate, start: 1_705_320_000, end: 1_705_370_000,
          event: "Amtliche WARNUNG vor GLÄTTE")
      ])
  }
}

/// A weather service that always has the same forecast.
struct FixedForecast: WeatherProvider {
  let forecast: Forecast
  var service: WeatherService { .openMeteo }
  var maximumBatchSize: Int { 50 }
  func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    points.map { _ in forecast }
  }
  func geocode(name: String, countryCode: String?) async throws(ProviderError) -> Forecast.Place? {
    nil
  }
}

/// A broker stand-in that reads each frame's status byte and drops the frame.
final class DroppingSink: FrameSink, @unchecked Sendable {
  // Only the benchmark's one task touches it.
  var count = 0

  func publish(
    _ topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool,
    correlationData: [UInt8]?
  ) throws(MQTTError) {
    precondition(
      [WeatherFrame.size, LargeLayout.size, TinyLayout.size].contains(payload.count)
        && payload[3] == 0, "an ok frame")
    count += 1
  }
}
