import Testing
import AccordCRDT
import AccordStore
import AccordServer

/// One mapping from error codes to HTTP statuses, and one JSON error shape.
@Suite struct RESTErrorTests {
    @Test(arguments: [
        ("UNAUTHENTICATED", 401), ("DOC_ACCESS_DENIED", 403), ("PERMISSION_DENIED", 403),
        ("DOCUMENT_NOT_FOUND", 404), ("DOCUMENT_EXISTS", 409), ("INVALID_ARGUMENT", 400),
        ("MALFORMED_JSON", 400), ("STORAGE_ERROR", 500), ("STORAGE_CORRUPT", 500), ("STORE_CLOSED", 500),
        ("STORAGE_FULL", 500),
    ])
    func statusForCode(_ code: String, _ status: Int) {
        let response = RESTError.response(AccordError(ErrorCode(rawValue: code), "m"))
        #expect(response.status == status)
        #expect(response.errorCode == code)
    }

    @Test func bodyIsTheErrorEnvelope() {
        let response = RESTError.response(
            AccordError(.documentNotFound, "no document a/b", details: ["document": "a/b", "role": "reader"]))
        #expect(response.contentType == "application/json")
        #expect(
            response.text
                == #"{"error":{"code":"DOCUMENT_NOT_FOUND","details":{"document":"a/b","role":"reader"},"message":"no document a/b"}}"#
        )
    }

    @Test func detailsAreAlwaysAnObject() {
        let response = RESTError.response(AccordError(.unauthenticated, "who are you"))
        #expect(response.text == #"{"error":{"code":"UNAUTHENTICATED","details":{},"message":"who are you"}}"#)
    }
}
