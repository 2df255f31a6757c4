import AccordCRDT
import Foundation
import Testing

import AccordServer

/// Where the token secret comes from, and what is refused.
@Suite struct ServerSecretTests {
    static let text = "an-operator-secret-that-is-long-enough-0123"

    /// A file in a fresh temporary directory holding `bytes`; the directory goes with `body`.
    func withFile(_ bytes: [UInt8], _ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("accord-secret-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("secret").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        try body(path)
    }

    func expectCode(_ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws(AccordError) -> [UInt8]) {
        do {
            let secret = try body()
            Issue.record("loaded \(secret.count) bytes; expected \(code)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func fromEnvironment() throws {
        let secret = try ServerSecret.load(secretFile: nil, environment: ["ACCORD_SECRET": Self.text])
        #expect(secret == Array(Self.text.utf8))
    }

    @Test func fromFileWithOneTrailingNewlineStripped() throws {
        try withFile(Array((Self.text + "\n").utf8)) { (path) throws in
            #expect(try ServerSecret.load(secretFile: path, environment: [:]) == Array(Self.text.utf8))
        }
        // Only one: a second newline is part of the secret, as is any other byte.
        try withFile(Array((Self.text + "\n\n").utf8)) { (path) throws in
            #expect(try ServerSecret.load(secretFile: path, environment: [:]) == Array((Self.text + "\n").utf8))
        }
        let binary = (0..<64).map { UInt8($0 * 4) }
        try withFile(binary) { (path) throws in
            #expect(try ServerSecret.load(secretFile: path, environment: [:]) == binary)
        }
    }

    @Test func fileWinsOverEnvironment() throws {
        let fromFile = String(repeating: "f", count: 40)
        try withFile(Array(fromFile.utf8)) { (path) throws in
            let secret = try ServerSecret.load(secretFile: path, environment: ["ACCORD_SECRET": Self.text])
            #expect(secret == Array(fromFile.utf8))
        }
    }

    @Test func noSecretIsInvalidArgument() {
        expectCode(.invalidArgument) { () throws(AccordError) in try ServerSecret.load(secretFile: nil, environment: [:]) }
    }

    @Test(arguments: ["", "short", String(repeating: "s", count: 31)]) func shortEnvironmentSecretIsRefused(text: String) {
        expectCode(.invalidArgument) { () throws(AccordError) in
            try ServerSecret.load(secretFile: nil, environment: ["ACCORD_SECRET": text])
        }
    }

    @Test func shortFileSecretIsRefused() throws {
        // 31 bytes plus the newline that is stripped.
        try withFile(Array((String(repeating: "s", count: 31) + "\n").utf8)) { (path) throws in
            expectCode(.invalidArgument) { () throws(AccordError) in try ServerSecret.load(secretFile: path, environment: [:]) }
        }
        try withFile(Array(String(repeating: "s", count: 32).utf8)) { (path) throws in
            #expect(try ServerSecret.load(secretFile: path, environment: [:]).count == 32)
        }
    }

    @Test func missingFileIsIOError() {
        expectCode(.ioError) { () throws(AccordError) in
            try ServerSecret.load(
                secretFile: "/nonexistent-\(UUID().uuidString)/secret", environment: ["ACCORD_SECRET": Self.text])
        }
    }

    @Test func directoryIsIOError() {
        expectCode(.ioError) { () throws(AccordError) in
            try ServerSecret.load(secretFile: FileManager.default.temporaryDirectory.path, environment: [:])
        }
    }

    @Test func generatedSecretsAreThirtyTwoFreshBytes() throws {
        let a = ServerSecret.generate()
        let b = ServerSecret.generate()
        #expect(a.count == 32)
        #expect(b.count == 32)
        #expect(a != b)
        // Usable as a token secret as is.
        let authority = try TokenAuthority(secret: a)
        #expect(try authority.verify(authority.mint(subject: "dev", ttl: 60)).subject == "dev")
    }
}
