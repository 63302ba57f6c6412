/// @file log.h
/// @brief The one reporting hook of the library layers (fem/, hydro/, backends/, partition/, io/):
/// they never print themselves. A message goes through BlastLog() to the handler the
/// application installed (app/report.c); without one, it goes to stdout (info) or stderr
/// (warnings, traces). Data that the application formats itself (profiles, tuning
/// decisions) is returned as structs instead.
#ifndef BLAST_LOG_H
#define BLAST_LOG_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  BLAST_LOG_INFO = 0,  ///< progress a user asked for (rank 0 by convention)
  BLAST_LOG_WARN = 1,  ///< something the user should know; the run goes on
  BLAST_LOG_TRACE = 2  ///< diagnostic traces switched on by an option
} BlastLogLevel;

/// Receives one complete message (no trailing newline needed; it is printed as given).
typedef void (*BlastLogFn)(void *user, BlastLogLevel level, const char *message);

/// Install the handler (NULL restores the default). Not thread-safe: call at start-up.
void BlastLogSetHandler(BlastLogFn fn, void *user);

/// Format a message printf-style and hand it to the handler. Thread-safe if the handler is.
void BlastLog(BlastLogLevel level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif

#endif  // BLAST_LOG_H
