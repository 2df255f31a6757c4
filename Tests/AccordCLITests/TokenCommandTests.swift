import AccordCRDT
import AccordServer
import Foundation
import Testing

/// `accord token` mints what the server's ``TokenAuthority`` accepts.
@Suite struct TokenCommandTests {
    static let secret = "cli-test-secret-that-is-long-enough-0123456789"

    /// This process's environment with the secret variable set to `secret`, or removed.
    static func environment(secret: String?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["ACCORD_SECRET"] = secret
        return environment
    }

    /// Runs `accord token args...` and returns the verified claims and when it ran.
    func mintAndVerify(_ args: [String], secret: [UInt8], environment: [String: String], in dir: TemporaryDirectory)
        throws -> (claims: TokenClaims, before: Date, after: Date)
    {
        let before = Date()
        let result = try CLI.run(["token"] + args, in: dir.url, environment: environment)
        let after = Date()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.hasSuffix("\n"))
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2, "one line: \(result.stdout)")
        let token = String(lines[0])
        let claims = try TokenAuthority(secret: secret).verify(token, now: before)
        return (claims, before, after)
    }

    @Test func defaultTTLIsAnHour() throws {
        let dir = try TemporaryDirectory()
        let run = try mintAndVerify(
            ["--sub", "alice"], secret: Array(Self.secret.utf8), environment: Self.environment(secret: Self.secret),
            in: dir)
        #expect(run.claims.subject == "alice")
        // exp is whole seconds rounded down, so it may be up to a second before now + ttl.
        #expect(run.claims.expiresAt >= run.before.addingTimeInterval(3600 - 1))
        #expect(run.claims.expiresAt <= run.after.addingTimeInterval(3600))
    }

    @Test func adminAddsTheAdminClaim() throws {
        let dir = try TemporaryDirectory()
        let environment = Self.environment(secret: Self.secret)
        let admin = try mintAndVerify(["--sub", "ops", "--admin"], secret: Array(Self.secret.utf8), environment: environment, in: dir)
        #expect(admin.claims.subject == "ops" && admin.claims.isAdmin)
        let plain = try mintAndVerify(["--sub", "ops"], secret: Array(Self.secret.utf8), environment: environment, in: dir)
        #expect(!plain.claims.isAdmin)
    }

    @Test func emailBecomesANormalizedClaim() throws {
        let dir = try TemporaryDirectory()
        let run = try mintAndVerify(
            ["--sub", "alice", "--email", " Alice@Example.COM"], secret: Array(Self.secret.utf8),
            environment: Self.environment(secret: Self.secret), in: dir)
        #expect(run.claims.email?.rawValue == "alice@example.com")
    }

    @Test func channelsPatternBecomesAClaim() throws {
        let dir = try TemporaryDirectory()
        let run = try mintAndVerify(
            ["--sub", "alice", "--channels", "room-1.*"], secret: Array(Self.secret.utf8),
            environment: Self.environment(secret: Self.secret), in: dir)
        #expect(run.claims.channels?.rawValue == "room-1.*")
        #expect(run.claims.channels?.allows(ChannelKey(rawValue: "room-1.a.b")!) == true)
        #expect(run.claims.channels?.allows(ChannelKey(rawValue: "room-1")!) == false)
        let plain = try mintAndVerify(
            ["--sub", "alice"], secret: Array(Self.secret.utf8), environment: Self.environment(secret: Self.secret), in: dir)
        #expect(plain.claims.channels == nil)
        let bad = try CLI.run(["token", "--sub", "alice", "--channels", "a..b"], in: dir.url,
                              environment: Self.environment(secret: Self.secret))
        #expect(bad.status != 0)
        #expect(bad.stdout.isEmpty)
        #expect(bad.stderr.contains("--channels"))
    }

    @Test func ttlAndSecretFile() throws {
        let dir = try TemporaryDirectory()
        let fileSecret = String(repeating: "k", count: 48)
        try dir.write(Array((fileSecret + "\n").utf8), to: "secret")
        // The file wins over the environment.
        let run = try mintAndVerify(
            ["--sub=bob", "--ttl", "120", "--secret-file", "secret"], secret: Array(fileSecret.utf8),
            environment: Self.environment(secret: Self.secret), in: dir)
        #expect(run.claims.subject == "bob")
        #expect(run.claims.expiresAt >= run.before.addingTimeInterval(120 - 1))
        #expect(run.claims.expiresAt <= run.after.addingTimeInterval(120))
    }

    @Test func tokenFromOtherSecretDoesNotVerify() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(["token", "--sub", "alice"], in: dir.url, environment: Self.environment(secret: Self.secret))
        #expect(result.status == 0)
        let token = result.stdout.trimmingCharacters(in: .newlines)
        let other = try TokenAuthority(secret: Array(String(repeating: "o", count: 32).utf8))
        #expect(throws: AccordError.self) { try other.verify(token) }
    }

    static let usageErrors: [(args: [String], message: String)] = [
        (["token"], "--sub"),
        (["token", "--sub"], "--sub needs a value"),
        (["token", "--sub", ""], "--sub"),
        (["token", "--sub", "alice", "--ttl", "0"], "--ttl"),
        (["token", "--sub", "alice", "--ttl", "-5"], "--ttl"),
        (["token", "--sub", "alice", "--ttl", "soon"], "--ttl"),
        (["token", "--sub", "alice", "extra"], "extra"),
        (["token", "--sub", "alice", "--bogus"], "--bogus"),
        (["token", "--sub", "alice", "--email", "alice@"], "--email"),
        (["serve", "--notify-webhook", "ftp://hooks.example/x"], "--notify-webhook"),
        (["serve", "--notify-webhook", "http://hooks.example/x", "--notify-webhook-ca", "/etc/ca.pem"], "--notify-webhook-ca"),
    ]

    @Test(arguments: usageErrors) func usageErrorsExitTwo(args: [String], message: String) throws {
        let result = try TemporaryDirectory().run(args)
        #expect(result.status == 2, "\(args)")
        #expect(result.stderr.hasPrefix("error: INVALID_ARGUMENT: "), "\(args): \(result.stderr)")
        #expect(result.stderr.contains(message), "\(args): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func missingSecretIsInvalidArgument() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(["token", "--sub", "alice"], in: dir.url, environment: Self.environment(secret: nil))
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: INVALID_ARGUMENT: "), "\(result.stderr)")
        #expect(result.stderr.contains("ACCORD_SECRET"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func shortSecretIsInvalidArgument() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(
            ["token", "--sub", "alice"], in: dir.url, environment: Self.environment(secret: "too-short"))
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("error: INVALID_ARGUMENT: "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func unreadableSecretFileIsIOError() throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(
            ["token", "--sub", "alice", "--secret-file", "missing-secret"], in: dir.url,
            environment: Self.environment(secret: Self.secret))
        #expect(result.status == 74)
        #expect(result.stderr.hasPrefix("error: IO_ERROR: "), "\(result.stderr)")
        #expect(result.stderr.contains("missing-secret"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func help() throws {
        let result = try TemporaryDirectory().run("token", "--help")
        #expect(result.status == 0)
        #expect(result.stdout.contains("accord token --sub <user> [--ttl <seconds>]"))
        #expect(result.stdout.contains("[--channels <pattern>] [--admin] [--email <address>] [--secret-file <path>]"))
        #expect(result.stdout.contains("ACCORD_SECRET"))
        let main = try TemporaryDirectory().run("--help")
        #expect(main.stdout.contains("accord token --sub <user>"))
    }
}

/// `accord token` refuses the subjects the server would refuse, rather than minting a
/// token nobody can use.
@Suite struct TokenCommandSubjectTests {
    @Test(arguments: [String(repeating: "a", count: 257), "ali\u{1}ce", "tab\there"])
    func subjectsTheServerRefusesAreUsageErrors(_ subject: String) throws {
        let dir = try TemporaryDirectory()
        let result = try CLI.run(
            ["token", "--sub", subject], in: dir.url,
            environment: TokenCommandTests.environment(secret: TokenCommandTests.secret))
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("user id"), "\(result.stderr)")
    }
}
