// The reporting hook (see log.h).
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void DefaultHandler(void *user, BlastLogLevel level, const char *message) {
  (void)user;
  FILE *f = level == BLAST_LOG_INFO ? stdout : stderr;
  fputs(message, f);
  fflush(f);
}

static BlastLogFn g_fn = DefaultHandler;
static void *g_user = NULL;

void BlastLogSetHandler(BlastLogFn fn, void *user) {
  g_fn = fn ? fn : DefaultHandler;
  g_user = fn ? user : NULL;
}

void BlastLog(BlastLogLevel level, const char *fmt, ...) {
  char small[1024];
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  const int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) {
    va_end(ap2);
    return;
  }
  if ((size_t)n < sizeof small) {
    g_fn(g_user, level, small);
  } else {
    char *big = malloc((size_t)n + 1);
    if (big) {
      vsnprintf(big, (size_t)n + 1, fmt, ap2);
      g_fn(g_user, level, big);
      free(big);
    } else {
      g_fn(g_user, level, small);  // truncated rather than lost
    }
  }
  va_end(ap2);
}
