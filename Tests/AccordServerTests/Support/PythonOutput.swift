import AccordTesting
import Foundation

/// What `script` prints when the test Python (`ACCORD_PYTHON`, the venv `make test`
/// sets up, pycrdt in it) runs it with `arguments`, on a thread of its own.
func pythonOutput(_ script: String, arguments: [String]) async throws -> String {
    try await onThread { try PythonScript.run(script, arguments: arguments).output }
}
