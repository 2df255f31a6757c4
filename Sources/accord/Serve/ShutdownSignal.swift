import AccordCRDT
import Dispatch
import Foundation

/// Blocks the calling (main) thread until SIGTERM or SIGINT arrives. The signals are
/// ignored by default handling and watched by dispatch sources, so the process exits
/// only after the server has flushed.
enum ShutdownSignal {
    static func wait() {
        let received = DispatchSemaphore(value: 0)
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { received.signal() }
            source.resume()
            sources.append(source)
        }
        received.wait()
        for source in sources { source.cancel() }
    }
}

/// Runs async work from synchronous command code (the main thread, never a Swift
/// concurrency thread) and waits for its result.
enum BlockingTask {
    static func run<T: Sendable>(_ body: @escaping @Sendable () async throws(AccordError) -> T) -> Result<T, AccordError> {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        Task {
            do throws(AccordError) {
                box.result = .success(try await body())
            } catch {
                box.result = .failure(error)
            }
            done.signal()
        }
        done.wait()
        return box.result!
    }

    private final class ResultBox<T: Sendable>: @unchecked Sendable {
        // Written once by the task before the semaphore signals; read after the wait.
        var result: Result<T, AccordError>?
    }
}
