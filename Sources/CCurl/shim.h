#ifndef REWIND_CCURL_SHIM_H
#define REWIND_CCURL_SHIM_H
// libcurl for RewindSync's HTTP client on Linux (Debian's libcurl4-openssl-dev): the library
// FoundationNetworking's URLSession is built on, driven by an event loop that waits on its sockets
// (FleetHTTPClient+Curl.swift says why). curl_easy_setopt and curl_easy_getinfo are variadic, which
// Swift cannot call: these typed wrappers call them.
#include <curl/curl.h>

static inline CURLcode rewind_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rewind_curl_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rewind_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode rewind_curl_set_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION: called with each piece of the response body.
static inline CURLcode rewind_curl_set_write_function(
    CURL *handle, size_t (*function)(char *data, size_t size, size_t count, void *context)) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, function);
}

static inline CURLcode rewind_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

static inline CURLcode rewind_curl_private(CURL *handle, void **pointer) {
    return curl_easy_getinfo(handle, CURLINFO_PRIVATE, pointer);
}

#endif
