import Foundation
import Testing

@testable import SkyframePlaces

@Suite struct GeoNamesLoadingTests {
  let directory: TemporaryDirectory

  init() throws { directory = try TemporaryDirectory() }

  private func loadError(_ path: String) throws -> GeoNamesError {
    do {
      _ = try GeoNamesIndex.load(path: path)
    } catch {
      return error
    }
    Issue.record("\(path) loaded")
    throw CancellationError()
  }

  @Test func missingFileNamesThePath() throws {
    let path = directory.url.appendingPathComponent("geonames/cities500.txt").path
    let error = try loadError(path)
    #expect(error == .fileNotFound(path: path))
    #expect(error.description == "\(path): no such file")
    #expect(error.path == path)
  }

  @Test func aDirectoryIsNotAFile() throws {
    let error = try loadError(directory.url.path)
    #expect(error == .notARegularFile(path: directory.url.path))
    #expect(error.description.contains(directory.url.path))
  }

  @Test func emptyFile() throws {
    let path = try directory.write("cities.txt", "")
    #expect(try loadError(path) == .empty(path: path))
    #expect(
      try loadError(path).description == "\(path): empty file, expected GeoNames cities*.txt lines")
    let blank = try directory.write("blank.txt", "\n\r\n\n")
    #expect(try loadError(blank) == .empty(path: blank))
  }

  @Test func aBadNumberRejectsASmallFileNamingTheLine() throws {
    var lines = [Cities.berlin, Cities.potsdam, Cities.paris, Cities.sydney].map(\.text)
    lines[2] = CityLine(3, "Nowhere", "abc", "2.35", "FR", 10).text
    let path = try directory.write("cities.txt", lines.joined(separator: "\n"))
    let error = try loadError(path)
    let problem = GeoNamesLineProblem(line: 3, problem: .notANumber(field: "latitude", text: "abc"))
    #expect(error == .malformed(path: path, problems: [problem], malformedLines: 1, lines: 4))
    #expect(
      error.description
        == "\(path) line 3: latitude 'abc' is not a number (1 of 4 lines malformed; more than 2% rejects the file)"
    )
  }

  @Test func tooFewColumnsNamesTheLineAndTheCount() throws {
    let text =
      Cities.berlin.text + "\n" + "2852458\tPotsdam\tPotsdam\t\t52.39886\n" + Cities.paris.text
      + "\n"
    let path = try directory.write("cities.txt", text)
    let error = try loadError(path)
    #expect(
      error.description.hasPrefix("\(path) line 2: expected 19 tab-separated columns, found 5 ("))
  }

  @Test func everyKindOfProblemIsDescribed() throws {
    let cases: [(CityLine, String)] = [
      (CityLine(1, "", "1", "2", "DE", 1), "name is empty"),
      (CityLine(1, "A", "1.2.3", "2", "DE", 1), "latitude '1.2.3' is not a number"),
      (CityLine(1, "A", "", "2", "DE", 1), "latitude '' is not a number"),
      (CityLine(1, "A", "nan", "2", "DE", 1), "latitude 'nan' is not a number"),
      (CityLine(1, "A", "90.5", "2", "DE", 1), "latitude 90.5 is outside -90...90"),
      (CityLine(1, "A", "1", "-180.01", "DE", 1), "longitude -180.01 is outside -180...180"),
      (CityLine(1, "A", "1", "2x", "DE", 1), "longitude '2x' is not a number"),
      (CityLine(1, "A", "1", "2", "DEU", 1), "country code 'DEU' is not two letters"),
      (CityLine(1, "A", "1", "2", "D1", 1), "country code 'D1' is not two letters"),
    ]
    for (index, (line, expected)) in cases.enumerated() {
      let path = try directory.write("case\(index).txt", line.text + "\n")
      let error = try loadError(path)
      #expect(error.description.hasPrefix("\(path) line 1: \(expected) ("), "\(error)")
    }
    var population = CityLine(1, "A", "1", "2", "DE", 1).text.split(
      separator: "\t", omittingEmptySubsequences: false)
    population[14] = "12x"
    let path = try directory.write("population.txt", population.joined(separator: "\t"))
    #expect(
      try loadError(path).description.hasPrefix(
        "\(path) line 1: population '12x' is not a whole number"))
    var invalid = Data(CityLine(1, "AB", "1", "2", "DE", 1).text.utf8)
    invalid[invalid.firstIndex(of: UInt8(ascii: "B"))!] = 0xFF
    let invalidPath = try directory.write("utf8.txt", invalid)
    #expect(
      try loadError(invalidPath).description.hasPrefix(
        "\(invalidPath) line 1: name is not valid UTF-8"))
  }

  @Test func aFewMalformedLinesAreSkippedAndCounted() throws {
    var lines = (0..<100).map {
      CityLine($0, "Place \($0)", "\(Double($0) / 10)", "\(Double($0) / 10)", "XX", $0).text
    }
    lines.insert("this is not a GeoNames line", at: 41)
    lines.insert(CityLine(999, "Bad", "12", "east", "XX", 5).text, at: 77)
    let path = try directory.write("cities.txt", lines.joined(separator: "\n") + "\n")
    let index = try GeoNamesIndex.load(path: path)
    #expect(index.count == 100)
    #expect(index.skippedLines == 2)
    #expect(
      index.skippedLineProblems.map(\.description) == [
        "line 42: expected 19 tab-separated columns, found 1",
        "line 78: longitude 'east' is not a number",
      ])
    #expect(index.nearest(latitude: 5, longitude: 5)?.name == "Place 50")
  }

  @Test func manyMalformedLinesRejectTheFileQuotingTheFirstTen() throws {
    let lines = (0..<100).map {
      $0 % 10 == 0 ? "garbage \($0)" : CityLine($0, "P", "1", "2", "XX", 1).text
    }
    let path = try directory.write("cities.txt", lines.joined(separator: "\n"))
    let error = try loadError(path)
    guard case .malformed(_, let problems, let malformedLines, let total) = error else {
      Issue.record("\(error)")
      return
    }
    #expect(problems.map(\.line) == [1, 11, 21, 31, 41, 51, 61, 71, 81, 91])
    #expect(malformedLines == 10)
    #expect(total == 100)
    #expect(
      error.description.hasSuffix("(10 of 100 lines malformed; more than 2% rejects the file)"))
  }

  @Test func notAGeoNamesFileAtAll() throws {
    let path = try directory.write("worldcities.csv", "city,lat,lng\nBerlin,52.52,13.40\n")
    #expect(
      try loadError(path).description.hasPrefix(
        "\(path) line 1: expected 19 tab-separated columns, found 1"))
  }

  @Test func byteOrderMarkCarriageReturnsBlankLinesAndNoFinalNewline() throws {
    let text =
      "\u{FEFF}" + Cities.zurich.text + "\r\n\r\n" + Cities.tokyo.text + "\r\n\n"
      + Cities.saoPaulo.text
    let path = try directory.write("cities.txt", text)
    let index = try GeoNamesIndex.load(path: path)
    #expect(index.count == 3)
    #expect(index.skippedLines == 0)
    #expect(index.nearest(latitude: 47.37, longitude: 8.55)?.name == "Zürich")
    #expect(index.nearest(latitude: 35.69, longitude: 139.69)?.name == "東京")
    #expect(index.nearest(latitude: -23.55, longitude: -46.64)?.name == "São Paulo")
    #expect(index.nearest(latitude: -23.55, longitude: -46.64)?.countryCode == "BR")
  }

  @Test func lineNumbersCountBlankLines() throws {
    let text =
      "\n" + Cities.berlin.text + "\n\n" + "broken\n"
      + (0..<60).map { _ in Cities.paris.text + "\n" }.joined()
    let path = try directory.write("cities.txt", text)
    let index = try GeoNamesIndex.load(path: path)
    #expect(index.skippedLineProblems.map(\.line) == [4])
  }

  @Test(arguments: [1, 2, 7, 64, 1 << 20])
  func linesCutAcrossReadsAreWhole(chunkSize: Int) throws {
    let text = Cities.file(Cities.all) + Cities.berlin.text
    let path = try directory.write("cities.txt", text)
    let index = try GeoNamesIndex.load(path: path, minimumPopulation: 0, chunkSize: chunkSize)
    #expect(index.count == Cities.all.count + 1)
    #expect(index.skippedLines == 0)
    #expect(index.nearest(latitude: 35.69, longitude: 139.7)?.name == "東京")
    #expect(index.nearest(latitude: 47.37, longitude: 8.54)?.name == "Zürich")
    #expect(index.nearest(latitude: 52.52, longitude: 13.41)?.name == "Berlin")
  }

  @Test func decimalsParseLikeDouble() {
    var random = SeededRandom(seed: 42)
    var texts = [
      "0", "-0", "+1.5", "52.52437", "-179.99999", "180", "90.000000000000000001", "1e2", ".5",
      "5.",
    ]
    for _ in 0..<2_000 {
      let value = Double.random(in: -180...180, using: &random)
      texts.append(String(format: "%.\(Int.random(in: 0...12, using: &random))f", value))
    }
    for text in texts {
      let parsed = Array(text.utf8).withUnsafeBufferPointer { GeoNamesParser.parseDecimal($0) }
      #expect(parsed == Double(text), "\(text)")
    }
    for bad in ["", "-", ".", "1.2.3", "1,5", " 1", "inf", "nan", "0x"] {
      #expect(
        Array(bad.utf8).withUnsafeBufferPointer { GeoNamesParser.parseDecimal($0) } == nil, "\(bad)"
      )
    }
  }
}
