#ifndef CACHECHAIN_SQLITE_SHIM_H
#define CACHECHAIN_SQLITE_SHIM_H

#include <sqlite3.h>

// Typed wrappers over SQLite 3 (Debian's libsqlite3-dev) for what Swift cannot reach directly:
// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, so the bind calls that copy their
// argument are wrapped here.

static inline int cachechain_sqlite3_bind_text_transient(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int cachechain_sqlite3_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

#endif
