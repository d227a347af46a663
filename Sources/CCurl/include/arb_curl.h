#ifndef ARBKIT_CURL_H
#define ARBKIT_CURL_H

#include <stddef.h>

/// What one GET gave. `status` is the HTTP status, 0 when no answer came; `error` then
/// says why (a short reason: "timed out", "connection refused", …). `body` (malloc'd,
/// `body_length` bytes) and `retry_after` (malloc'd text or NULL) are freed by
/// `arb_curl_result_free`.
typedef struct {
  long status;
  char *body;
  size_t body_length;
  char *retry_after;
  char error[256];
} arb_curl_result;

/// Loads libcurl (`dlopen`) once; NULL when it loaded, else why it could not. Thread-safe.
const char *arb_curl_load(void);

/// GETs `url` with the headers given (NULL-terminated "Name: value" lines), no cookies,
/// no cache and no proxy, following redirects, any content encoding libcurl decodes; `timeout_ms` bounds the whole exchange,
/// body included. Blocks the calling thread. Call `arb_curl_load` first.
void arb_curl_get(const char *url, const char *const *headers, long timeout_ms, arb_curl_result *result);

/// Frees what `arb_curl_get` allocated in `result`.
void arb_curl_result_free(arb_curl_result *result);

#endif
