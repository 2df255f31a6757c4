import Foundation
import AccordCRDT

// Temporary profiling harness (not committed): load and encode the full update.
let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1])))
let n = Int(CommandLine.arguments[2]) ?? 5
var total = 0
for _ in 0..<n {
    let d = Doc()
    try d.applyUpdate(bytes)
    total += try d.getText("text").length
    total += d.encodeStateAsUpdate().count
}
print(total)
