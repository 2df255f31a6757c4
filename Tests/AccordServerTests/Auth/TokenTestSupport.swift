import AccordCRDT
import Foundation
import Testing

@testable import AccordServer

/// Shared fixtures for the token tests.
enum TokenFixtures {
    /// The secret of the first golden vector (38 bytes).
    static let secret = Array("accord-golden-vector-secret-0123456789".utf8)
    /// 2030-01-01T00:00:00Z.
    static let exp: TimeInterval = 1_893_456_000

    static func authority() throws -> TokenAuthority { try TokenAuthority(secret: secret) }

    /// A token signed with the fixture secret whose payload is `payload` verbatim.
    static func signedPayload(_ payload: String) throws -> String {
        try authority().signed(headerJSON: TokenAuthority.headerJSON, payloadJSON: Array(payload.utf8))
    }

    /// A token signed with the fixture secret whose header is `header` verbatim.
    static func signedHeader(_ header: String) throws -> String {
        try authority().signed(headerJSON: Array(header.utf8), payloadJSON: Array(#"{"sub":"alice","exp":1893456000}"#.utf8))
    }
}

/// Runs `body`, which must throw `UNAUTHENTICATED` with detail `reason`.
func expectUnauthenticated(
    _ reason: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws(AccordError) -> TokenClaims
) {
    do {
        let claims = try body()
        Issue.record("accepted (\(claims)); expected reason \(reason)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == .unauthenticated, "\(error)", sourceLocation: sourceLocation)
        #expect(error.details["reason"] == reason, "\(error)", sourceLocation: sourceLocation)
    }
}
