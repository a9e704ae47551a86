import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Testing

@Suite("WeatherAPI.com geocoding")
struct WeatherAPIGeocodingTests {
  @Test("a hit: the search call names the place; the country name becomes a code")
  func hit() async throws {
    let (place, requests) = try await withStubbedWeatherAPI(
      answering: routing(["/v1/search.json": .json(WeatherAPIFixtures.searchPerth)])
    ) { provider, server in
      (try await provider.geocode(name: "Perth", countryCode: nil), server.requests)
    }
    let request = try #require(requests.first)
    #expect(request.path == "/v1/search.json")
    #expect(request.query == ["q": "Perth", "key": "wapi-test-key"])
    #expect(
      place
        == Forecast.Place(name: "Perth", countryCode: "AU", latitude: -31.93, longitude: 115.83))
  }

  @Test("a country code picks the result in that country")
  func countryCode() async throws {
    let place = try await withStubbedWeatherAPI(
      answering: routing(["/v1/search.json": .json(WeatherAPIFixtures.searchPerth)])
    ) { provider, _ in try await provider.geocode(name: "perth", countryCode: "gb") }
    #expect(
      place == Forecast.Place(name: "Perth", countryCode: "GB", latitude: 56.4, longitude: -3.43))
  }

  @Test("the exact name beats the first result; the service's own country spellings are known")
  func exactNameAndAlias() async throws {
    let place = try await withStubbedWeatherAPI(
      answering: routing(["/v1/search.json": .json(WeatherAPIFixtures.searchPerth)])
    ) { provider, _ in try await provider.geocode(name: "Perth Amboy", countryCode: nil) }
    #expect(
      place
        == Forecast.Place(
          name: "Perth Amboy", countryCode: "US", latitude: 40.51, longitude: -74.27))
  }

  @Test("a country name no table knows leaves the code missing, not wrong")
  func unknownCountry() async throws {
    let place = try await withStubbedWeatherAPI(
      answering: routing(["/v1/search.json": .json(WeatherAPIFixtures.searchUnknownCountry)])
    ) { provider, _ in try await provider.geocode(name: "Brigadoon", countryCode: nil) }
    #expect(
      place
        == Forecast.Place(name: "Brigadoon", countryCode: nil, latitude: 56.1, longitude: -4.2))
  }

  @Test("no match (an empty array, or error 1006) is nil; a blank name is not sent")
  func miss() async throws {
    let empty = try await withStubbedWeatherAPI(
      answering: routing(["/v1/search.json": .json("[]")])
    ) { provider, _ in try await provider.geocode(name: "Xqzzyville", countryCode: nil) }
    #expect(empty == nil)

    let noLocation = try await withStubbedWeatherAPI(
      answering: routing([
        "/v1/search.json": .json(
          WeatherAPIFixtures.error(1006, "Nothing by that name."), status: 400)
      ])
    ) { provider, _ in try await provider.geocode(name: "Xqzzyville", countryCode: "FR") }
    #expect(noLocation == nil)

    let (blank, requests) = try await withStubbedWeatherAPI(answering: routing([:])) {
      provider, server in (try await provider.geocode(name: " ", countryCode: nil), server.requests)
    }
    #expect(blank == nil)
    #expect(requests.isEmpty)
  }

  @Test("other errors are thrown as for forecasts")
  func quota() async throws {
    let error = try await withStubbedWeatherAPI(
      answering: routing([
        "/v1/search.json": .json(WeatherAPIFixtures.error(2007, "Calls used up."), status: 403)
      ])
    ) { provider, _ in
      await #expect(throws: ProviderError.self) {
        try await provider.geocode(name: "Perth", countryCode: nil)
      }
    }
    #expect(error == .rateLimited("Calls used up."))
  }

  @Test("WeatherAPI.com has no reverse geocoding; a point costs one call")
  func noReverse() async throws {
    let (can, place, calls) = try await withStubbedWeatherAPI(answering: routing([:])) {
      provider, _ in
      let someProvider: any WeatherProvider = provider
      return (
        someProvider.canReverseGeocode,
        try await someProvider.reverseGeocode(GeoPoint(latitude: 1, longitude: 2)),
        someProvider.upstreamCallsPerForecast
      )
    }
    #expect(!can)
    #expect(place == nil)
    #expect(calls == 1)
  }
}
