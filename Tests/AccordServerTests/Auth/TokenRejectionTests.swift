import AccordCRDT
import Foundation
import Testing

@testable import AccordServer

/// Tokens that must be refused, each with the `reason` a client or a log sees.
///
/// Odd headers and payloads are signed with the fixture secret, so each token fails for
/// the one reason under test and not because its signature is wrong.
@Suite struct TokenRejectionTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let golden = TokenAuthorityTests.golden
    static let goldenParts = golden.split(separator: ".").map(String.init)

    func expectRejected(_ token: String?, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let authority = try TokenFixtures.authority()
        expectUnauthenticated(reason, sourceLocation: sourceLocation) { () throws(AccordError) in
            try authority.verify(token, now: Self.now)
        }
    }

    @Test(arguments: [nil, ""] as [String?]) func missingToken(token: String?) throws {
        try expectRejected(token, "missing")
    }

    @Test(arguments: [
        #"{"alg":"none","typ":"JWT"}"#,
        #"{"alg":"HS512","typ":"JWT"}"#,
        #"{"alg":"RS256"}"#,
        #"{"alg":"hs256"}"#,
        #"{"alg":["HS256"]}"#,
        #"{"typ":"JWT"}"#,
        #"{"alg":"HS256","crit":["exp"]}"#,
    ])
    func algorithmOtherThanHS256IsRefused(header: String) throws {
        try expectRejected(try TokenFixtures.signedHeader(header), "unsupported-algorithm")
    }

    /// The classic `alg: none` attack: no signature at all.
    @Test func unsignedNoneTokenIsRefused() throws {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        try expectRejected(header + "." + Self.goldenParts[1] + ".", "unsupported-algorithm")
    }

    @Test func typIsOptional() throws {
        let token = try TokenFixtures.signedHeader(#"{"alg":"HS256"}"#)
        #expect(try TokenFixtures.authority().verify(token, now: Self.now).subject == "alice")
    }

    @Test func emptySignatureWithRightAlgIsForged() throws {
        try expectRejected(Self.goldenParts[0] + "." + Self.goldenParts[1] + ".", "forged")
    }

    @Test(arguments: [1, 2, 4, 5]) func wrongSegmentCount(count: Int) throws {
        let parts = (0..<count).map { Self.goldenParts[$0 % 3] }
        try expectRejected(parts.joined(separator: "."), "malformed")
    }

    /// Each differs from the golden token (the test checks), so none is refused by accident.
    @Test(arguments: [
        golden + "=",  // padding on the signature
        goldenParts[0] + "=." + goldenParts[1] + "." + goldenParts[2],
        goldenParts[0].replacingOccurrences(of: "J", with: "+") + "." + goldenParts[1] + "." + goldenParts[2],
        goldenParts[0] + "." + goldenParts[1] + "." + goldenParts[2].replacingOccurrences(of: "-", with: "+"),
        goldenParts[0] + "." + goldenParts[1] + "." + goldenParts[2].replacingOccurrences(of: "-", with: "/"),
        goldenParts[0] + "." + goldenParts[1] + "." + goldenParts[2] + "AA",  // 45 characters: length % 4 == 1
        " " + golden,
        golden + "\n",
        goldenParts[0] + ". " + goldenParts[1] + "." + goldenParts[2],
        goldenParts[0] + "." + goldenParts[1] + "." + goldenParts[2].dropLast() + "é",
        "..",
    ])
    func notCanonicalBase64URL(token: String) throws {
        #expect(token != Self.golden)
        try expectRejected(token, "malformed")
    }

    /// The signature is 32 bytes, so its 43 characters end in 2 unused bits. Setting them
    /// gives another spelling of the same bytes, which a strict decoder refuses.
    @Test func nonZeroUnusedBitsAreRefused() throws {
        let signature = Self.goldenParts[2]
        let last = try #require(signature.last)  // "I": value 8, unused bits 00
        #expect(last == "I")
        for sibling in ["J", "K", "L"] {
            try expectRejected(
                Self.goldenParts[0] + "." + Self.goldenParts[1] + "." + signature.dropLast() + sibling, "malformed")
        }
    }

    @Test(arguments: ["not json", "", "[1,2]", "\"alice\"", "42", "null", "undefined", #"{"sub":"alice","exp":1}x"#])
    func payloadThatIsNoJSONObject(payload: String) throws {
        try expectRejected(try TokenFixtures.signedPayload(payload), "malformed")
    }

    @Test(arguments: ["not json", "[]", #"{"alg":"HS256""#]) func headerThatIsNoJSONObject(header: String) throws {
        try expectRejected(try TokenFixtures.signedHeader(header), "malformed")
    }

    @Test func invalidUTF8PayloadIsRefused() throws {
        let authority = try TokenFixtures.authority()
        let bytes = Array(#"{"sub":""#.utf8) + [0xFF, 0xFE] + Array(#"","exp":1893456000}"#.utf8)
        let token = authority.signed(headerJSON: TokenAuthority.headerJSON, payloadJSON: bytes)
        try expectRejected(token, "malformed")
    }

    @Test(arguments: [
        #"{"exp":1893456000}"#,
        #"{"sub":"","exp":1893456000}"#,
        #"{"sub":42,"exp":1893456000}"#,
        #"{"sub":null,"exp":1893456000}"#,
        #"{"sub":"alice"}"#,
        #"{"sub":"alice","exp":"1893456000"}"#,
        #"{"sub":"alice","exp":null}"#,
        #"{"sub":"alice","exp":true}"#,
        #"{"sub":"alice","exp":1e999}"#,
        #"{}"#,
    ])
    func unusableClaims(payload: String) throws {
        try expectRejected(try TokenFixtures.signedPayload(payload), "invalid-claims")
    }

    @Test func oversizedTokenIsRefusedBeforeDecoding() throws {
        // Well-formed and correctly signed, only too long: the size alone refuses it.
        let subject = String(repeating: "a", count: 6_200)
        let token = try TokenFixtures.authority().mint(subject: subject, expiresAt: Date(timeIntervalSince1970: TokenFixtures.exp))
        #expect(token.utf8.count > 8 * 1024)
        try expectRejected(token, "oversized")
        try expectRejected(String(repeating: "A", count: 8 * 1024 + 1), "oversized")
    }

    @Test func tokenAtTheSizeLimitIsDecoded() throws {
        // Just at the limit, the token is read and judged on its content.
        try expectRejected(String(repeating: "A", count: 8 * 1024), "malformed")
    }

    @Test func rejectionsHaveUnauthenticatedCodeString() throws {
        do {
            _ = try TokenFixtures.authority().verify(nil)
            Issue.record("accepted no token")
        } catch let error as AccordError {
            #expect(error.description.hasPrefix("UNAUTHENTICATED: "))
        }
    }
}
