/// @file signals.h
/// @brief The signals that stop a run cleanly: SIGTERM and SIGUSR1 (what batch systems send
/// ahead of the time limit), SIGINT (Ctrl-C) and SIGHUP (the terminal went away) ask for a
/// checkpoint and a stop after the current step; the handler only records the signal.
/// SIGPIPE is ignored: a closed stdout pipe (`blast_gpu ... | head -3`) makes writes to
/// stdout fail, which the run survives, instead of killing the process.
#ifndef BLAST_SIGNALS_H
#define BLAST_SIGNALS_H

/// Install the handlers of the stop signals and ignore SIGPIPE.
/// Errors: BLAST_ERR_INTERNAL when sigaction fails.
int BlastSignalsInstall(void);
/// The stop signal received last (0: none yet).
int BlastSignalPending(void);
/// The name of a stop signal ("SIGTERM", ...; "a signal" for another number).
const char *BlastSignalName(int sig);

#endif  // BLAST_SIGNALS_H
