#ifndef ACCORD_COPENSSL_SHIM_H
#define ACCORD_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/x509.h>

// Swift cannot import these macros (they expand to SSL_CTX_ctrl calls or casts);
// each wrapper does exactly what the macro does and nothing else.

/// `SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)`: TLS 1.0 and 1.1 are refused.
static inline int accord_ssl_ctx_require_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/// `SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS)`: an idle connection gives its
/// 16 KB record buffers back, which is most of what an idle TLS connection costs.
static inline void accord_ssl_ctx_release_buffers(SSL_CTX *ctx) {
    (void)SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
}

/// `SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF)`: no server-side session
/// cache (memory that grows with clients); resumption still works with tickets.
static inline void accord_ssl_ctx_no_session_cache(SSL_CTX *ctx) {
    (void)SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
}

/// `SSL_OP_NO_RENEGOTIATION`: a client cannot make the server redo handshakes
/// (a cheap way to spend its CPU) on an open connection.
static inline void accord_ssl_ctx_no_renegotiation(SSL_CTX *ctx) {
    (void)SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
}

/// `BIO_pending(bio)`: bytes waiting to be read from a memory BIO.
static inline size_t accord_bio_pending(BIO *bio) { return BIO_ctrl_pending(bio); }

#endif
