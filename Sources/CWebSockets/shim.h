#ifndef ACCORD_CWEBSOCKETS_SHIM_H
#define ACCORD_CWEBSOCKETS_SHIM_H
#include <libwebsockets.h>

// Swift cannot import these macros (arithmetic expressions or 64-bit shifts);
// each wrapper returns exactly the macro's value and does nothing else.

/// `LWS_PRE`: bytes lws_write needs valid before the payload pointer.
static inline size_t accord_lws_pre(void) { return LWS_PRE; }

/// `LWS_SERVER_OPTION_DISABLE_IPV6`: without it, a vhost with `iface` 127.0.0.1
/// silently listens on all interfaces (an IPv6 wildcard socket).
static inline uint64_t accord_lws_option_disable_ipv6(void) { return LWS_SERVER_OPTION_DISABLE_IPV6; }

/// `LWS_SERVER_OPTION_EXPLICIT_VHOSTS`: the context creates no vhost; we call lws_create_vhost.
static inline uint64_t accord_lws_option_explicit_vhosts(void) { return LWS_SERVER_OPTION_EXPLICIT_VHOSTS; }

/// `LWS_SERVER_OPTION_ADOPT_APPLY_LISTEN_ACCEPT_CONFIG`: accepted sockets get the vhost's
/// `listen_accept_role` (raw-skt), so the server frames HTTP itself (AccordNet HTTPFront).
static inline uint64_t accord_lws_option_adopt_listen_accept_config(void) {
    return LWS_SERVER_OPTION_ADOPT_APPLY_LISTEN_ACCEPT_CONFIG;
}

/// `LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT`: on a vhost, lets client connections ask for TLS
/// (`LCCSCF_USE_SSL`) with the vhost's client TLS context. Never set on a context: there
/// it makes lws 4.1 allocate new process-wide OpenSSL ex-data indexes, after which every
/// TLS context created earlier can no longer find its bookkeeping and is never freed.
static inline uint64_t accord_lws_option_do_ssl_global_init(void) { return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; }

/// `CONTEXT_PORT_NO_LISTEN`: a client-only context opens no listening socket.
static inline int accord_lws_context_port_no_listen(void) { return CONTEXT_PORT_NO_LISTEN; }

#endif
