// Typed wrappers for libcurl's variadic curl_easy_setopt / curl_easy_getinfo, which Swift cannot call.
// Each wrapper fixes the argument type an option expects, so Swift passes the right C type.
#ifndef CACHECHAIN_CCURL_SHIM_H
#define CACHECHAIN_CCURL_SHIM_H

#include <curl/curl.h>

typedef size_t (*cachechain_curl_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*cachechain_curl_progress_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                                 curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode cachechain_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cachechain_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cachechain_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cachechain_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cachechain_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cachechain_easy_setopt_data_callback(CURL *handle, CURLoption option,
                                                            cachechain_curl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cachechain_easy_setopt_progress_callback(CURL *handle, CURLoption option,
                                                                cachechain_curl_progress_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode cachechain_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode cachechain_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode cachechain_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode cachechain_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/// Whether this libcurl decodes gzip and deflate (zlib), br (brotli) and zstd content codings: its
/// `curl_version_info(CURLVERSION_NOW)` features (the macro is not visible to Swift).
static inline int cachechain_decodes_zlib(void) {
    return (curl_version_info(CURLVERSION_NOW)->features & CURL_VERSION_LIBZ) != 0;
}

static inline int cachechain_decodes_brotli(void) {
    return (curl_version_info(CURLVERSION_NOW)->features & CURL_VERSION_BROTLI) != 0;
}

static inline int cachechain_decodes_zstd(void) {
    return (curl_version_info(CURLVERSION_NOW)->features & CURL_VERSION_ZSTD) != 0;
}

/// The result code of a finished transfer message (CURLMsg's union member).
static inline CURLcode cachechain_msg_result(CURLMsg *message) {
    return message->data.result;
}

#endif
