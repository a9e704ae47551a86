import Foundation
import Testing

@testable import SkyframeProviders

/// The mapping tables in Swift and in `schemas/` must say the same, row for row.
@Suite("Condition tables")
struct ConditionTableTests {
  /// `schemas/<name>` in this checkout.
  private static func schema(_ name: String) throws -> String {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("schemas").appendingPathComponent(name)
    return try String(contentsOf: url, encoding: .utf8)
  }

  /// The rows of the document's table whose first header cell is `key`: first column → third.
  private static func rows(of document: String, key: String) throws -> [(id: Int, wmo: Int)] {
    let lines = document.split(separator: "\n").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    let header = try #require(lines.firstIndex { $0.hasPrefix("| \(key) |") })
    #expect(lines[header] == "| \(key) | meaning | WMO | WMO meaning |")
    var rows: [(id: Int, wmo: Int)] = []
    for line in lines[(header + 2)...] {
      guard line.hasPrefix("|") else { break }
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      // "", id, meaning, WMO, WMO meaning, ""
      try #require(cells.count == 6, "row \(line)")
      let id = try #require(Int(cells[1]), "id in \(line)")
      let wmo = try #require(Int(cells[3]), "WMO in \(line)")
      #expect(!cells[2].isEmpty && !cells[4].isEmpty, "meanings in \(line)")
      rows.append((id, wmo))
    }
    return rows
  }

  private static func check(document: String, key: String, table: [Int: Int], wmo: (Int) -> Int?)
    throws
  {
    let rows = try rows(of: document, key: key)
    #expect(rows.count == table.count)
    #expect(Set(rows.map(\.id)).count == rows.count, "an id appears twice in the document")
    for row in rows {
      #expect(wmo(row.id) == row.wmo, "\(key) \(row.id)")
      #expect((0...99).contains(row.wmo), "\(key) \(row.id) maps outside WMO 0–99")
    }
    let documented = Set(rows.map(\.id))
    for id in table.keys.sorted() {
      #expect(documented.contains(id), "\(key) \(id) is in the Swift table but not documented")
    }
  }

  @Test("schemas/openweathermap-conditions.md and OpenWeatherMapConditions agree")
  func openWeatherMap() throws {
    try Self.check(
      document: try Self.schema("openweathermap-conditions.md"), key: "id",
      table: OpenWeatherMapConditions.table, wmo: OpenWeatherMapConditions.wmo)
    // Every group of OpenWeatherMap's ids is covered.
    let groups = Set(OpenWeatherMapConditions.table.keys.map { $0 / 100 })
    #expect(groups == [2, 3, 5, 6, 7, 8])
  }

  @Test("schemas/weatherapi-conditions.md and WeatherAPIConditions agree")
  func weatherAPI() throws {
    try Self.check(
      document: try Self.schema("weatherapi-conditions.md"), key: "code",
      table: WeatherAPIConditions.table, wmo: WeatherAPIConditions.wmo)
    #expect(WeatherAPIConditions.table.keys.allSatisfy { (1000...1282).contains($0) })
  }

  @Test("schemas/metno-symbols.md and METNorwayConditions agree, with and without suffixes")
  func metNorway() throws {
    let document = try Self.schema("metno-symbols.md")
    let lines = document.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let header = try #require(lines.firstIndex { $0.hasPrefix("| symbol |") })
    #expect(lines[header] == "| symbol | meaning | WMO | WMO meaning |")
    var rows: [(symbol: String, variants: Bool, wmo: Int)] = []
    for line in lines[(header + 2)...] {
      guard line.hasPrefix("|") else { break }
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      try #require(cells.count == 6, "row \(line)")
      rows.append((cells[1], cells[2].hasSuffix("(day/night)"), try #require(Int(cells[3]))))
    }
    // 41 ids, 21 of them with day, night and polar-twilight variants: 83 strings.
    #expect(rows.count == 41)
    #expect(rows.filter(\.variants).count == 21)
    #expect(Set(rows.map(\.symbol)) == Set(METNorwayConditions.table.keys))
    var strings = 0
    for row in rows {
      if row.variants {
        #expect(METNorwayConditions.wmo(symbol: row.symbol) == nil, "\(row.symbol) needs a suffix")
        for (suffix, day) in [("day", true), ("night", false), ("polartwilight", false)] {
          let mapped = METNorwayConditions.wmo(symbol: "\(row.symbol)_\(suffix)")
          #expect(mapped?.code == row.wmo && mapped?.isDay == day, "\(row.symbol)_\(suffix)")
          strings += 1
        }
      } else {
        let mapped = METNorwayConditions.wmo(symbol: row.symbol)
        #expect(mapped?.code == row.wmo && mapped?.isDay == nil, "\(row.symbol)")
        #expect(METNorwayConditions.wmo(symbol: "\(row.symbol)_day") == nil)
        strings += 1
      }
    }
    #expect(strings == 83)
    for unknown in ["", "sunny", "clearsky_evening", "lightsleetshowersandthunder_day", "Rain"] {
      #expect(METNorwayConditions.wmo(symbol: unknown) == nil, "\(unknown)")
    }
  }

  @Test("ids and codes nobody documents map to nothing")
  func unknown() {
    for id in [0, 199, 299, 499, 512, 699, 700, 805, 900] {
      #expect(OpenWeatherMapConditions.wmo(id) == nil)
    }
    for code in [0, 999, 1001, 1004, 1283, 1300] {
      #expect(WeatherAPIConditions.wmo(code) == nil)
    }
  }
}
