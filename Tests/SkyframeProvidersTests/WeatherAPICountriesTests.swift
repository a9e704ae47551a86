import Testing

@testable import SkyframeProviders

@Suite("WeatherAPI.com country names")
struct WeatherAPICountriesTests {
  @Test("names as the service writes them become ISO codes, whatever their case and accents")
  func known() {
    let expected = [
      "United States of America": "US", "United Kingdom": "GB", "Switzerland": "CH",
      "australia": "AU", "Bosnia and Herzegovina": "BA", "Saint Lucia": "LC",
      "Côte d’Ivoire": "CI", "Cote d'Ivoire": "CI", "Turkey": "TR", "  New   Zealand ": "NZ",
    ]
    for (name, code) in expected {
      #expect(WeatherAPICountries.code(forName: name) == code, "\(name)")
    }
  }

  @Test("an unknown name has no code")
  func unknown() {
    for name in ["Atlantis", "", "Europe", "US of A"] {
      #expect(WeatherAPICountries.code(forName: name) == nil, "\(name)")
    }
  }
}
