import Foundation
import Testing
import AccordCRDT
import AccordStore
import AccordTesting

@Suite struct SealingKeyTests {
    private func bytes(of key: SealingKey) -> [UInt8] { key.withUnsafeBytes { Array($0) } }

    private func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }

    /// Writes `contents` to `path` and gives it exactly `mode`.
    private func makeFile(_ path: String, _ contents: [UInt8], mode: Int) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(contents)))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    @Test(arguments: [0, 16, 31, 33, 64])
    func aKeyOfTheWrongLengthIsRefused(length: Int) {
        let error = #expect(throws: AccordError.self) { _ = try SealingKey(bytes: [UInt8](repeating: 7, count: length)) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func aKeyKeepsItsBytes() throws {
        let raw = (0..<32).map { UInt8($0 * 7 + 1) }
        #expect(bytes(of: try SealingKey(bytes: raw)) == raw)
    }

    @Test func generatedKeysAreRandom() throws {
        let first = bytes(of: try SealingKey.generate())
        let second = bytes(of: try SealingKey.generate())
        #expect(first.count == 32)
        #expect(first != second)
        #expect(first != [UInt8](repeating: 0, count: 32))
    }

    @Test func descriptionsNeverShowTheKey() throws {
        let raw = [UInt8](repeating: 0xAB, count: 32)
        let key = try SealingKey(bytes: raw)
        var dumped = ""
        dump(key, to: &dumped)
        for text in ["\(key)", String(reflecting: key), key.description, key.debugDescription, dumped] {
            #expect(!text.lowercased().contains("ab"), "\(text)")
            #expect(!text.contains("171"), "\(text)")  // 0xAB in decimal
        }
        #expect(key.description.contains("redacted"))
    }

    @Test func aWrittenKeyFileIsOwnerOnlyAndReadsBack() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("accord.key")
        let key = try SealingKey.generate()
        try key.write(toFile: path)
        #expect(try mode(of: path) == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count == 32)
        #expect(bytes(of: try SealingKey(contentsOfFile: path)) == bytes(of: key))
        // Nothing but the key file is left behind (no temporary file).
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["accord.key"])
    }

    @Test func anExistingFileIsNeverReplaced() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("accord.key")
        let original = try SealingKey.generate()
        try original.write(toFile: path)
        let error = #expect(throws: AccordError.self) { try SealingKey.generate().write(toFile: path) }
        #expect(error?.code == .invalidArgument)
        #expect(bytes(of: try SealingKey(contentsOfFile: path)) == bytes(of: original))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["accord.key"])
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o606, 0o700, 0o610, 0o601])
    func aKeyFileOthersCanReachIsRefused(mode: Int) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("open.key")
        try makeFile(path, [UInt8](repeating: 1, count: 32), mode: mode)
        let error = #expect(throws: AccordError.self) { _ = try SealingKey(contentsOfFile: path) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("0" + String(mode, radix: 8)) == true, "\(String(describing: error))")
        #expect(error?.details["path"] == path)
    }

    @Test(arguments: [0o600, 0o400])
    func anOwnerOnlyKeyFileIsAccepted(mode: Int) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("ok.key")
        let raw = (0..<32).map { UInt8(255 - $0) }
        try makeFile(path, raw, mode: mode)
        #expect(bytes(of: try SealingKey(contentsOfFile: path)) == raw)
    }

    @Test(arguments: [0, 1, 31, 33, 100])
    func aKeyFileOfTheWrongLengthIsRefused(length: Int) throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("bad.key")
        try makeFile(path, [UInt8](repeating: 9, count: length), mode: 0o600)
        let error = #expect(throws: AccordError.self) { _ = try SealingKey(contentsOfFile: path) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("\(length) bytes") == true)
    }

    @Test func aMissingKeyFileIsAnIOError() throws {
        let dir = try TemporaryDirectory()
        let error = #expect(throws: AccordError.self) { _ = try SealingKey(contentsOfFile: dir.file("none.key")) }
        #expect(error?.code == .ioError)
    }

    @Test func aDirectoryIsNotAKeyFile() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("sub")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o700 & ~0o100], ofItemAtPath: path)
        let error = #expect(throws: AccordError.self) { _ = try SealingKey(contentsOfFile: path) }
        #expect(error?.code == .invalidArgument)
    }
}

extension SealingKeyTests {
    @Test func aFIFOIsRefusedWithoutHanging() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("fifo.key")
        #expect(mkfifo(path, 0o600) == 0)
        let error = #expect(throws: AccordError.self) { _ = try SealingKey(contentsOfFile: path) }
        #expect(error?.code == .invalidArgument)
    }
}
