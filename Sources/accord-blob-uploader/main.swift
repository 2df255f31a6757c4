import AccordCRDT
import AccordStore
import AccordSync
import Foundation

// Child process of the client's upload resume test (Tests/AccordTests/Blobs): a client
// that attaches a file to a document (once: a relaunch finds the upload queued in its
// store) and runs until the server holds it, so the parent can SIGKILL it mid-upload
// and launch it again.
//
// Usage: accord-blob-uploader <store> <server ws url> <token> <document> <file>
// Output, one line each: "queued <hash>" (first run), "progress <bytes sent> <total>"
// (about every MiB), "uploaded <hash>", and "error <message>" before a non-zero exit.

let arguments = CommandLine.arguments
guard arguments.count == 6, let documentID = DocumentID(rawValue: arguments[4]) else {
    FileHandle.standardError.write(Data("usage: accord-blob-uploader <store> <url> <token> <document> <file>\n".utf8))
    exit(2)
}
/// One line to the parent at once (no buffering: it may kill us any moment).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let token = arguments[3]
do {
    let store = try DocumentStore(path: arguments[1])
    let client = AccordClient(serverURL: arguments[2], store: store) { token }
    let events = client.events
    await client.start()
    let fresh = try !store.contains(documentID)
    if fresh { try await client.create(documentID) } else { try await client.open(documentID) }
    if try await client.pendingBlobUploads(documentID).isEmpty {
        let blob = try await client.putBlob(documentID, fileURL: URL(fileURLWithPath: arguments[5]), contentType: "application/octet-stream")
        try await client.withDocument(documentID) { doc in try doc.getMap("files").set("big", blob.toJSON()) }
        say("queued \(blob.hash)")
    }
    for await event in events {
        guard case .blob(let blobEvent) = event else { continue }
        switch blobEvent {
        case .uploadProgress(let progress):
            say("progress \(progress.bytesSent) \(progress.totalBytes)")
        case .uploaded(let uploaded):
            say("uploaded \(uploaded.hash)")
            await client.stop()
            exit(0)
        case .uploadFailed(let failed) where !failed.willRetry:
            say("error \(failed.error)")
            exit(1)
        default:
            continue
        }
    }
} catch {
    say("error \(error)")
    exit(1)
}
