import CWebSockets
import Testing

@testable import AccordNet

@Suite(.timeLimit(.minutes(1)))
struct MailboxTests {
    @Test func keepsOrderWhileRunningAndDropsAfterStop() async throws {
        let thread = try ServiceThread(listen: nil)
        let mailbox = Mailbox<Int>(thread: thread)
        // Not started: the context exists, so commands queue (in order) for the loop.
        for value in 0..<5 { mailbox.post(value) }
        #expect(mailbox.take() == [0, 1, 2, 3, 4])
        #expect(mailbox.take() == [])
        thread.start(handler: IdleHandler(), name: "MailboxTests")
        thread.requestStop()
        await thread.waitUntilFinished()
        #expect(!thread.isRunning)
        mailbox.post(9)
        #expect(mailbox.take() == [])
    }
}

private final class IdleHandler: LWSCallbackHandler {
    func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 { 0 }
    func serviceStarted(_ context: OpaquePointer) {}
    func serviceStopped() {}
}
