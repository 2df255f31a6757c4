import AccordCRDT
import AccordDatabase
import AccordRecords
import AccordStore
import Testing

/// The code strings are API (other SDKs, logs): a rename fails here.
@Suite struct DatabaseErrorCodeGoldenTests {
    @Test func everyDatabaseCodeKeepsItsString() {
        #expect(ErrorCode.allDatabaseCodes.map(\.rawValue) == [
            "RESERVED_KEY", "INVALID_NAME", "DATABASE_LOCKED", "DATABASE_CLOSED", "COLLECTION_NOT_FOUND",
            "INVALID_VALUE",
        ])
        let others = ErrorCode.allCRDTCodes + ErrorCode.allStoreCodes + ErrorCode.allRecordsCodes
        #expect(Set(ErrorCode.allDatabaseCodes).isDisjoint(with: others))
    }
}
