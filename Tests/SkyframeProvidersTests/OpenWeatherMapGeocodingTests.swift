import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Testing

@Suite("OpenWeatherMap geocoding")
struct OpenWeatherMapGeocodingTests {
  @Test("a hit: the first result, named in the configured language (English by default)")
  func hit() async throws {
    let (place, requests) = try await withStubbedOpenWeatherMap(
      answering: routing(["/geo/1.0/direct": .json(OpenWeatherMapFixtures.geocodingCordoba)])
    ) { provider, server in
      (try await provider.geocode(name: " Cordoba ", countryCode: nil), server.requests)
    }
    let request = try #require(requests.first)
    #expect(request.path == "/geo/1.0/direct")
    #expect(request.query == ["q": "Cordoba", "limit": "5", "appid": "owm-test-key"])
    #expect(
      place
        == Forecast.Place(
          name: "Cordoba", countryCode: "AR", latitude: -31.4166867, longitude: -64.1834193))
  }

  @Test("a country code goes into q and picks its result; without a local name, the default")
  func countryAndLanguage() async throws {
    var configuration = OpenWeatherMapConfiguration(apiKey: "k")
    configuration.language = "it"
    let (place, requests) = try await withStubbedOpenWeatherMap(
      answering: routing(["/geo/1.0/direct": .json(OpenWeatherMapFixtures.geocodingCordoba)]),
      configuration: configuration
    ) { provider, server in
      (try await provider.geocode(name: "Córdoba", countryCode: "es"), server.requests)
    }
    #expect(requests.first?.query["q"] == "Córdoba,ES")
    #expect(requests.first?.uri.contains("q=C%C3%B3rdoba,ES&") == true)
    #expect(
      place
        == Forecast.Place(
          name: "Córdoba", countryCode: "ES", latitude: 37.8845813, longitude: -4.7760138))
  }

  @Test("no result (an empty array, or a 404) is nil; a blank name is not sent")
  func miss() async throws {
    let empty = try await withStubbedOpenWeatherMap(
      answering: routing(["/geo/1.0/direct": .json("[]")])
    ) { provider, _ in try await provider.geocode(name: "Xqzzyville", countryCode: nil) }
    #expect(empty == nil)

    let notFound = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/geo/1.0/direct": .json(OpenWeatherMapFixtures.error404, status: 404)
      ])
    ) { provider, _ in try await provider.geocode(name: "Xqzzyville", countryCode: "DE") }
    #expect(notFound == nil)

    let (blank, requests) = try await withStubbedOpenWeatherMap(answering: routing([:])) {
      provider, server in
      (try await provider.geocode(name: "  ", countryCode: nil), server.requests)
    }
    #expect(blank == nil)
    #expect(requests.isEmpty)
  }

  @Test("geocoding shares the error mapping")
  func unauthorized() async throws {
    let error = try await withStubbedOpenWeatherMap(
      answering: routing([
        "/geo/1.0/direct": .json(OpenWeatherMapFixtures.error401, status: 401)
      ])
    ) { provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.geocode(name: "Cordoba", countryCode: nil)
      }
    }
    #expect(error == .unauthorized("Key not accepted: check the appid."))
  }

  @Test("reverse geocoding names the nearest place, with the place's own coordinates")
  func reverse() async throws {
    let (place, canReverse, requests) = try await withStubbedOpenWeatherMap(
      answering: routing(["/geo/1.0/reverse": .json(OpenWeatherMapFixtures.reverseWellington)])
    ) { provider, server in
      (
        try await provider.reverseGeocode(GeoPoint(latitude: -41.29, longitude: 174.78)),
        provider.canReverseGeocode, server.requests
      )
    }
    #expect(canReverse)
    let request = try #require(requests.first)
    #expect(request.path == "/geo/1.0/reverse")
    #expect(
      request.query == ["lat": "-41.29", "lon": "174.78", "limit": "1", "appid": "owm-test-key"])
    #expect(
      place
        == Forecast.Place(
          name: "Wellington", countryCode: "NZ", latitude: -41.2887953, longitude: 174.7772114))
  }

  @Test("reverse geocoding is reached through any WeatherProvider, not the protocol's default")
  func reverseThroughExistential() async throws {
    let (place, canReverse) = try await withStubbedOpenWeatherMap(
      answering: routing(["/geo/1.0/reverse": .json(OpenWeatherMapFixtures.reverseWellington)])
    ) { provider, _ in
      let someProvider: any WeatherProvider = provider
      return (
        try await someProvider.reverseGeocode(GeoPoint(latitude: -41.29, longitude: 174.78)),
        someProvider.canReverseGeocode
      )
    }
    #expect(canReverse)
    #expect(place?.name == "Wellington")
  }

  @Test("reverse geocoding over open sea is nil; a bad coordinate is refused before sending")
  func reverseMiss() async throws {
    let (place, error, requests) = try await withStubbedOpenWeatherMap(
      answering: routing(["/geo/1.0/reverse": .json("[]")])
    ) { provider, server in
      let place = try await provider.reverseGeocode(GeoPoint(latitude: -48.9, longitude: -123.4))
      let error = await #expect(throws: ProviderError.self) {
        try await provider.reverseGeocode(GeoPoint(latitude: 0, longitude: .nan))
      }
      return (place, error, server.requests)
    }
    #expect(place == nil)
    guard case .rejected(status: 0, _) = error else {
      Issue.record("expected .rejected(status: 0, …), got \(String(describing: error))")
      return
    }
    #expect(requests.count == 1)
  }
}
