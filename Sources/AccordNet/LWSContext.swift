import CWebSockets
import Foundation

/// Owns one `lws_context` with its single vhost, and the C memory lws keeps pointers
/// into (the protocol table and strings such as `iface`, which lws does not copy).
/// `deinit` calls `lws_context_destroy`, which runs the CLOSED callbacks of every open
/// connection, then frees that memory. Not `Sendable`: after the service thread starts,
/// only that thread may touch it (see `ServiceThread`).
final class LWSContext {
    /// The `struct lws_context *`. Never leaves AccordNet.
    let pointer: OpaquePointer
    /// The port the vhost listens on (the kernel's choice when asked for port 0), or nil
    /// for a client-only context.
    let listenPort: Int?
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let strings: [UnsafeMutablePointer<CChar>]
    /// The client vhost's OpenSSL context, ours rather than lws' (lws 4.1 loses track of
    /// its own when TLS contexts overlap, see `accord_lws_option_do_ssl_global_init`).
    /// Released after `deinit` has destroyed the lws context and every connection using it.
    private let clientSSLContext: SSLContext?

    /// - Parameters:
    ///   - listen: host and port to listen on; nil for a client-only context.
    ///   - user: returned by `lws_context_user`; `accordLWSCallback` finds its handler through it.
    ///   - clientTLS: how a client-only context checks servers for `wss://` and `https://`;
    ///     nil, no TLS (each TLS context costs OpenSSL state, so only contexts that may
    ///     need it make one).
    init(listen: (host: String, port: Int)?, user: UnsafeMutableRawPointer, clientTLS: ClientTLS? = nil) throws(NetError)
    {
        // A client context given TLS settings can open TLS connections (each asks with
        // LCCSCF_USE_SSL) through this OpenSSL context.
        let sslContext = try (listen == nil ? clientTLS : nil).map { trust throws(NetError) in try SSLContext(client: trust) }
        LWSContext.quietLogs
        var strings: [UnsafeMutablePointer<CChar>] = []
        func keep(_ string: String) -> UnsafeMutablePointer<CChar> {
            let copy = strdup(string)!
            strings.append(copy)
            return copy
        }
        // One protocol handles HTTP and WebSocket (lws uses protocols[0] for both when a
        // client names no subprotocol), then the zeroed terminator.
        let protocols = UnsafeMutablePointer<lws_protocols>.allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(keep("accord"))
        protocols[0].callback = accordLWSCallback
        protocols[0].per_session_data_size = 0
        protocols[0].rx_buffer_size = 64 * 1024
        protocols[0].tx_packet_size = 64 * 1024

        var info = lws_context_creation_info()
        info.options = accord_lws_option_explicit_vhosts()
        info.user = user
        info.gid = -1
        info.uid = -1
        // The per-thread buffer lws reads HTTP into (4 KiB by default), which also caps
        // every read of a socket (an HTTP client's body, a raw connection's bytes) at
        // its size less LWS_PRE. At 64 KiB a 100 MB blob took 1,600 service-loop turns
        // (poll, recv, the sink's write) each way; at 256 KiB, as large as the server's
        // send slices and the client's file-body pieces, about 400. One buffer per
        // service thread, so the memory is fixed.
        info.pt_serv_buf_size = 256 * 1024
        // What lws keeps pointers into, freed here only when no context came of it.
        func release() {
            protocols.deallocate()
            strings.forEach { free($0) }
        }
        guard let context = lws_create_context(&info) else {
            release()
            throw NetError(.listenFailed, "lws_create_context failed")
        }

        var vhostInfo = lws_context_creation_info()
        vhostInfo.protocols = UnsafePointer(protocols)
        vhostInfo.vhost_name = UnsafePointer(keep("accord"))
        vhostInfo.connect_timeout_secs = 10
        vhostInfo.timeout_secs = 10
        if let listen {
            vhostInfo.port = Int32(listen.port)
            if !listen.host.isEmpty, listen.host != "0.0.0.0", listen.host != "::" {
                vhostInfo.iface = UnsafePointer(keep(listen.host))
            }
            // Every accepted socket is a raw socket for life: HTTPFront reads the request
            // bytes itself (lws' HTTP parser rewrites paths) and ServerWebSocket frames
            // upgraded connections (lws 4.1 does not check client frames' mask bit).
            vhostInfo.options |= accord_lws_option_adopt_listen_accept_config()
            vhostInfo.listen_accept_role = UnsafePointer(keep("raw-skt"))
            vhostInfo.listen_accept_protocol = UnsafePointer(keep("accord"))
            // Without DISABLE_IPV6, an IPv4 iface still yields a wildcard IPv6 socket,
            // so "127.0.0.1" would listen on every interface.
            if LWSContext.isIPv4(listen.host) {
                vhostInfo.options |= accord_lws_option_disable_ipv6()
            }
        } else {
            vhostInfo.port = accord_lws_context_port_no_listen()
            if let sslContext {
                vhostInfo.options |= accord_lws_option_do_ssl_global_init()
                vhostInfo.provided_client_ssl_ctx = sslContext.pointer
            }
        }
        guard let vhost = lws_create_vhost(context, &vhostInfo) else {
            lws_context_destroy(context)
            release()
            let target = listen.map { "\($0.host):\($0.port)" } ?? "client"
            throw NetError(.listenFailed, "lws_create_vhost failed for \(target)")
        }
        self.pointer = context
        self.protocols = protocols
        self.strings = strings
        self.clientSSLContext = sslContext
        self.listenPort = listen == nil ? nil : Int(lws_get_vhost_listen_port(vhost))
    }

    deinit {
        lws_context_destroy(pointer)
        protocols.deinitialize(count: 2)
        protocols.deallocate()
        strings.forEach { free($0) }
    }

    static func isIPv4(_ host: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, host, &address) == 1
    }

    /// lws logs notices to stderr by default; keep errors only. Runs once.
    private static let quietLogs: Void = {
        lws_set_log_level(LLL_ERR) { _, line in
            guard let line else { return }
            _ = write(2, line, strlen(line))  // stderr, unbuffered like lws' own emitter
        }
    }()
}

/// Service-thread state: it must never cross threads.
@available(*, unavailable)
extension LWSContext: Sendable {}
