import SkyframeCodec
import SkyframeProviders
import SkyframeWeather
import Synchronization

/// A weather service in memory, for rooms under test: it answers every point with `forecast`
/// (at the point asked, so each cell's frame carries its own place), or fails while `failure`
/// is set; it counts its calls, and while `hold()` is in force its calls wait until `release()`,
/// so a test can see requests meet in one fetch without timing anything.
package final class ScriptedWeather: WeatherProvider, Sendable {
  private struct State {
    var forecast: Forecast
    var failure: ProviderError?
    var calls = 0
    var pointsAsked: [GeoPoint] = []
    var holding = false
    var held: [CheckedContinuation<Void, Never>] = []
    var callWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state: Mutex<State>
  package let service: WeatherService
  package let maximumBatchSize: Int

  package init(
    forecast: Forecast = ScriptedWeather.sampleForecast, service: WeatherService = .openMeteo,
    maximumBatchSize: Int = 50
  ) {
    state = Mutex(State(forecast: forecast))
    self.service = service
    self.maximumBatchSize = maximumBatchSize
  }

  /// Upstream calls made so far (one a batch, as a service counts them).
  package var calls: Int { state.withLock { $0.calls } }
  /// Every point asked for, in the order asked.
  package var pointsAsked: [GeoPoint] { state.withLock { $0.pointsAsked } }

  package func answer(with forecast: Forecast) { state.withLock { $0.forecast = forecast } }
  /// Calls fail with `failure` until it is set back to nil.
  package func fail(with failure: ProviderError?) { state.withLock { $0.failure = failure } }

  /// From now on calls wait (counted as made) until `release`.
  package func hold() { state.withLock { $0.holding = true } }

  /// Lets every waiting call answer, and calls answer at once again.
  package func release() {
    let held = state.withLock { state in
      state.holding = false
      defer { state.held = [] }
      return state.held
    }
    for call in held { call.resume() }
  }

  /// Returns once `count` calls have been made.
  package func waitForCalls(_ count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { state in
        if state.calls >= count { return true }
        state.callWaiters.append((count, continuation))
        return false
      }
      if now { continuation.resume() }
    }
  }

  package func forecasts(for points: [GeoPoint]) async throws(ProviderError) -> [Forecast] {
    let (holding, woken) = state.withLock { state in
      state.calls += 1
      state.pointsAsked += points
      let calls = state.calls
      let woken = state.callWaiters.filter { $0.count <= calls }.map(\.continuation)
      state.callWaiters.removeAll { $0.count <= calls }
      return (state.holding, woken)
    }
    for waiter in woken { waiter.resume() }
    if holding {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let stillHolding = state.withLock { state in
          guard state.holding else { return false }
          state.held.append(continuation)
          return true
        }
        if !stillHolding { continuation.resume() }
      }
    }
    let (forecast, failure) = state.withLock { ($0.forecast, $0.failure) }
    if let failure { throw failure }
    return points.map { point in
      var answer = forecast
      answer.place.latitude = point.latitude
      answer.place.longitude = point.longitude
      answer.place.name = ""
      answer.place.countryCode = nil
      return answer
    }
  }

  package func geocode(name: String, countryCode: String?) async throws(ProviderError)
    -> Forecast.Place?
  {
    nil
  }

  /// Berlin in January: current conditions, 24 hours, 7 days, valid at `sampleStart`.
  package static let sampleStart: Int64 = 1_705_330_800

  package static var sampleForecast: Forecast {
    let hours = (0..<24).map { index in
      Forecast.Hour(
        time: sampleStart + Int64(index) * 3_600, temperature: -2.3 + Double(index) * 0.2,
        weatherCode: 3, precipitationProbability: 20, precipitation: 0.1, windSpeed: 4.2,
        windGusts: 9.0)
    }
    let today = Int(sampleStart / 86_400)
    let days = (0..<7).map { index in
      Forecast.Day(
        date: today + index, minimum: -4.0, maximum: 1.5, weatherCode: 71,
        precipitationProbability: 40, sunrise: sampleStart + Int64(index) * 86_400 - 12_000,
        sunset: sampleStart + Int64(index) * 86_400 + 16_000, daylightSeconds: 28_000,
        precipitationSum: 0.4, uvIndexMaximum: 0.8, windSpeedMaximum: 8.0)
    }
    return Forecast(
      place: .init(name: "", countryCode: nil, latitude: 52.52, longitude: 13.41),
      utcOffsetSeconds: 3_600,
      current: .init(
        time: sampleStart, temperature: -2.3, apparentTemperature: -6.8, relativeHumidity: 86,
        pressure: 1_021.4, windSpeed: 4.2, windGusts: 9.8, windDirection: 250, weatherCode: 71,
        isDay: true, cloudCover: 100, precipitation: 0.3, uvIndex: 0.4, visibility: 8_200,
        dewPoint: -4.0),
      hourly: hours, daily: days)
  }
}
