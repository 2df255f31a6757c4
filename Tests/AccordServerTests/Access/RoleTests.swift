import Foundation
import Testing
import AccordServer

/// Roles are ordered, and their strings are API (REST bodies, stored rows).
@Suite struct RoleTests {
    @Test func rolesAreOrderedReaderReadWriteOwner() {
        #expect(Role.reader < .readWrite)
        #expect(Role.readWrite < .owner)
        #expect(Role.reader < .owner)
        #expect(!(Role.owner < .reader))
        #expect(!(Role.readWrite < .readWrite))
        #expect(Role.allCases.shuffled().sorted() == [.reader, .readWrite, .owner])
        #expect([Role.reader, .owner, .readWrite].max() == .owner)
    }

    @Test func onlyReadWriteAndOwnerCanWrite() {
        #expect(!Role.reader.canWrite)
        #expect(Role.readWrite.canWrite)
        #expect(Role.owner.canWrite)
    }

    @Test func wireStringsNeverChange() throws {
        #expect(Role.allCases.map(\.rawValue) == ["reader", "read-write", "owner"])
        let encoded = try JSONEncoder().encode([Role.readWrite])
        #expect(String(decoding: encoded, as: UTF8.self) == #"["read-write"]"#)
        #expect(try JSONDecoder().decode([Role].self, from: Data(#"["owner","reader"]"#.utf8)) == [.owner, .reader])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Role].self, from: Data(#"["admin"]"#.utf8)) }
    }
}
