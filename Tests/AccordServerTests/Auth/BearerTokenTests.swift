import AccordCRDT
import AccordNet
import Foundation
import Testing

import AccordServer

/// Where a request's token comes from: the `Authorization` header, else `?token=`.
@Suite struct BearerTokenTests {
    static func request(authorization: String? = nil, token: String? = nil) -> HTTPRequest {
        var headers: [String: String] = [:]
        if let authorization { headers["authorization"] = authorization }
        var query = [QueryItem(name: "doc", value: "d1")]
        if let token { query.append(QueryItem(name: "token", value: token)) }
        return HTTPRequest(method: .get, path: "/v1/sync", query: query, headers: headers)
    }

    @Test(arguments: ["Bearer abc.def.ghi", "bearer abc.def.ghi", "BEARER abc.def.ghi", "Bearer   abc.def.ghi  ", "bEaReR\tabc.def.ghi"])
    func fromHeaderInAnyCase(authorization: String) {
        #expect(TokenAuthority.bearerToken(from: Self.request(authorization: authorization)) == "abc.def.ghi")
    }

    @Test func fromQuery() {
        #expect(TokenAuthority.bearerToken(from: Self.request(token: "q.q.q")) == "q.q.q")
    }

    @Test func headerWinsOverQuery() {
        #expect(TokenAuthority.bearerToken(from: Self.request(authorization: "Bearer h.h.h", token: "q.q.q")) == "h.h.h")
    }

    @Test(arguments: ["Basic YWxpY2U6c2VjcmV0", "Bearer", "Bearer   ", "Bearerabc.def.ghi", "", "Token abc.def.ghi"])
    func otherAuthorizationFallsBackToQuery(authorization: String) {
        #expect(TokenAuthority.bearerToken(from: Self.request(authorization: authorization, token: "q.q.q")) == "q.q.q")
        #expect(TokenAuthority.bearerToken(from: Self.request(authorization: authorization)) == nil)
    }

    @Test func neitherIsNil() {
        #expect(TokenAuthority.bearerToken(from: Self.request()) == nil)
        #expect(TokenAuthority.bearerToken(from: Self.request(token: "")) == nil)
    }

    @Test func authenticateVerifiesTheRequestToken() throws {
        let authority = try TokenFixtures.authority()
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let token = authority.mint(subject: "alice", ttl: 60, now: now)
        #expect(try authority.authenticate(Self.request(authorization: "Bearer \(token)"), now: now).subject == "alice")
        #expect(try authority.authenticate(Self.request(token: token), now: now).subject == "alice")
        // A bad header token is not rescued by a good query token: the header wins.
        expectUnauthenticated("malformed") { () throws(AccordError) in
            try authority.authenticate(Self.request(authorization: "Bearer nonsense", token: token), now: now)
        }
        expectUnauthenticated("missing") { () throws(AccordError) in
            try authority.authenticate(Self.request(), now: now)
        }
    }
}
