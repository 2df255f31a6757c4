import AccordCRDT
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import AccordServer

/// One verifier, one set of rules, for REST and WebSocket alike: `sub` is a valid user
/// id (1 to 256 bytes, no control characters), and `nbf` and `iat` are honoured with a
/// 60-second allowance for clock skew.
@Suite(.timeLimit(.minutes(2)))
struct TokenClaimRulesTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let exp = 1_893_456_000

    static func token(_ claims: String) throws -> String {
        try TokenFixtures.signedPayload("{\(claims),\"exp\":\(exp)}")
    }

    static let badSubjects = [String(repeating: "a", count: 257), "ali\u{1}ce", "tab\there", "del\u{7F}"]

    @Test(arguments: badSubjects)
    func subjectsNoAccessRowCouldHoldAreInvalidClaims(_ subject: String) throws {
        let sub = String(decoding: try JSONEncoder().encode(subject), as: UTF8.self)
        let token = try Self.token("\"sub\":\(sub)")
        let authority = try TokenFixtures.authority()
        expectUnauthenticated("invalid-claims") { () throws(AccordError) in try authority.verify(token, now: Self.now) }
    }

    @Test func aSubjectOf256BytesIsFine() throws {
        let subject = String(repeating: "é", count: 128)
        let claims = try TokenFixtures.authority().verify(try Self.token("\"sub\":\"\(subject)\""), now: Self.now)
        #expect(claims.subject == subject)
    }

    @Test func notBeforeIsHonouredWithSixtySecondsOfSkew() throws {
        let authority = try TokenFixtures.authority()
        let at = Int(Self.now.timeIntervalSince1970)
        do {
            let token = try Self.token("\"sub\":\"a\",\"nbf\":\(at + 61)")
            expectUnauthenticated("not-yet-valid") { () throws(AccordError) in try authority.verify(token, now: Self.now) }
        }
        let skewed = try authority.verify(try Self.token("\"sub\":\"a\",\"nbf\":\(at + 60)"), now: Self.now)
        #expect(skewed.notBefore == Date(timeIntervalSince1970: Double(at + 60)))
        _ = try authority.verify(try Self.token("\"sub\":\"a\",\"nbf\":\(at - 3600)"), now: Self.now)
        do {
            let token = try Self.token("\"sub\":\"a\",\"nbf\":\"soon\"")
            expectUnauthenticated("invalid-claims") { () throws(AccordError) in try authority.verify(token, now: Self.now) }
        }
    }

    @Test func issuedAtInTheFutureIsRefused() throws {
        let authority = try TokenFixtures.authority()
        let at = Int(Self.now.timeIntervalSince1970)
        do {
            let token = try Self.token("\"sub\":\"a\",\"iat\":\(at + 86_400)")
            expectUnauthenticated("not-yet-valid") { () throws(AccordError) in try authority.verify(token, now: Self.now) }
        }
        let claims = try authority.verify(try Self.token("\"sub\":\"a\",\"iat\":\(at + 30)"), now: Self.now)
        #expect(claims.issuedAt == Date(timeIntervalSince1970: Double(at + 30)))
        do {
            let token = try Self.token("\"sub\":\"a\",\"iat\":true")
            expectUnauthenticated("invalid-claims") { () throws(AccordError) in try authority.verify(token, now: Self.now) }
        }
    }

    @Test func subjectProblemNamesWhatTheVerifierRefuses() throws {
        #expect(TokenAuthority.subjectProblem("alice") == nil)
        #expect(TokenAuthority.subjectProblem(String(repeating: "a", count: 256)) == nil)
        for subject in Self.badSubjects + [""] {
            #expect(TokenAuthority.subjectProblem(subject) != nil, "\(subject.debugDescription)")
        }
    }

    /// The WebSocket refuses what REST refuses: a subject with a control character or
    /// over 256 bytes, and a token not valid yet.
    @Test func theWebSocketAppliesTheSameRulesAsREST() async throws {
        let server = try TestServer()
        let now = Int(Date().timeIntervalSince1970)
        let tokens = [
            server.tokens.mint(subject: "ali\u{1}ce", ttl: 3600),
            server.tokens.mint(subject: String(repeating: "a", count: 300), ttl: 3600),
            server.tokens.signed(
                headerJSON: TokenAuthority.headerJSON,
                payloadJSON: Array(#"{"sub":"ada","nbf":\#(now + 3600),"exp":\#(now + 7200)}"#.utf8)),
            server.tokens.signed(
                headerJSON: TokenAuthority.headerJSON,
                payloadJSON: Array(#"{"sub":"ada","iat":\#(now + 3600),"exp":\#(now + 7200)}"#.utf8)),
        ]
        for token in tokens {
            let client = try await SyncTestClient.connect(port: server.port, document: "doc", token: token)
            try await eventually("closed") { client.closed != nil }
            #expect(client.closed?.code == 4401)
            #expect(client.errorCodes == ["UNAUTHENTICATED"])

            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/v1/documents")!)
            request.httpMethod = "POST"
            request.httpBody = Data("{}".utf8)
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            let (_, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 401)
        }
        #expect(try server.documents.documents().isEmpty)
        try await server.stop()
    }
}
