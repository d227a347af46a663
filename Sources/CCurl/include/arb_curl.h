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

/// GETs `url` (http or https) with the headers given (NULL-terminated "Name: value"
/// lines), no cookies, no cache and no proxy, following redirects to http or https, any
/// content encoding libcurl decodes. `timeout_ms` bounds the whole exchange, body
/// included; a body (decoded) longer than `max_body` bytes ends it ("body longer than
/// …"); `*cancel` becoming non-zero ends it within about a second ("cancelled"). Blocks
/// the calling thread. Call `arb_curl_load` first.
void arb_curl_get(
    const char *url, const char *const *headers, long timeout_ms, size_t max_body, const int *cancel, arb_curl_result *result);

/// Sets `*flag`, read by the transfers given it as `cancel` (atomically).
void arb_curl_cancel(int *flag);

/// Frees what `arb_curl_get` allocated in `result`.
void arb_curl_result_free(arb_curl_result *result);

#endif
