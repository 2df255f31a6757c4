import AccordCRDT
import AccordRecords
import AccordStore
import AccordSync
import Testing

/// The code strings are API (CLI output, other SDKs): a rename fails here.
@Suite struct RecordsErrorCodeGoldenTests {
    @Test func everyRecordsCodeKeepsItsString() {
        #expect(ErrorCode.allRecordsCodes.map(\.rawValue) == [
            "RESERVED_FIELD_NAME", "UNIQUE_ON_STRINGSET", "INVALID_SCHEMA", "INVALID_QUERY", "MODEL_NOT_REGISTERED",
            "UNIQUE_VIOLATION", "RECORD_NOT_FOUND",
        ])
        #expect(Set(ErrorCode.allRecordsCodes).isDisjoint(with: ErrorCode.allCRDTCodes + ErrorCode.allStoreCodes))
    }
}
