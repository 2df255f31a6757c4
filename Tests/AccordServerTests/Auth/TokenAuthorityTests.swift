import AccordCRDT
import Foundation
import Testing

@testable import AccordServer

/// Minting and verifying: golden vectors from an independent implementation, round
/// trips, expiry and forgery.
@Suite struct TokenAuthorityTests {
    // Both vectors were computed once with Python's standard library, not with this code:
    //   b = lambda x: base64.urlsafe_b64encode(x).rstrip(b"=").decode()
    //   si = b(header) + "." + b(payload)
    //   si + "." + b(hmac.new(secret, si.encode(), hashlib.sha256).digest())
    // with header b'{"alg":"HS256","typ":"JWT"}' and the payloads below.

    /// secret "accord-golden-vector-secret-0123456789", payload {"sub":"alice","exp":1893456000}.
    static let golden =
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIsImV4cCI6MTg5MzQ1NjAwMH0"
        + ".N3j7wbN7wiIVeUYGePVLn1cwnT0W4-0cjxQ23h3OIuI"

    /// secret bytes(range(100)) (longer than a SHA-256 block, so HMAC hashes the key
    /// first), payload {"sub":"zoë/42","exp":4102444800} in UTF-8.
    static let goldenLongSecret =
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ6b8OrLzQyIiwiZXhwIjo0MTAyNDQ0ODAwfQ"
        + ".5B_EtkWwl1rCkf9vSy3Wa8ojCH-Fy9wp7iu2aaNXIqc"

    @Test func goldenVectorVerifies() throws {
        let claims = try TokenFixtures.authority().verify(Self.golden, now: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(claims == TokenClaims(subject: "alice", expiresAt: Date(timeIntervalSince1970: TokenFixtures.exp)))
    }

    @Test func mintMatchesGoldenVectorByteForByte() throws {
        let token = try TokenFixtures.authority().mint(
            subject: "alice", expiresAt: Date(timeIntervalSince1970: TokenFixtures.exp))
        #expect(token == Self.golden)
        // The same through the ttl form: now + ttl lands on the same exp.
        let viaTTL = try TokenFixtures.authority().mint(
            subject: "alice", ttl: 3600, now: Date(timeIntervalSince1970: TokenFixtures.exp - 3600))
        #expect(viaTTL == Self.golden)
    }

    @Test func goldenVectorWithLongSecretAndUnicodeSubject() throws {
        let authority = try TokenAuthority(secret: (0..<100).map { UInt8($0) })
        let expiresAt = Date(timeIntervalSince1970: 4_102_444_800)
        #expect(authority.mint(subject: "zoë/42", expiresAt: expiresAt) == Self.goldenLongSecret)
        let claims = try authority.verify(Self.goldenLongSecret, now: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(claims == TokenClaims(subject: "zoë/42", expiresAt: expiresAt))
    }

    // Control characters and subjects over 256 bytes are refused (TokenClaimRulesTests).
    @Test(arguments: ["alice", "user:42", "名前", "with \"quotes\" and \\ and spaces", String(repeating: "x", count: 256)])
    func roundTrip(subject: String) throws {
        let authority = try TokenFixtures.authority()
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let token = authority.mint(subject: subject, ttl: 60, now: now)
        let claims = try authority.verify(token, now: now)
        #expect(claims.subject == subject)
        #expect(claims.expiresAt == now.addingTimeInterval(60))
    }

    @Test func fractionalExpiryIsRoundedDown() throws {
        let authority = try TokenFixtures.authority()
        let token = authority.mint(subject: "alice", expiresAt: Date(timeIntervalSince1970: 1_000.9))
        let claims = try authority.verify(token, now: Date(timeIntervalSince1970: 999))
        #expect(claims.expiresAt == Date(timeIntervalSince1970: 1_000))
    }

    @Test func fractionalExpFromAnotherMinterIsHonoured() throws {
        let token = try TokenFixtures.signedPayload(#"{"sub":"alice","exp":1000.5}"#)
        let authority = try TokenFixtures.authority()
        let claims = try authority.verify(token, now: Date(timeIntervalSince1970: 1000.25))
        #expect(claims.expiresAt == Date(timeIntervalSince1970: 1000.5))
        expectUnauthenticated("expired") { () throws(AccordError) in
            try authority.verify(token, now: Date(timeIntervalSince1970: 1000.5))
        }
    }

    @Test(arguments: [0, 0.001, 1, 86_400 * 365] as [TimeInterval])
    func expiredAtAndAfterExp(after: TimeInterval) throws {
        let authority = try TokenFixtures.authority()
        expectUnauthenticated("expired") { () throws(AccordError) in
            try authority.verify(TokenAuthorityTests.golden, now: Date(timeIntervalSince1970: TokenFixtures.exp + after))
        }
    }

    @Test func validJustBeforeExp() throws {
        let claims = try TokenFixtures.authority().verify(
            Self.golden, now: Date(timeIntervalSince1970: TokenFixtures.exp - 0.001))
        #expect(claims.subject == "alice")
    }

    @Test func nonPositiveTTLIsExpiredAtOnce() throws {
        let authority = try TokenFixtures.authority()
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        for ttl in [0, -10] as [TimeInterval] {
            let token = authority.mint(subject: "alice", ttl: ttl, now: now)
            expectUnauthenticated("expired") { () throws(AccordError) in try authority.verify(token, now: now) }
        }
    }

    /// Every single-bit flip anywhere in the signature's bytes is caught.
    @Test func flippedSignatureBitIsForged() throws {
        let authority = try TokenFixtures.authority()
        let parts = Self.golden.split(separator: ".").map(String.init)
        let signature = try #require(Base64URL.decode(Array(parts[2].utf8)))
        for bit in 0..<(signature.count * 8) {
            var flipped = signature
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            let token = parts[0] + "." + parts[1] + "." + Base64URL.encode(flipped)
            expectUnauthenticated("forged") { () throws(AccordError) in
                try authority.verify(token, now: Date(timeIntervalSince1970: 0))
            }
        }
    }

    @Test func changedPayloadIsForged() throws {
        let parts = Self.golden.split(separator: ".").map(String.init)
        let bob = Base64URL.encode(Array(#"{"sub":"bob","exp":1893456000}"#.utf8))
        let authority = try TokenFixtures.authority()
        expectUnauthenticated("forged") { () throws(AccordError) in
            try authority.verify(parts[0] + "." + bob + "." + parts[2], now: Date(timeIntervalSince1970: 0))
        }
    }

    @Test func otherSecretIsForged() throws {
        let other = try TokenAuthority(secret: Array("another-secret-of-thirty-two-bytes!!".utf8))
        let token = other.mint(subject: "alice", expiresAt: Date(timeIntervalSince1970: TokenFixtures.exp))
        let authority = try TokenFixtures.authority()
        expectUnauthenticated("forged") { () throws(AccordError) in
            try authority.verify(token, now: Date(timeIntervalSince1970: 0))
        }
        // A secret that only extends ours is a different key too. (Not with a zero byte:
        // HMAC pads keys shorter than its 64-byte block with zeros, so secret + [0] is
        // the same key; that is HMAC's definition, not a flaw here.)
        let extended = try TokenAuthority(secret: TokenFixtures.secret + [1])
        expectUnauthenticated("forged") { () throws(AccordError) in
            try extended.verify(TokenAuthorityTests.golden, now: Date(timeIntervalSince1970: 0))
        }
    }

    @Test(arguments: [0, 1, 31]) func shortSecretIsRefused(length: Int) {
        #expect {
            try TokenAuthority(secret: [UInt8](repeating: 7, count: length))
        } throws: { error in
            (error as? AccordError)?.code == .invalidArgument
        }
    }

    @Test func thirtyTwoByteSecretIsAccepted() throws {
        _ = try TokenAuthority(secret: [UInt8](repeating: 7, count: 32))
    }
}
