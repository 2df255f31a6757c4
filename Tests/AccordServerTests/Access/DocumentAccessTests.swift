import Testing
import AccordServer

/// The effective role: owner first, then the higher of a grant and the link floor.
@Suite struct DocumentAccessTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var grant: Role?
        var floor: Role?
        var expected: Role?
        var testDescription: String { "grant \(grant?.rawValue ?? "-"), floor \(floor?.rawValue ?? "-")" }
    }

    /// Every grant × every floor the API can store, for a user who is not the owner.
    static let cases: [Case] = [
        Case(grant: nil, floor: nil, expected: nil),
        Case(grant: nil, floor: .reader, expected: .reader),
        Case(grant: nil, floor: .readWrite, expected: .readWrite),
        Case(grant: .reader, floor: nil, expected: .reader),
        Case(grant: .reader, floor: .reader, expected: .reader),
        Case(grant: .reader, floor: .readWrite, expected: .readWrite),
        Case(grant: .readWrite, floor: nil, expected: .readWrite),
        Case(grant: .readWrite, floor: .reader, expected: .readWrite),
        Case(grant: .readWrite, floor: .readWrite, expected: .readWrite),
    ]

    @Test(arguments: cases) func memberRoleIsTheHigherOfGrantAndFloor(_ c: Case) {
        var access = DocumentAccess(owner: "olivia")
        access.members["bob"] = c.grant
        access.linkAccess = c.floor
        #expect(access.role(of: "bob") == c.expected)
        #expect(access.role(of: "olivia") == .owner)
    }

    @Test func newAccessHasOnlyTheOwner() {
        let access = DocumentAccess(owner: "olivia")
        #expect(access.owner == "olivia")
        #expect(access.members.isEmpty)
        #expect(access.linkAccess == nil)
        #expect(access.role(of: "olivia") == .owner)
        #expect(access.role(of: "bob") == nil)
        #expect(access.role(of: "") == nil)
    }

    @Test func aListingNeverLowersTheOwner() {
        var access = DocumentAccess(owner: "olivia")
        access.members["olivia"] = .reader
        #expect(access.role(of: "olivia") == .owner)
    }

    @Test func userIDsCompareExactly() {
        var access = DocumentAccess(owner: "Olivia")
        access.members["bob"] = .readWrite
        #expect(access.role(of: "olivia") == nil)
        #expect(access.role(of: "Bob") == nil)
        #expect(access.role(of: "bob ") == nil)
    }

    /// A second owner built in memory (the store refuses to keep one) counts as read-write.
    @Test func ownerGrantsOrFloorsForOthersCountAsReadWrite() {
        var access = DocumentAccess(owner: "olivia")
        access.members["mallory"] = .owner
        #expect(access.role(of: "mallory") == .readWrite)
        access.members = [:]
        access.linkAccess = .owner
        #expect(access.role(of: "anyone") == .readWrite)
        #expect(access.role(of: "olivia") == .owner)
    }
}
