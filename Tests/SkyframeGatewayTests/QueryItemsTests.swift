import Testing

@testable import SkyframeGateway

/// The query of an HTTP or CoAP request: one item read without building the table gives what
/// the table gives.
struct QueryItemsTests {
  @Test func oneItemReadsAsTheTableHasIt() {
    let queries = [
      "q=Berlin,DE", "q=%237+~tiny+52.52,13.41&format=json", "format=json&q=52.52,13.41",
      "q=a&q=b", "x=1&q", "q=", "", "&&q=Z%C3%BCrich,CH&", "%71=encoded-name", "qq=1&q=2",
      "q=50%25", "format=JSON", "q+=space-after",
    ]
    for query in queries {
      let table = QueryItems.parse(query)
      for name in ["q", "format", "x", "q "] {
        #expect(QueryItems.value(of: name, in: query) == table[name], "\(name) in '\(query)'")
      }
    }
    #expect(QueryItems.value(of: "q", in: "%237+~tiny+52.52,13.41") == nil)
    #expect(QueryItems.value(of: "q", in: "q=%237+~tiny+52.52,13.41") == "#7 ~tiny 52.52,13.41")
  }
}
