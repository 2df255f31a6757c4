import AccordCRDT
import Foundation

/// Reading and writing whole files, with failures reported as ``ErrorCode/ioError``
/// and the path in the message (Foundation's own messages rarely name it).
enum Files {
    static func read(_ path: String) throws(AccordError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw AccordError(.ioError, "\(path): no such file", details: ["path": path])
        }
        guard !isDirectory.boolValue else {
            throw AccordError(.ioError, "\(path): is a directory", details: ["path": path])
        }
        do {
            return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw AccordError(.ioError, "\(path): cannot read (\(error.localizedDescription))", details: ["path": path])
        }
    }

    /// Writes atomically, so a failed run never leaves half an update behind.
    static func write(_ bytes: [UInt8], to path: String) throws(AccordError) {
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw AccordError(.ioError, "\(path): cannot write (\(error.localizedDescription))", details: ["path": path])
        }
    }

    /// `error` with the file's path in front of its message (same code and details).
    static func attributed(_ error: AccordError, to path: String) -> AccordError {
        var details = error.details
        details["path"] = path
        return AccordError(error.code, "\(path): \(error.message)", details: details)
    }
}
