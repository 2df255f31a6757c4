import Testing
import AccordCRDT
import AccordStore
import AccordServer

/// Server error codes are API: renaming one must fail here.
@Suite struct ServerErrorCodeGoldenTests {
    @Test func everyServerCodeKeepsItsString() {
        let expected = [
            "UNAUTHENTICATED", "PERMISSION_DENIED", "DOC_ACCESS_DENIED", "DOCUMENT_UNAVAILABLE", "MESSAGE_TOO_LARGE",
            "DOCUMENT_TOO_LARGE", "RATE_LIMITED", "AWARENESS_CLIENT_TAKEN", "SLOW_CONSUMER", "TOO_MANY_CONNECTIONS",
            "TOO_MANY_ROOMS", "TOO_MANY_DOCUMENTS", "QUOTA_EXCEEDED", "METADATA_TOO_LARGE", "DOCUMENT_DELETED",
            "ALIAS_EXISTS", "ROOT_DOCUMENT_PROTECTED", "BLOB_TOO_LARGE",
            "BLOB_UPLOAD_OFFSET_MISMATCH", "BLOB_UPLOAD_IN_PROGRESS", "SERVER_NOT_READY",
            "COLLECTION_NOT_FOUND", "COLLECTION_EXISTS", "ACCESS_REQUEST_NOT_FOUND", "ACCESS_REQUEST_RESOLVED",
            "INVALID_EMAIL", "TOO_MANY_INVITATIONS",
        ]
        #expect(ErrorCode.allServerCodes.map(\.rawValue) == expected)
        #expect(Set(ErrorCode.allServerCodes).isDisjoint(with: ErrorCode.allCRDTCodes + ErrorCode.allStoreCodes))
    }
}
