// libcurl's easy interface, loaded with dlopen when the first request is made: a run
// that records nothing never loads libcurl and the TLS libraries under it. The option
// and info numbers are libcurl's stable ABI (curl/curl.h, CURLOPT_* and CURLINFO_*).
#include "arb_curl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef void CURL;
struct curl_slist;
typedef size_t (*write_callback)(char *, size_t, size_t, void *);
typedef int (*progress_callback)(void *, long long, long long, long long, long long);

enum {
  OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_PROXY = 10004, OPT_USERAGENT = 10018,
  OPT_HTTPHEADER = 10023, OPT_HEADERDATA = 10029, OPT_WRITEFUNCTION = 20011,
  OPT_HEADERFUNCTION = 20079, OPT_FOLLOWLOCATION = 52, OPT_MAXREDIRS = 68, OPT_NOSIGNAL = 99,
  OPT_TIMEOUT_MS = 155, OPT_NOPROGRESS = 43, OPT_ACCEPT_ENCODING = 10102, OPT_XFERINFOFUNCTION = 20219,
  OPT_XFERINFODATA = 10057, OPT_PROTOCOLS_STR = 10318, OPT_REDIR_PROTOCOLS_STR = 10319,
  INFO_RESPONSE_CODE = 0x200000 + 2,
  GLOBAL_DEFAULT = 3,
  E_OK = 0, E_COULDNT_RESOLVE_PROXY = 5, E_COULDNT_RESOLVE_HOST = 6, E_COULDNT_CONNECT = 7,
  E_WRITE_ERROR = 23, E_OPERATION_TIMEDOUT = 28, E_PARTIAL_FILE = 18, E_GOT_NOTHING = 52,
  E_SEND_ERROR = 55, E_RECV_ERROR = 56, E_ABORTED_BY_CALLBACK = 42, E_UNSUPPORTED_PROTOCOL = 1,
};

static struct {
  int (*global_init)(long);
  CURL *(*easy_init)(void);
  int (*easy_setopt)(CURL *, int, ...);
  int (*easy_perform)(CURL *);
  int (*easy_getinfo)(CURL *, int, ...);
  void (*easy_cleanup)(CURL *);
  const char *(*easy_strerror)(int);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
  void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    snprintf(load_error, sizeof load_error, "cannot load libcurl (libcurl.so.4): %s; install Debian's libcurl4", dlerror());
    return;
  }
#define RESOLVE(field, name)                                                                      \
  if (!(*(void **)&curl.field = dlsym(library, name))) {                                          \
    snprintf(load_error, sizeof load_error, "the libcurl loaded has no %s", name);                \
    return;                                                                                       \
  }
  RESOLVE(global_init, "curl_global_init")
  RESOLVE(easy_init, "curl_easy_init")
  RESOLVE(easy_setopt, "curl_easy_setopt")
  RESOLVE(easy_perform, "curl_easy_perform")
  RESOLVE(easy_getinfo, "curl_easy_getinfo")
  RESOLVE(easy_cleanup, "curl_easy_cleanup")
  RESOLVE(easy_strerror, "curl_easy_strerror")
  RESOLVE(slist_append, "curl_slist_append")
  RESOLVE(slist_free_all, "curl_slist_free_all")
#undef RESOLVE
  if (curl.global_init(GLOBAL_DEFAULT) != E_OK) snprintf(load_error, sizeof load_error, "libcurl did not initialise");
}

const char *arb_curl_load(void) {
  pthread_once(&load_once, load);
  return load_error[0] ? load_error : NULL;
}

/// A growing byte buffer, for the body, of at most `limit` bytes.
typedef struct {
  char *bytes;
  size_t length, capacity, limit;
  int failed, too_long;
} buffer;

static size_t append_body(char *data, size_t size, size_t count, void *context) {
  buffer *body = context;
  size_t n = size * count;
  if (n > body->limit - body->length) {
    body->too_long = 1;
    return 0;  // libcurl stops the transfer with a write error
  }
  if (body->length + n > body->capacity) {
    size_t capacity = body->capacity ? body->capacity : 16384;
    while (capacity < body->length + n) capacity *= 2;
    char *grown = realloc(body->bytes, capacity);
    if (!grown) {
      body->failed = 1;
      return 0;  // libcurl stops the transfer with a write error
    }
    body->bytes = grown;
    body->capacity = capacity;
  }
  memcpy(body->bytes + body->length, data, n);
  body->length += n;
  return n;
}

/// Keeps the last response's Retry-After value (a redirect's headers come first).
static size_t read_header(char *data, size_t size, size_t count, void *context) {
  char **retry_after = context;
  size_t n = size * count;
  if (n >= 5 && strncmp(data, "HTTP/", 5) == 0) {  // a new response's status line
    free(*retry_after);
    *retry_after = NULL;
  }
  static const char name[] = "retry-after:";
  size_t name_length = sizeof name - 1;
  if (n > name_length && strncasecmp(data, name, name_length) == 0) {
    const char *value = data + name_length;
    size_t length = n - name_length;
    while (length && (*value == ' ' || *value == '\t')) value++, length--;
    while (length && (value[length - 1] == '\r' || value[length - 1] == '\n' || value[length - 1] == ' ')) length--;
    free(*retry_after);
    if ((*retry_after = malloc(length + 1))) {
      memcpy(*retry_after, value, length);
      (*retry_after)[length] = 0;
    }
  }
  return n;
}

/// Ends the transfer once the flag it was given is set (libcurl asks about once a second, and on progress).
static int check_cancel(void *flag, long long down_total, long long down_now, long long up_total, long long up_now) {
  (void)down_total, (void)down_now, (void)up_total, (void)up_now;
  return __atomic_load_n((const int *)flag, __ATOMIC_ACQUIRE);
}

void arb_curl_cancel(int *flag) { __atomic_store_n(flag, 1, __ATOMIC_RELEASE); }

static const char *reason(int code) {
  switch (code) {
  case E_OPERATION_TIMEDOUT: return "timed out";
  case E_COULDNT_CONNECT: return "connection refused";
  case E_COULDNT_RESOLVE_HOST: case E_COULDNT_RESOLVE_PROXY: return "host not found";
  case E_PARTIAL_FILE: case E_RECV_ERROR: case E_SEND_ERROR: case E_GOT_NOTHING: return "connection lost";
  case E_ABORTED_BY_CALLBACK: return "cancelled";
  case E_UNSUPPORTED_PROTOCOL: return "not http or https";
  default: return NULL;
  }
}

void arb_curl_get(
    const char *url, const char *const *headers, long timeout_ms, size_t max_body, const int *cancel, arb_curl_result *result) {
  memset(result, 0, sizeof *result);
  CURL *handle = curl.easy_init();
  if (!handle) {
    snprintf(result->error, sizeof result->error, "request failed (libcurl could not start one)");
    return;
  }
  struct curl_slist *list = NULL;
  for (const char *const *header = headers; header && *header; header++) list = curl.slist_append(list, *header);
  buffer body = {.limit = max_body};
  curl.easy_setopt(handle, OPT_URL, url);
  curl.easy_setopt(handle, OPT_PROTOCOLS_STR, "http,https");
  curl.easy_setopt(handle, OPT_REDIR_PROTOCOLS_STR, "http,https");
  curl.easy_setopt(handle, OPT_HTTPHEADER, list);
  curl.easy_setopt(handle, OPT_PROXY, "");  // no proxy, whatever the environment says
  curl.easy_setopt(handle, OPT_ACCEPT_ENCODING, "");  // every encoding libcurl decodes
  curl.easy_setopt(handle, OPT_NOSIGNAL, 1L);
  curl.easy_setopt(handle, OPT_NOPROGRESS, 0L);
  curl.easy_setopt(handle, OPT_XFERINFOFUNCTION, (progress_callback)check_cancel);
  curl.easy_setopt(handle, OPT_XFERINFODATA, (void *)cancel);
  curl.easy_setopt(handle, OPT_FOLLOWLOCATION, 1L);
  curl.easy_setopt(handle, OPT_MAXREDIRS, 10L);
  curl.easy_setopt(handle, OPT_TIMEOUT_MS, timeout_ms);
  curl.easy_setopt(handle, OPT_WRITEFUNCTION, (write_callback)append_body);
  curl.easy_setopt(handle, OPT_WRITEDATA, (void *)&body);
  curl.easy_setopt(handle, OPT_HEADERFUNCTION, (write_callback)read_header);
  curl.easy_setopt(handle, OPT_HEADERDATA, (void *)&result->retry_after);
  int code = curl.easy_perform(handle);
  if (code == E_OK) {
    curl.easy_getinfo(handle, INFO_RESPONSE_CODE, &result->status);
    result->body = body.bytes;
    result->body_length = body.length;
  } else {
    free(body.bytes);
    free(result->retry_after);
    result->retry_after = NULL;
    const char *known = body.failed ? "out of memory for the body" : reason(code);
    if (body.too_long) snprintf(result->error, sizeof result->error, "body longer than %zu bytes, more than a line may be", max_body);
    else if (known) snprintf(result->error, sizeof result->error, "%s", known);
    else snprintf(result->error, sizeof result->error, "request failed (curl error %d: %s)", code, curl.easy_strerror(code));
  }
  curl.slist_free_all(list);
  curl.easy_cleanup(handle);
}

void arb_curl_result_free(arb_curl_result *result) {
  free(result->body);
  free(result->retry_after);
  result->body = NULL;
  result->retry_after = NULL;
}
