import Foundation
import SkyframeProviders
import Testing

@testable import SkyframeGateway

/// The cluster's pieces on their own: membership from presence messages, rendezvous ownership of
/// scheduled work, the budget share, the instance id.
struct ClusterTests {
  static let online = Array(#"{"state":"online"}"#.utf8)

  func members(_ own: String, with others: [String]) -> ClusterMembers {
    let members = ClusterMembers(own: own)
    for other in others { members.receive(id: other, payload: Self.online) }
    return members
  }

  @Test func everyKeyHasExactlyOneOwnerWhoEveryMemberAgreesOn() {
    let ids = ["gw-a", "gw-b", "gw-c"]
    let views = ids.map { id in members(id, with: ids.filter { $0 != id }) }
    var counts = [String: Int]()
    for index in 0..<3_000 {
      let key = "device-\(index)"
      let owners = zip(ids, views).filter { $0.1.owns(key) }.map(\.0)
      #expect(owners.count == 1, "\(key): \(owners)")
      counts[owners.first ?? "", default: 0] += 1
    }
    // Spread: each of three members gets roughly a third.
    for id in ids { #expect((800...1_200).contains(counts[id] ?? 0), "\(counts)") }
  }

  @Test func aMemberLeavingMovesOnlyTheKeysItHeld() {
    let keys = (0..<2_000).map { "place-\($0)" }
    let before = Dictionary(
      uniqueKeysWithValues: keys.map { ($0, ClusterMembers.owner(of: $0, among: ["a", "b", "c"])) })
    let after = Dictionary(
      uniqueKeysWithValues: keys.map { ($0, ClusterMembers.owner(of: $0, among: ["a", "c"])) })
    for key in keys where before[key] != "b" {
      #expect(after[key] == before[key], "\(key) moved though its owner stayed")
    }
    #expect(keys.contains { before[$0] == "b" })
  }

  @Test func presenceMessagesAddAndRemoveWithinTheBound() {
    let members = ClusterMembers(own: "me")
    #expect(members.live == ["me"])
    #expect(members.owns("anything"))
    #expect(members.receive(id: "other", payload: Self.online))
    #expect(!members.receive(id: "other", payload: Self.online))
    #expect(members.live == ["me", "other"])
    #expect(members.receive(id: "other", payload: []))
    // A stale empty message for this instance does not remove it.
    #expect(!members.receive(id: "me", payload: []))
    #expect(members.live == ["me"])
    for index in 0..<200 { members.receive(id: "flood-\(index)", payload: Self.online) }
    #expect(members.count == ClusterSettings.maximumMembers)
    #expect(members.live.contains("me"))
  }

  @Test func eachInstanceSpendsItsShareOfTheBudget() {
    let fleet = FleetShare()
    let budget = CallBudget(
      ServiceBudget(perMinute: 600, perDay: 10_000),
      clock: GatewayClock(
        ContinuousClock(), unixTimeAtStart: 1_800_000_000), fleet: fleet)
    fleet.set(2)
    #expect(budget.remaining.minute == 300)
    #expect(budget.take(300))
    #expect(!budget.take(1))
    fleet.set(1)
    #expect(budget.take(1))
    #expect(fleet.share(of: 0) == 0)
    fleet.set(3)
    #expect(fleet.share(of: 1) == 1)
    #expect(fleet.share(of: 10_000) == 3_333)
  }

  @Test func derivedInstanceIdsDifferByHostAndProcessAndFitAClientID() {
    var settings = ClusterSettings()
    #expect(settings.resolvedInstanceID() == nil)
    settings.group = "a-rather-long-group-name-of-32ch"
    let one = settings.resolvedInstanceID(host: "pi-kitchen", process: 4_194_304)
    let two = settings.resolvedInstanceID(host: "pi-garage", process: 4_194_304)
    let three = settings.resolvedInstanceID(host: "pi-kitchen", process: 77)
    #expect(Set([one, two, three]).count == 3)
    for id in [one, two, three] { #expect((id?.utf8.count ?? 99) <= 23, "\(id ?? "")") }
    settings.instanceID = "gw-1"
    #expect(settings.resolvedInstanceID() == "gw-1")
  }
}
