import AccordCRDT
import AccordStore
import Foundation

// Child process of the store crash test (Tests/AccordStoreTests/Crash): appends edits to
// one document forever and reports each edit only after flush() returned, so the parent
// can SIGKILL it at any moment and check that every reported edit survived.
//
// Usage: accord-crash-writer <database> <round>
// Each transaction appends the marker "<round:i>" to text "log" and sets map "last",
// key "<round>", to i: one update touching two types, so a half-applied transaction
// would show as a marker without its map entry or the reverse.
// Output, one line per flush: "durable <round> <i>".

let arguments = CommandLine.arguments
guard arguments.count == 3, let round = Int(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: accord-crash-writer <database> <round>\n".utf8))
    exit(2)
}

do {
    let store = try DocumentStore(path: arguments[1])
    let opened = try store.open(DocumentID(validating: "crash"), createIfMissing: true)
    let text = try opened.doc.getText("log")
    let last = try opened.doc.getMap("last")
    var generator = SystemRandomNumberGenerator()
    var i = 0
    while true {
        let burst = Int.random(in: 1...20, using: &generator)
        for _ in 0..<burst {
            i += 1
            try opened.doc.transact {
                try text.insert(text.length, "<\(round):\(i)>")
                try last.set(String(round), .int(Int64(i)))
            }
        }
        try store.flush()
        FileHandle.standardOutput.write(Data("durable \(round) \(i)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("accord-crash-writer: \(error)\n".utf8))
    exit(1)
}
