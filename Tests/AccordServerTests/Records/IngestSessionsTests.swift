import AccordCRDT
import AccordStore
import AccordTesting
import Foundation
import Testing
@testable import AccordServer

/// Ingest uploads are spooled to disk, not held in memory: a session records where
/// its chunks lie in its spool file, reads them back byte for byte, and the file goes
/// when the session finishes, is evicted, or a new server starts over the directory.
@Suite struct IngestSessionsTests {
    let document: DocumentID = "data"

    func spoolFiles(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    @Test func chunksAreSpooledToAFileAndReadBackExactly() throws {
        let directory = try TemporaryDirectory()
        let spool = directory.path + "/blobs/.ingests"  // its parent does not exist yet either
        let sessions = IngestSessions(spoolDirectory: spool)
        let session = try sessions.create(for: document)
        let first = Array("p1\t{\"name\":\"a\"}\n".utf8)
        let second = Array("c1\t{\"city\":\"b\"}\nc2\t{\"city\":\"c\"}\n".utf8)
        try sessions.append(first, model: "people", to: session.id, of: document) { _ throws(AccordError) in }
        let state = try sessions.append(second, model: "places", to: session.id, of: document) { _ throws(AccordError) in }
        #expect(state.bytes == first.count + second.count)
        #expect(state.chunks.map(\.model) == ["people", "places"])
        #expect(state.chunks.map(\.offset) == [0, Int64(first.count)])
        // The bytes are in the file, not in the session.
        #expect(spoolFiles(spool) == [session.id + ".ndjson"])
        let file = try Data(contentsOf: URL(fileURLWithPath: spool + "/" + session.id + ".ndjson"))
        #expect(Array(file) == first + second)
        #expect(try sessions.read(state.chunks[0], of: session.id) == first)
        #expect(try sessions.read(state.chunks[1], of: session.id) == second)
    }

    @Test func aRefusedChunkWritesNothing() throws {
        let directory = try TemporaryDirectory()
        let sessions = IngestSessions(spoolDirectory: directory.path)
        let session = try sessions.create(for: document)
        try sessions.append(Array("x\n".utf8), model: "people", to: session.id, of: document) { _ throws(AccordError) in }
        #expect(throws: AccordError.self) {
            try sessions.append(Array("y\n".utf8), model: "people", to: session.id, of: document) { _ throws(AccordError) in
                throw AccordError(.quotaExceeded, "refused")
            }
        }
        let state = try sessions.session(session.id, of: document)
        #expect(state.bytes == 2 && state.chunks.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + session.id + ".ndjson")).count == 2)
    }

    @Test func theFileGoesWhenTheSessionFinishesOrTheServerRestarts() throws {
        let directory = try TemporaryDirectory()
        let sessions = IngestSessions(spoolDirectory: directory.path)
        let done = try sessions.create(for: document)
        let left = try sessions.create(for: document)
        for id in [done.id, left.id] {
            try sessions.append(Array("p1\t{}\n".utf8), model: "people", to: id, of: document) { _ throws(AccordError) in }
        }
        #expect(spoolFiles(directory.path).count == 2)
        let finished = try sessions.update(done.id, of: document) { state throws(AccordError) in state.state = .complete }
        #expect(finished.chunks.isEmpty && finished.bytes == 6)
        #expect(spoolFiles(directory.path) == [left.id + ".ndjson"])
        // A server starting over the directory forgot `left`: its file is removed.
        _ = IngestSessions(spoolDirectory: directory.path)
        #expect(spoolFiles(directory.path).isEmpty)
    }

    @Test func anEvictedSessionLosesItsFile() throws {
        let directory = try TemporaryDirectory()
        let sessions = IngestSessions(maxSessions: 1, spoolDirectory: directory.path)
        let old = try sessions.create(for: document)
        try sessions.append(Array("p1\t{}\n".utf8), model: "people", to: old.id, of: document) { _ throws(AccordError) in }
        try sessions.update(old.id, of: document) { state throws(AccordError) in state.state = .failed }
        let new = try sessions.create(for: document)
        try sessions.append(Array("p2\t{}\n".utf8), model: "people", to: new.id, of: document) { _ throws(AccordError) in }
        #expect(spoolFiles(directory.path) == [new.id + ".ndjson"])
        #expect(throws: AccordError.self) { try sessions.session(old.id, of: document) }
    }
}
