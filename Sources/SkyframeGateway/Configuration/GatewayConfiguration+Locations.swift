import Foundation
import SkyframeCodec
import SkyframeProviders

// The named places (`locations`): read, checked and described by the list itself
// (`GatewayConfiguration+ConfigReader.swift` reads it last).

extension [GatewayConfiguration.NamedLocation] {
  /// Reads `locations.names`, then one block `locations.{name}` per name, naming the key of
  /// every problem; a name refused, listed twice or whose block is incomplete is left out.
  init(reading keys: KeyReader) {
    self.init()
    for name in keys.stringArray("locations.names") ?? [] {
      guard (1...32).contains(name.utf8.count),
        name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }),
        name != "names"
      else {
        keys.fail("locations.names", name, "names of 1-32 characters a-z, 0-9 and '-'")
        continue
      }
      if contains(where: { $0.name == name }) {
        keys.fail("locations.names", name, "each name once")
        continue
      }
      if let location = Element(reading: keys, name: name) {
        append(location)
      }
    }
  }

  /// `locations` in `skyframe config check`'s YAML.
  var describedLines: [String] {
    ["locations:", "  names: [\(map(\.name).joined(separator: ", "))]"]
      + flatMap(\.describedLines)
  }
}

extension GatewayConfiguration.NamedLocation {
  /// Reads the block `locations.{name}`; nil when it gives neither latitude and longitude nor a
  /// place (or both).
  init?(reading keys: KeyReader, name: String) {
    let key = "locations.\(name)"
    let latitude = keys.optionalNumber("\(key).latitude", -90...90, "degrees, -90 to 90")
    let longitude = keys.optionalNumber("\(key).longitude", -180...180, "degrees, -180 to 180")
    let placeName = keys.text("\(key).place")
    let country = keys.text("\(key).country")
    if let country, country.count != 2 || !country.allSatisfy({ $0.isASCII && $0.isLetter }) {
      keys.fail("\(key).country", country, "a two-letter ISO country code")
    }
    let refresh = keys.integer("\(key).refresh-seconds", 600, 60...86_400, "seconds, 60-86400")
    var profiles: [FrameProfile] = []
    let profileText = keys.text("\(key).profiles") ?? "standard"
    for word in profileText.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
      guard let profile = FrameProfile(named: word), !profiles.contains(profile) else {
        keys.fail(
          "\(key).profiles", profileText,
          "profiles separated by commas, each once: standard, large, tiny")
        break
      }
      profiles.append(profile)
    }
    let place: Place
    switch (latitude, longitude, placeName) {
    case (let latitude?, let longitude?, nil):
      place = .coordinates(latitude: latitude, longitude: longitude)
    case (nil, nil, let placeName?):
      place = .named(placeName, countryCode: country?.uppercased())
    default:
      keys.fail(key, nil, "either latitude and longitude, or place (with an optional country)")
      return nil
    }
    self.init(
      name: name, place: place, refreshSeconds: refresh,
      profiles: profiles.isEmpty ? [.standard] : profiles)
  }

  /// This place's block in `skyframe config check`'s YAML, under `locations`.
  var describedLines: [String] {
    var lines = ["  \(name):"]
    switch place {
    case .coordinates(let latitude, let longitude):
      lines.append("    latitude: \(latitude)")
      lines.append("    longitude: \(longitude)")
    case .named(let placeName, let country):
      lines.append("    place: \(DescribedValue.text(placeName))")
      lines.append("    country: \(DescribedValue.text(country))")
    }
    lines.append("    refresh-seconds: \(refreshSeconds)")
    lines.append("    profiles: \(profiles.map { "\($0.name)" }.joined(separator: ","))")
    return lines
  }
}
