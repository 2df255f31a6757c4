#ifndef ACCORD_CZLIB_SHIM_H
#define ACCORD_CZLIB_SHIM_H
#include <zlib.h>

// inflateInit2 is a macro (it passes the version and the struct size); Swift cannot call it.
static inline int accord_inflate_init_gzip(z_stream *stream) {
    // 15 + 32: a zlib or gzip header, detected automatically, with the largest window.
    return inflateInit2(stream, 15 + 32);
}
#endif
