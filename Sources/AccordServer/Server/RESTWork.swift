import Dispatch
import AccordNet

/// Where REST routes that work on a document's content run: not on the network thread
/// (which then serves every other connection, `/healthz` included, meanwhile) but on
/// worker threads, answering through a deferred response. Such work borrows the
/// document's room from the sync hub (``SyncHub/withRoom(_:_:)``), which may wait for
/// another request on the same document; requests on different documents run side by
/// side.
///
/// Each request gets a serial queue of its own rather than a shared concurrent one:
/// the work may wait (for a room another request holds), and on Linux a concurrent
/// queue's threads are capped near the core count, so two waiting requests could starve
/// every other (a serial queue targets the overcommitting pool, which always finds a
/// thread). The number of such threads is bounded by the requests open at once.
enum RESTWork {
    /// A deferred response whose answer `work` produces on a worker thread.
    static func deferred(_ work: @escaping @Sendable () -> HTTPResponse) -> HTTPResponse {
        .deferred { responder in
            DispatchQueue(label: "accord.rest", qos: .userInitiated).async { responder.respond(work()) }
        }
    }
}
