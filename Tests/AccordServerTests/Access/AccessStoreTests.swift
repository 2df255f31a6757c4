import Testing
import AccordCRDT
import AccordStore
import AccordServer
import AccordTesting

/// Access rows: stored as JSON under `server.access`, validated, and kept across reopening.
@Suite struct AccessStoreTests {
    static let category = StorageCategory("server.access")
    let id: DocumentID = "team/notes"

    static func sample() -> DocumentAccess {
        var access = DocumentAccess(owner: "olivia")
        access.members = ["rita": .reader, "wes": .readWrite]
        access.linkAccess = .reader
        return access
    }

    static func rawRow(_ storage: SerialStorage, _ id: DocumentID) throws -> [UInt8]? {
        try storage.withAdapter { try $0.read(category, key: id.rawValue) }
    }

    @Test func setReadRemoveInMemory() throws {
        let store = AccessStore(storage: .inMemory())
        #expect(try store.access(id) == nil)
        #expect(try store.role(of: "olivia", on: id) == nil)
        try store.setAccess(Self.sample(), for: id)
        #expect(try store.access(id) == Self.sample())
        #expect(try store.role(of: "olivia", on: id) == .owner)
        #expect(try store.role(of: "wes", on: id) == .readWrite)
        #expect(try store.role(of: "stranger", on: id) == .reader)
        #expect(try store.access("team") == nil)
        try store.removeAccess(id)
        #expect(try store.access(id) == nil)
        try store.removeAccess(id)
    }

    @Test func rowIsTheSortedJSONOfDocumentAccess() throws {
        let storage = SerialStorage.inMemory()
        try AccessStore(storage: storage).setAccess(Self.sample(), for: id)
        let row = try #require(try Self.rawRow(storage, id))
        #expect(
            String(decoding: row, as: UTF8.self)
                == #"{"linkAccess":"reader","members":{"rita":"reader","wes":"read-write"},"owner":"olivia"}"#)
    }

    @Test func rowsSurviveReopeningTheSQLiteFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("server.sqlite")
        do {
            let store = AccessStore(storage: try SerialStorage(path: path))
            try store.setAccess(Self.sample(), for: id)
            try store.setAccess(DocumentAccess(owner: "bob"), for: "other")
            try store.setAccess(DocumentAccess(owner: "carol"), for: "gone")
            try store.removeAccess("gone")
        }
        let reopened = AccessStore(storage: try SerialStorage(path: path))
        #expect(try reopened.access(id) == Self.sample())
        #expect(try reopened.access("other") == DocumentAccess(owner: "bob"))
        #expect(try reopened.access("gone") == nil)
        #expect(try reopened.role(of: "rita", on: id) == .reader)
    }

    /// A replaced row reads back new, although the old one was cached.
    @Test func replacingARowReadsBackTheNewRow() throws {
        let store = AccessStore(storage: .inMemory())
        try store.setAccess(Self.sample(), for: id)
        var changed = Self.sample()
        changed.members["rita"] = nil
        changed.linkAccess = nil
        try store.setAccess(changed, for: id)
        #expect(try store.access(id) == changed)
        #expect(try store.role(of: "rita", on: id) == nil)
    }

    @Test func invalidRowsAreRefusedAndNothingIsWritten() throws {
        let storage = SerialStorage.inMemory()
        let store = AccessStore(storage: storage)
        try store.setAccess(Self.sample(), for: id)
        let before = try Self.rawRow(storage, id)

        var secondOwner = Self.sample()
        secondOwner.members["mallory"] = .owner
        var ownerFloor = Self.sample()
        ownerFloor.linkAccess = .owner
        var emptyMember = Self.sample()
        emptyMember.members[""] = .reader
        var controlMember = Self.sample()
        controlMember.members["bad\u{7}user"] = .reader
        let emptyOwner = DocumentAccess(owner: "")
        let longOwner = DocumentAccess(owner: String(repeating: "u", count: 257))

        for invalid in [secondOwner, ownerFloor, emptyMember, controlMember, emptyOwner, longOwner] {
            let error = #expect(throws: AccordError.self) { try store.setAccess(invalid, for: id) }
            #expect(error?.code == .invalidArgument)
            #expect(try Self.rawRow(storage, id) == before)
            #expect(try store.access(id) == Self.sample())
            #expect(throws: AccordError.self) { try store.setAccess(invalid, for: "fresh") }
            #expect(try Self.rawRow(storage, "fresh") == nil)
        }
        // The longest valid user id is accepted, and the owner may be listed.
        var edge = DocumentAccess(owner: String(repeating: "u", count: 256))
        edge.members[edge.owner] = .owner
        try store.setAccess(edge, for: "edge")
        #expect(try store.access("edge") == edge)
    }

    @Test(arguments: [
        "not json",
        #"{"owner":"olivia"}"#,
        #"{"owner":"olivia","members":{"mallory":"owner"}}"#,
        #"{"owner":"olivia","members":{},"linkAccess":"owner"}"#,
        #"{"owner":"olivia","members":{"bob":"admin"}}"#,
        #"{"owner":"","members":{}}"#,
    ])
    func damagedRowsAreStorageCorrupt(_ row: String) throws {
        let storage = SerialStorage.inMemory()
        try storage.withAdapter { try $0.commit([.put(Self.category, key: id.rawValue, value: Array(row.utf8))]) }
        let store = AccessStore(storage: storage)
        let error = #expect(throws: AccordError.self) { try store.access(id) }
        #expect(error?.code == .storageCorrupt)
        #expect(error?.details["document"] == id.rawValue)
        #expect(throws: AccordError.self) { try store.role(of: "olivia", on: id) }
    }

    @Test func aValidHandWrittenRowIsRead() throws {
        let storage = SerialStorage.inMemory()
        let row = #"{"owner":"olivia","members":{"bob":"read-write"}}"#
        try storage.withAdapter { try $0.commit([.put(Self.category, key: id.rawValue, value: Array(row.utf8))]) }
        var expected = DocumentAccess(owner: "olivia")
        expected.members["bob"] = .readWrite
        #expect(try AccessStore(storage: storage).access(id) == expected)
    }
}
