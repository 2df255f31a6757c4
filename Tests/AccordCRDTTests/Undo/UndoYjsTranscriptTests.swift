import AccordCRDT
import AccordTesting
import Foundation
import Testing

/// Accord's UndoManager against Yjs's own (13.6), with remote edits interleaved with
/// local edits, undos and redos: the case where pycrdt (Yrs) is no reference, because
/// after a redo it may give the redone content other clocks than Yjs does, so one
/// remote update names different content on each side (UndoDifferentialTests keeps
/// remote edits out of its random runs for that reason).
///
/// Yjs cannot be installed where the tests run (no npm registry), so each seed replays
/// a transcript of a run against real Yjs: every request the scenario sends must be the
/// one recorded next, and Accord must match every state Yjs answered, step by step.
/// To record them again (after changing the scenario), with a Yjs source checkout whose
/// `lib0` resolves (docs/testing.md):
///
///     ACCORD_RECORD_YJS_TRANSCRIPTS=1 YJS_DIR=/path/to/yjs \
///         swift test --filter UndoYjsTranscriptTests
@Suite struct UndoYjsTranscriptTests {
    static let seeds: Range<UInt64> = 0..<12
    static let isRecording = ProcessInfo.processInfo.environment["ACCORD_RECORD_YJS_TRANSCRIPTS"] == "1"

    static var transcripts: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("YjsTranscripts")
    }

    static func transcript(seed: UInt64) -> URL {
        transcripts.appendingPathComponent("remote-interleaving-\(seed).jsonl")
    }

    @Test(arguments: seeds)
    func remoteEditsInterleavedWithUndoAndRedo(seed: UInt64) throws {
        let peer: PycrdtPeer
        if Self.isRecording {
            let script = URL(fileURLWithPath: #filePath)
                .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("scripts/yjs_peer.mjs")
            peer = try PycrdtPeer(python: "/usr/bin/env", script: script, arguments: ["node"])
            peer.recordsExchanges = true
        } else {
            let text = try String(contentsOf: Self.transcript(seed: seed), encoding: .utf8)
            peer = PycrdtPeer(replaying: try PeerExchange.parse(jsonLines: text[...]))
        }
        defer { peer.close() }
        let scenario = try UndoScenario(peer: peer, timeout: 0, reference: "Yjs")
        try Self.play(scenario, seed: seed)
        if Self.isRecording {
            try FileManager.default.createDirectory(at: Self.transcripts, withIntermediateDirectories: true)
            try PeerExchange.jsonLines(peer.exchanges).write(to: Self.transcript(seed: seed), atomically: true, encoding: .utf8)
        }
        #expect(peer.replayIsFinished, "the scenario ended before the recorded run did")
    }

    /// Local edits, undos, redos and a remote replica's edits in random order, then
    /// everything undone and redone.
    static func play(_ s: UndoScenario, seed: UInt64) throws {
        var rng = SplitMix64(seed: seed &+ 900)
        let editor = RandomEditor(allowsBytes: false)
        for _ in 0..<30 {
            switch Int.random(in: 0..<12, using: &rng) {
            case 0..<5: try s.edit(editor.nextOperation(view: try UndoDifferentialTests.schema.editView(of: s.doc), using: &rng))
            case 5..<7: try s.undo()
            case 7..<9: try s.redo()
            default:
                try s.catchUpRemote()
                try s.remote(editor.nextOperation(view: try UndoDifferentialTests.schema.editView(of: s.remoteDoc), using: &rng))
            }
        }
        try s.undoAll()
        try s.redoAll()
    }
}
