import Testing
import AccordCRDT
import AccordStore

/// Storage error codes are API: renaming one must fail here.
@Suite struct StoreErrorCodeGoldenTests {
    @Test func everyStoreCodeKeepsItsString() {
        let expected = [
            "STORAGE_ERROR", "STORAGE_FULL", "STORAGE_READ_ONLY", "STORAGE_CORRUPT", "DOCUMENT_NOT_FOUND",
            "DOCUMENT_EVICTED", "DOCUMENT_EXISTS", "UNACKNOWLEDGED_WRITES", "BLOB_NOT_FOUND", "STORE_CLOSED",
            "STORAGE_NONCONFORMING", "BLOB_HASH_MISMATCH",
        ]
        #expect(ErrorCode.allStoreCodes.map(\.rawValue) == expected)
        #expect(Set(ErrorCode.allStoreCodes).isDisjoint(with: ErrorCode.allCRDTCodes))
    }
}
