/// Why a GeoNames `cities*.txt` file gave no index. Every case names the file as it was given.
public enum GeoNamesError: Error, Sendable, Equatable {
  case fileNotFound(path: String)
  case notARegularFile(path: String)
  /// The file exists but could not be opened or read; `reason` is the system's explanation.
  case unreadable(path: String, reason: String)
  /// No bytes, or nothing but blank lines.
  case empty(path: String)
  /// More than `GeoNamesIndex.maximumMalformedFraction` of the non-blank lines are malformed:
  /// probably not a GeoNames `cities*.txt` file, or a damaged one. `problems` holds the first few.
  case malformed(path: String, problems: [GeoNamesLineProblem], malformedLines: Int, lines: Int)
  /// Well formed, but no place has at least `minimumPopulation` people.
  case noPlaces(path: String, minimumPopulation: Int, lines: Int)

  public var path: String {
    switch self {
    case .fileNotFound(let path), .notARegularFile(let path), .unreadable(let path, _),
      .empty(let path),
      .malformed(let path, _, _, _), .noPlaces(let path, _, _):
      path
    }
  }
}

extension GeoNamesError: CustomStringConvertible {
  public var description: String {
    switch self {
    case .fileNotFound(let path): "\(path): no such file"
    case .notARegularFile(let path): "\(path): not a regular file"
    case .unreadable(let path, let reason): "\(path): cannot be read: \(reason)"
    case .empty(let path): "\(path): empty file, expected GeoNames cities*.txt lines"
    case .malformed(let path, let problems, let malformedLines, let lines):
      malformedDescription(
        path: path, problems: problems, malformedLines: malformedLines, lines: lines)
    case .noPlaces(let path, let minimumPopulation, let lines):
      "\(path): none of \(lines) places has a population of at least \(minimumPopulation)"
    }
  }

  private func malformedDescription(
    path: String, problems: [GeoNamesLineProblem], malformedLines: Int, lines: Int
  ) -> String {
    let percent = Int((GeoNamesIndex.maximumMalformedFraction * 100).rounded())
    var text = problems.first.map { "\(path) \($0)" } ?? path
    if problems.count > 1 {
      text += "; " + problems.dropFirst().map(\.description).joined(separator: "; ")
    }
    if malformedLines > problems.count { text += "; …" }
    text +=
      " (\(malformedLines) of \(lines) lines malformed; more than \(percent)% rejects the file)"
    return text
  }
}

/// One line of a GeoNames file that could not be read as a place: its 1-based line number in
/// the file (blank lines count) and what is wrong with it.
public struct GeoNamesLineProblem: Sendable, Equatable, CustomStringConvertible {
  public enum Problem: Sendable, Equatable {
    /// A place line has 19 tab-separated columns.
    case columnCount(found: Int)
    case emptyName
    case nameNotUTF8
    /// `field` is "latitude", "longitude" or "population"; `text` as found, shortened if long.
    case notANumber(field: String, text: String)
    case outOfRange(field: String, text: String)
    /// The country code is empty or two ASCII letters.
    case badCountryCode(text: String)
  }

  public var line: Int
  public var problem: Problem

  public init(line: Int, problem: Problem) {
    self.line = line
    self.problem = problem
  }

  public var description: String {
    let what =
      switch problem {
      case .columnCount(let found): "expected 19 tab-separated columns, found \(found)"
      case .emptyName: "name is empty"
      case .nameNotUTF8: "name is not valid UTF-8"
      case .notANumber(let field, let text):
        field == "population"
          ? "population '\(text)' is not a whole number" : "\(field) '\(text)' is not a number"
      case .outOfRange(let field, let text):
        "\(field) \(text) is outside \(field == "latitude" ? "-90...90" : "-180...180")"
      case .badCountryCode(let text): "country code '\(text)' is not two letters"
      }
    return "line \(line): \(what)"
  }
}
