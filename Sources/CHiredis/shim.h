#ifndef CACHECHAIN_HIREDIS_SHIM_H
#define CACHECHAIN_HIREDIS_SHIM_H

#include <hiredis/hiredis.h>
#include <sys/time.h>

// Typed wrappers over hiredis 0.14 (Debian's libhiredis-dev) for what Swift cannot reach directly:
// struct timeval construction, the error fields of a context, and a reply's typed accessors.

static inline redisContext *cachechain_redis_connect_tcp(const char *host, int port, long timeout_ms) {
    struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    return redisConnectWithTimeout(host, port, tv);
}

static inline redisContext *cachechain_redis_connect_unix(const char *path, long timeout_ms) {
    struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    return redisConnectUnixWithTimeout(path, tv);
}

static inline int cachechain_redis_set_timeout(redisContext *context, long timeout_ms) {
    struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
    return redisSetTimeout(context, tv);
}

static inline int cachechain_redis_error_code(const redisContext *context) { return context->err; }
static inline const char *cachechain_redis_error_text(const redisContext *context) { return context->errstr; }

static inline redisReply *cachechain_redis_command(redisContext *context, int argc, const char **argv, const size_t *lengths) {
    return (redisReply *)redisCommandArgv(context, argc, argv, lengths);
}

static inline void cachechain_redis_free_reply(redisReply *reply) { freeReplyObject(reply); }

#endif
