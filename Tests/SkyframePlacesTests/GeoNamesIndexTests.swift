import Foundation
import Testing

@testable import SkyframePlaces

@Suite struct GeoNamesIndexTests {
  let directory: TemporaryDirectory
  let index: GeoNamesIndex

  init() throws {
    directory = try TemporaryDirectory()
    index = try GeoNamesIndex.load(path: directory.write("cities500.txt", Cities.file(Cities.all)))
  }

  @Test func loadsEveryPlace() {
    #expect(index.count == Cities.all.count)
    #expect(index.skippedLines == 0)
    #expect(index.skippedLineProblems.isEmpty)
  }

  @Test func nearestInACity() throws {
    // Alexanderplatz.
    let place = try #require(index.nearest(latitude: 52.5219, longitude: 13.4132))
    #expect(place.name == "Berlin")
    #expect(place.countryCode == "DE")
    #expect(place.latitude == 52.52437)
    #expect(place.longitude == 13.41053)
    #expect(place.distanceMetres > 250 && place.distanceMetres < 450)
    // Sanssouci is nearer Potsdam than Berlin.
    #expect(index.nearest(latitude: 52.4043, longitude: 13.0386)?.name == "Potsdam")
    #expect(index.nearest(latitude: 48.8584, longitude: 2.2945)?.name == "Paris")
    #expect(index.nearest(latitude: -33.8568, longitude: 151.2153)?.name == "Sydney")
    #expect(index.nearest(latitude: -36.85, longitude: 174.76)?.name == "Auckland")
  }

  @Test func exactlyAtAPlaceIsZeroMetres() throws {
    let place = try #require(index.nearest(latitude: -18.14161, longitude: 178.44149))
    #expect(place.name == "Suva")
    #expect(place.distanceMetres == 0)
  }

  @Test func nothingWithinTheMaximumIsNil() throws {
    // Mid-Atlantic, and between Berlin and Potsdam with a small maximum.
    #expect(index.nearest(latitude: 30, longitude: -40) == nil)
    #expect(index.nearest(latitude: 30, longitude: -40, within: 1_000_000) == nil)
    #expect(index.nearest(latitude: 52.46, longitude: 13.24, within: 5_000) == nil)
    // Further out the search grows until something is in reach.
    let far = try #require(index.nearest(latitude: 30, longitude: -40, within: 5_000_000))
    #expect(far.name == "Paris")
    let anywhere = try #require(index.nearest(latitude: 30, longitude: -40, within: .infinity))
    #expect(anywhere.name == "Paris")
    #expect(index.nearest(latitude: 52.52437, longitude: 13.41053, within: 0)?.name == "Berlin")
  }

  @Test func theMaximumIsInclusive() throws {
    let berlinToPotsdam = GeoNamesIndex.haversineMetres(
      fromLatitude: 52.52437, longitude: 13.41053, toLatitude: 52.39886, longitude: 13.06566)
    #expect(berlinToPotsdam > 26_000 && berlinToPotsdam < 28_000)
    let path = try directory.write("potsdam.txt", Cities.file([Cities.potsdam]))
    let potsdam = try GeoNamesIndex.load(path: path)
    #expect(
      potsdam.nearest(latitude: 52.52437, longitude: 13.41053, within: berlinToPotsdam - 0.01)
        == nil)
    let place = try #require(
      potsdam.nearest(latitude: 52.52437, longitude: 13.41053, within: berlinToPotsdam))
    #expect(place.name == "Potsdam")
    #expect(place.distanceMetres == berlinToPotsdam)
  }

  @Test func invalidQueriesAreNil() {
    #expect(index.nearest(latitude: .nan, longitude: 13) == nil)
    #expect(index.nearest(latitude: 52.5, longitude: .infinity) == nil)
    #expect(index.nearest(latitude: 91, longitude: 0) == nil)
    #expect(index.nearest(latitude: -90.5, longitude: 0) == nil)
    #expect(index.nearest(latitude: 52.52437, longitude: 13.41053, within: -1) == nil)
    #expect(index.nearest(latitude: 52.52437, longitude: 13.41053, within: .nan) == nil)
  }

  @Test func longitudesWrapModulo360() {
    #expect(index.nearest(latitude: 52.52, longitude: 13.41 + 360)?.name == "Berlin")
    #expect(index.nearest(latitude: 52.52, longitude: 13.41 - 720)?.name == "Berlin")
    #expect(index.nearest(latitude: -18.14, longitude: 178.44 - 360)?.name == "Suva")
  }

  @Test func acrossTheAntimeridian() throws {
    // 179.99 and -179.99 are 0.02° of longitude apart, about 2.1 km at 16.85° S.
    let east = try #require(index.nearest(latitude: -16.85, longitude: 179.99))
    #expect(east.name == "Vuna East")
    #expect(east.distanceMetres > 2_000 && east.distanceMetres < 2_200)
    #expect(index.nearest(latitude: -16.85, longitude: 180)?.name == "Vuna East")
    #expect(index.nearest(latitude: -16.85, longitude: -180)?.name == "Vuna East")
    // From the other side, Suva is about 230 km away across the line.
    let west = try #require(index.nearest(latitude: -19.5, longitude: -179.9, within: 300_000))
    #expect(west.name == "Suva")
    #expect(west.distanceMetres > 220_000 && west.distanceMetres < 245_000)
    // Kiritimati is far from the line: nothing near the line at its latitude.
    #expect(index.nearest(latitude: 1.87, longitude: 179.99, within: 100_000) == nil)
    #expect(index.nearest(latitude: 1.88, longitude: -157.42)?.name == "Kiritimati")
  }

  @Test func aPlaceAtLongitude180IsFoundFromBothSides() throws {
    let path = try directory.write(
      "line.txt",
      Cities.file([
        CityLine(1, "On The Line", "-16.5", "180", "FJ", 10),
        CityLine(2, "Far West", "-16.5", "170", "FJ", 10),
      ]))
    let line = try GeoNamesIndex.load(path: path)
    #expect(line.nearest(latitude: -16.5, longitude: 179.95)?.name == "On The Line")
    #expect(line.nearest(latitude: -16.5, longitude: -179.95)?.name == "On The Line")
    #expect(line.nearest(latitude: -16.5, longitude: 180)?.distanceMetres == 0)
  }

  @Test func nearThePoles() throws {
    // 0.05° from the pole on the other side of the globe: 0.05° + 0.05° over the pole, 11.1 km.
    let north = try #require(index.nearest(latitude: 89.95, longitude: 90))
    #expect(north.name == "North Camp")
    #expect(north.countryCode == "")
    #expect(abs(north.distanceMetres - 11_119.5) < 2)
    #expect(index.nearest(latitude: 90, longitude: 0)?.name == "North Camp")
    #expect(index.nearest(latitude: 89.99, longitude: 123.4)?.name == "North Camp")
    // The pole itself is at every longitude.
    for longitude in stride(from: -180.0, through: 180, by: 45) {
      let south = try #require(index.nearest(latitude: -89.9, longitude: longitude))
      #expect(south.name == "Amundsen-Scott")
      #expect(abs(south.distanceMetres - 11_119.5) < 2)
    }
    // cos(-90°) is 6e-17 in floating point, not 0: a nanometre apart.
    let atThePole = try #require(index.nearest(latitude: -90, longitude: 77))
    #expect(atThePole.name == "Amundsen-Scott")
    #expect(atThePole.distanceMetres < 1e-6)
    #expect(index.nearest(latitude: 78.22, longitude: 15.65)?.name == "Longyearbyen")
    #expect(index.nearest(latitude: -77.85, longitude: 166.67)?.name == "McMurdo Station")
    // Far north of Svalbard: nothing, then North Camp over the pole.
    #expect(index.nearest(latitude: 85, longitude: 15) == nil)
    #expect(index.nearest(latitude: 85, longitude: 15, within: 600_000)?.name == "North Camp")
  }

  @Test func utf8NamesArePreserved() throws {
    #expect(index.nearest(latitude: 47.37, longitude: 8.54)?.name == "Zürich")
    #expect(index.nearest(latitude: 35.69, longitude: 139.7)?.name == "東京")
    #expect(index.nearest(latitude: -23.55, longitude: -46.63)?.name == "São Paulo")
    #expect(index.nearest(latitude: -23.55, longitude: -46.63)?.countryCode == "BR")
  }

  @Test func minimumPopulationLeavesSmallPlacesOut() throws {
    let path = try directory.write("cities.txt", Cities.file(Cities.all))
    let big = try GeoNamesIndex.load(path: path, minimumPopulation: 1_000_000)
    #expect(big.count == 5)
    #expect(big.nearest(latitude: 52.4043, longitude: 13.0386)?.name == nil)
    #expect(big.nearest(latitude: 52.4043, longitude: 13.0386, within: 50_000)?.name == "Berlin")
    #expect(throws: GeoNamesError.noPlaces(path: path, minimumPopulation: 20_000_000, lines: 15)) {
      try GeoNamesIndex.load(path: path, minimumPopulation: 20_000_000)
    }
  }

  @Test func haversineAgreesWithKnownDistances() {
    let berlinParis = GeoNamesIndex.haversineMetres(
      fromLatitude: 52.52437, longitude: 13.41053, toLatitude: 48.85341, longitude: 2.3488)
    #expect(abs(berlinParis - 878_000) < 2_000)
    let quarter = GeoNamesIndex.haversineMetres(
      fromLatitude: 0, longitude: 0, toLatitude: 0, longitude: 90)
    #expect(abs(quarter - GeoNamesIndex.earthRadiusMetres * .pi / 2) < 1e-6)
    let antipode = GeoNamesIndex.haversineMetres(
      fromLatitude: 10, longitude: 20, toLatitude: -10, longitude: -160)
    // The haversine formula loses precision near the antipode (asin near 1): still within a metre.
    #expect(abs(antipode - GeoNamesIndex.earthRadiusMetres * .pi) < 1)
  }
}

@Suite struct GeoNamesTieTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory() }

  @Test(arguments: [false, true])
  func samePositionGoesToTheMorePopulous(bigFirst: Bool) throws {
    let small = CityLine(1, "Old Town", "50.1", "8.6", "DE", 2_000)
    let big = CityLine(2, "Big City", "50.1", "8.6", "DE", 700_000)
    let path = try directory.write("tie.txt", Cities.file(bigFirst ? [big, small] : [small, big]))
    let index = try GeoNamesIndex.load(path: path)
    #expect(index.nearest(latitude: 50.11, longitude: 8.61)?.name == "Big City")
  }

  @Test func equalPopulationsGoToTheEarlierLine() throws {
    let path = try directory.write(
      "tie.txt",
      Cities.file([
        CityLine(1, "First", "50.1", "8.6", "DE", 5_000),
        CityLine(2, "Second", "50.1", "8.6", "DE", 5_000),
      ]))
    let index = try GeoNamesIndex.load(path: path)
    #expect(index.nearest(latitude: 50.11, longitude: 8.61)?.name == "First")
  }

  @Test(arguments: [false, true])
  func equidistantPlacesGoToTheMorePopulous(westIsBig: Bool) throws {
    // Symmetric about longitude 11 on the equator, in different grid buckets.
    let west = CityLine(1, "West", "0", "10.5", "GA", westIsBig ? 90_000 : 900)
    let east = CityLine(2, "East", "0", "11.5", "GA", westIsBig ? 900 : 90_000)
    let path = try directory.write("tie.txt", Cities.file([west, east]))
    let index = try GeoNamesIndex.load(path: path)
    let place = try #require(index.nearest(latitude: 0, longitude: 11, within: 100_000))
    #expect(place.name == (westIsBig ? "West" : "East"))
    // A few metres off the middle, the nearer one wins whatever the populations.
    #expect(index.nearest(latitude: 0, longitude: 11.0001, within: 100_000)?.name == "East")
    #expect(index.nearest(latitude: 0, longitude: 10.9999, within: 100_000)?.name == "West")
  }
}

@Suite struct GeoNamesCrossCheckTests {
  /// 2 000 places and 2 000 positions from a seeded generator: the index gives what looking at
  /// every place gives. Places cluster near the poles and the antimeridian, some share a position,
  /// and the maximum distance varies from 20 km to unlimited.
  @Test func indexAgreesWithALinearScan() async throws {
    var random = SeededRandom(seed: 0x6E0_4A3E5)
    var places: [CityLine] = []
    func coordinate(_ value: Double) -> String { String(format: "%.5f", value) }
    func randomPosition() -> (latitude: Double, longitude: Double) {
      switch Int.random(in: 0..<10, using: &random) {
      case 0:  // near a pole
        let pole: Double = Bool.random(using: &random) ? 90 : -90
        let offset = Double.random(in: 0...3, using: &random)
        return (
          pole > 0 ? pole - offset : pole + offset, Double.random(in: -180...180, using: &random)
        )
      case 1:  // near the antimeridian
        let longitude = Double.random(in: 177...183, using: &random)
        return (
          Double.random(in: -60...60, using: &random), longitude > 180 ? longitude - 360 : longitude
        )
      case 2, 3:  // a dense patch
        return (
          Double.random(in: 50...52, using: &random), Double.random(in: 7...10, using: &random)
        )
      default:  // uniform on the sphere
        let z = Double.random(in: -1...1, using: &random)
        return (asin(z) * 180 / .pi, Double.random(in: -180..<180, using: &random))
      }
    }
    for id in 0..<2_000 {
      let population = Int.random(in: 0...5, using: &random) * 1_000
      if id > 0, Int.random(in: 0..<20, using: &random) == 0 {
        let twin = places[Int.random(in: 0..<places.count, using: &random)]
        places.append(CityLine(id, "P\(id)", twin.latitude, twin.longitude, "XX", population))
      } else {
        let position = randomPosition()
        places.append(
          CityLine(
            id, "P\(id)", coordinate(position.latitude), coordinate(position.longitude), "XX",
            population))
      }
    }
    let directory = try TemporaryDirectory()
    let index = try GeoNamesIndex.load(path: directory.write("random.txt", Cities.file(places)))
    #expect(index.count == 2_000)

    let maxima: [Double] = [20_000, 100_000, 500_000, 3_000_000, .infinity]
    var found = 0
    for query in 0..<2_000 {
      if query % 50 == 0 { await Task.yield() }
      var position = randomPosition()
      if query % 4 == 0 {
        // Right next to a place, where ties and buckets' edges matter.
        let place = places[Int.random(in: 0..<places.count, using: &random)]
        position = (
          min(
            90, max(-90, Double(place.latitude)! + Double.random(in: -0.01...0.01, using: &random))),
          Double(place.longitude)! + Double.random(in: -0.01...0.01, using: &random)
        )
      }
      let maximum = maxima[Int.random(in: 0..<maxima.count, using: &random)]
      let expected = linearNearest(
        places, latitude: position.latitude, longitude: position.longitude, within: maximum)
      let actual = index.nearest(
        latitude: position.latitude, longitude: position.longitude, within: maximum)
      #expect(actual?.name == expected?.name, "query \(query) at \(position) within \(maximum)")
      if let actual, let expected {
        #expect(abs(actual.distanceMetres - expected.distanceMetres) < 1e-6)
        found += 1
      }
    }
    #expect(found > 1_000)
  }
}
