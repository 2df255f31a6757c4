import AccordCRDT
import AccordNet
import AccordServer
import AccordStore
import AccordTesting
import Testing

@testable import AccordSync

/// `AccordClient` against an `AccordServer` serving `wss://` (`Configuration.tls`) with a
/// throwaway CA's certificate: trusting the CA it syncs and calls REST; trusting only
/// the system's authorities it is told `TLS_CERTIFICATE_INVALID` and syncs nothing.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct AccordClientTLSTests {
    let id: DocumentID = "tls-notes"

    @Test func aClientTrustingTheCASyncsOverWSSAndCallsRESTOverHTTPS() async throws {
        let pki = try TestPKI()
        let server = try ClientTestServer(tls: ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile))
        let token = server.token("alice")
        let client = AccordClient(
            serverURL: server.url, store: memoryStore(), reconnect: ReconnectPolicy(initialDelay: 50, maxDelay: 400),
            trustedCertificatesFile: pki.caFile, tokenProvider: { _ in token })
        await client.start()
        try await client.open(id)
        try await eventually("synced over wss://") { await client.isSynced(id) }
        try await client.insert(id, "over tls")
        try await eventually("arrived at the server") { try server.storedText(id) == "over tls" }
        // REST over https:// on the same port.
        let body = try await client.send(ServerCall(.get, ["v1", "documents", id.rawValue]))
        #expect(String(decoding: body, as: UTF8.self).contains(id.rawValue))
        await client.stop()
        try await server.stop()
    }

    @Test func aClientThatDoesNotTrustTheCertificateIsToldTLSCertificateInvalid() async throws {
        let pki = try TestPKI()
        let server = try ClientTestServer(tls: ServerTLS(certificateFile: pki.certificateFile, keyFile: pki.keyFile))
        let token = server.token("alice")
        let client = AccordClient(
            serverURL: server.url, store: memoryStore(), reconnect: ReconnectPolicy(initialDelay: 50, maxDelay: 400),
            tokenProvider: { _ in token })
        let log = EventLog(client)
        // REST first: once started, the client's reconnect attempts make TLS contexts
        // every few ms, which lws 4.1 lets break a concurrent handshake (docs/net.md).
        do {
            _ = try await client.send(ServerCall(.get, ["v1", "documents", id.rawValue]))
            Issue.record("a REST call went through a certificate the client does not trust")
        } catch {
            #expect((error as? AccordError)?.code == .tlsCertificateInvalid, "\(error)")
            #expect((error as? AccordError)?.details["netCode"] == "NET_TLS_CERTIFICATE_INVALID")
        }
        await client.start()
        try await client.open(id)
        try await eventually("the refusal was reported") {
            await log.events.contains { if case .connectionError(let error) = $0 { error.code == .tlsCertificateInvalid } else { false } }
        }
        #expect(!(await client.isSynced(id)))
        #expect(try !server.documents.contains(id))
        await client.stop()
        try await server.stop()
    }
}
