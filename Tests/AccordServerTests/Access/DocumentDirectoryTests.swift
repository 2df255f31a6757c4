import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordServer

/// Creating a document writes its metadata and an owner row, or neither.
@Suite struct DocumentDirectoryTests {
    let documents = DocumentStore(storage: .inMemory())
    var directory: DocumentDirectory {
        DocumentDirectory(documents: documents, access: AccessStore(storage: documents.storage))
    }

    @Test func createMakesTheCreatorTheOwner() throws {
        let directory = directory
        let metadata = try directory.create("team/notes", owner: "olivia", title: "Notes", tags: ["work", "q3"])
        #expect(metadata.id == "team/notes")
        #expect(metadata.title == "Notes")
        #expect(metadata.tags == ["work", "q3"])
        #expect(try documents.metadata("team/notes") == metadata)
        #expect(try (directory.access.access("team/notes")?.unlisted) == DocumentAccess(owner: "olivia"))
        #expect(try directory.access.role(of: "olivia", on: "team/notes") == .owner)
        #expect(try directory.access.role(of: "bob", on: "team/notes") == nil)
        let plain = try directory.create("plain", owner: "bob")
        #expect(plain.title == "" && plain.tags == [])
    }

    @Test func aTakenIDIsDocumentExistsAndChangesNothing() throws {
        let directory = directory
        let first = try directory.create("notes", owner: "olivia", title: "First")
        let error = #expect(throws: AccordError.self) {
            try directory.create("notes", owner: "mallory", title: "Second")
        }
        #expect(error?.code == .documentExists)
        #expect(try documents.metadata("notes") == first)
        #expect(try (directory.access.access("notes")?.unlisted) == DocumentAccess(owner: "olivia"))
    }

    /// A document made straight in the store has no row; the directory still refuses the id.
    @Test func aDocumentWithoutARowIsStillTaken() throws {
        let directory = directory
        try documents.create("legacy")
        #expect(throws: AccordError.self) { try directory.create("legacy", owner: "mallory") }
        #expect(try directory.access.access("legacy") == nil)
    }

    /// A row whose document is gone (deleted, or a crash between the two writes) means nothing.
    @Test func aRowLeftWithoutItsDocumentIsOverwritten() throws {
        let directory = directory
        var stale = DocumentAccess(owner: "mallory")
        stale.members["eve"] = .readWrite
        stale.linkAccess = .readWrite
        try directory.access.setAccess(stale, for: "notes")
        try directory.create("notes", owner: "olivia")
        #expect(try (directory.access.access("notes")?.unlisted) == DocumentAccess(owner: "olivia"))
        #expect(try directory.access.role(of: "eve", on: "notes") == nil)
    }

    @Test(arguments: ["a/permissions", "a/link-access", "a.b/permissions", "x/y/link-access", "a/owner"])
    func idsTheRESTAPICannotAddressAreRefused(_ raw: String) throws {
        let directory = directory
        let id = try DocumentID(validating: raw)
        let error = #expect(throws: AccordError.self) { try directory.create(id, owner: "olivia") }
        #expect(error?.code == .invalidArgument)
        #expect(try !documents.contains(id))
        #expect(try directory.access.access(id) == nil)
    }

    @Test(arguments: ["permissions", "link-access", "a/permissions/b", "a/permission", "a-link-access"])
    func idsThatOnlyResembleTheSuffixesAreFine(_ raw: String) throws {
        let directory = directory
        try directory.create(try DocumentID(validating: raw), owner: "olivia")
    }

    @Test func anInvalidOwnerIsRefusedAndNothingIsWritten() throws {
        let directory = directory
        for owner in ["", "tab\there", String(repeating: "x", count: 257)] {
            let error = #expect(throws: AccordError.self) { try directory.create("notes", owner: owner) }
            #expect(error?.code == .invalidArgument)
        }
        #expect(try !documents.contains("notes"))
        #expect(try directory.access.access("notes") == nil)
    }

    @Test func aFailedCreateTakesItsRowBack() throws {
        let directory = directory
        try documents.close()
        let error = #expect(throws: AccordError.self) { try directory.create("notes", owner: "olivia") }
        #expect(error?.code == .storeClosed)
        #expect(try directory.access.access("notes") == nil)
    }

    /// Racing creators of one id, each through its own directory value: one wins, and the
    /// row names the winner (without the creation lock a loser overwrites or removes it).
    @Test func racingCreatorsLeaveOneOwner() throws {
        let access = AccessStore(storage: documents.storage)
        for round in 0..<200 {
            let id = try DocumentID(validating: "race-\(round)")
            let winners = Recorder<String>()
            DispatchQueue.concurrentPerform(iterations: 4) { racer in
                let directory = DocumentDirectory(documents: documents, access: access)
                if (try? directory.create(id, owner: "user\(racer)")) != nil { winners.add("user\(racer)") }
            }
            #expect(winners.all.count == 1, "round \(round)")
            #expect(try access.access(id)?.owner == winners.all.first, "round \(round)")
        }
    }
}
