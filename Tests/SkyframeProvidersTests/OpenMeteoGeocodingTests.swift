import SkyframeProviders
import SkyframeTestSupport
import SkyframeWeather
import Testing

@Suite("Open-Meteo geocoding")
struct OpenMeteoGeocodingTests {
  @Test("a hit: the request names the place, and the exact name wins over the first result")
  func hit() async throws {
    let (place, requests) = try await withStubbedOpenMeteo(
      answering: .json(ProviderFixtures.geocodingSpringfield)
    ) { provider, server in
      (try await provider.geocode(name: "Springfield", countryCode: nil), server.requests)
    }
    let request = try #require(requests.first)
    #expect(request.path == "/v1/search")
    #expect(
      request.query == ["name": "Springfield", "count": "10", "language": "en", "format": "json"])
    #expect(
      place
        == Forecast.Place(
          name: "Springfield", countryCode: "US", latitude: 39.80172, longitude: -89.64371))
  }

  @Test("without an exact name the first result is taken")
  func firstResult() async throws {
    let place = try await withStubbedOpenMeteo(
      answering: .json(ProviderFixtures.geocodingSpringfield)
    ) { provider, _ in
      try await provider.geocode(name: "Springf", countryCode: nil)
    }
    #expect(place?.name == "Springfield Gardens")
  }

  @Test("the country code and language are sent; names are percent-encoded both ways")
  func countryCodeAndEncoding() async throws {
    var configuration = OpenMeteoConfiguration()
    configuration.language = "de"
    let (place, requests) = try await withStubbedOpenMeteo(
      answering: .json(ProviderFixtures.geocodingZurich), configuration: configuration
    ) { provider, server in
      (try await provider.geocode(name: "Zürich & Co", countryCode: "ch"), server.requests)
    }
    let request = try #require(requests.first)
    #expect(request.uri.contains("name=Z%C3%BCrich%20%26%20Co&"))
    #expect(request.query["name"] == "Zürich & Co")
    #expect(request.query["countryCode"] == "CH")
    #expect(request.query["language"] == "de")
    #expect(
      place
        == Forecast.Place(name: "Zürich", countryCode: "CH", latitude: 47.36667, longitude: 8.55))
  }

  @Test("no results key means no match: nil")
  func noMatch() async throws {
    let place = try await withStubbedOpenMeteo(answering: .json(ProviderFixtures.geocodingEmpty)) {
      provider, _ in try await provider.geocode(name: "Xqzzyville", countryCode: "DE")
    }
    #expect(place == nil)
  }

  @Test("names shorter than two characters are not sent")
  func tooShort() async throws {
    let (place, requests) = try await withStubbedOpenMeteo(
      answering: .json(ProviderFixtures.geocodingZurich)
    ) { provider, server in
      (try await provider.geocode(name: " Z ", countryCode: nil), server.requests)
    }
    #expect(place == nil)
    #expect(requests.isEmpty)
  }
}
