import Testing
import AccordCRDT
import AccordNet
@testable import AccordSync

/// Server answers and transport failures become the error an app can act on.
@Suite struct ServerErrorMappingTests {
    @Test func theServersErrorBodyKeepsCodeMessageDetailsAndStatus() {
        let body = Array(#"{"error":{"code":"PERMISSION_DENIED","message":"too low","details":{"role":"reader"}}}"#.utf8)
        let error = ServerErrorMapping.error(status: 403, body: body)
        #expect(error == AccordError(.permissionDenied, "too low", details: ["role": "reader"], httpStatus: 403))
    }

    @Test(arguments: ["<html>bad gateway</html>", "", #"{"error":"x"}"#, #"{"error":{"code":"","message":""}}"#])
    func anythingElseIsAnUnexpectedResponse(body: String) {
        let error = ServerErrorMapping.error(status: 502, body: Array(body.utf8))
        #expect(error.code == .unexpectedResponse)
        #expect(error.httpStatus == 502)
    }

    @Test func noAnswerIsANetworkErrorAndATimeoutKeepsTheTimeoutCode() {
        for code in [NetError.Code.connectFailed, .requestFailed, .cancelled, .responseTooLarge, .invalidURL] {
            let error = ServerErrorMapping.error(NetError(code, "x"))
            #expect(error.code == .networkError)
            #expect(error.httpStatus == nil)
            #expect(error.details["netCode"] == code.rawValue)
        }
        #expect(ServerErrorMapping.error(NetError(.timedOut, "x")).code == .networkTimeout)
    }
}
