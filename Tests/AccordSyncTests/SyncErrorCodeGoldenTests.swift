import Testing
import AccordCRDT
import AccordServer
@testable import AccordSync

/// The code strings are API: a rename fails here.
@Suite struct SyncErrorCodeGoldenTests {
    @Test func syncCodes() {
        #expect(
            ErrorCode.allSyncCodes.map(\.rawValue) == [
                "NETWORK_TIMEOUT", "DOCUMENT_NOT_OPEN", "DOCUMENT_UNAVAILABLE_OFFLINE", "LOCAL_ONLY_UNSUPPORTED_OPTION",
                "UNAVAILABLE", "NETWORK_ERROR", "UNEXPECTED_RESPONSE", "BLOB_UNAVAILABLE_OFFLINE",
                "TLS_CERTIFICATE_INVALID",
            ])
    }

    /// The client spells the server's refusal codes by string; they must stay the server's.
    @Test func writeRefusalsAreTheServersCodes() {
        #expect(WriteRefusal.permissionDenied == ErrorCode.permissionDenied)
        #expect(WriteRefusal.documentTooLarge == ErrorCode.documentTooLarge)
        #expect(WriteRefusal.messageTooLarge == ErrorCode.messageTooLarge)
        #expect(WriteRefusal.codes == [.permissionDenied, .documentTooLarge])
        #expect(TokenRequestReason.refusalCode == ErrorCode.unauthenticated)
        #expect(JoinRefusal.codes == [.docAccessDenied, .documentNotFound, .documentUnavailable])
    }
}
