// The stop signals of a run (signals.h): a handler that records the signal, read by the
// time loop's step hook.
#define _POSIX_C_SOURCE 200809L  // sigaction

#include "signals.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "blast.h"

static volatile sig_atomic_t g_signal = 0;
static void OnSignal(int sig) {
  g_signal = sig;
}

static const int kStopSignals[] = {SIGTERM, SIGUSR1, SIGINT, SIGHUP};

int BlastSignalsInstall(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof kStopSignals / sizeof *kStopSignals; i++)
    BlastCheck(sigaction(kStopSignals[i], &sa, NULL) == 0, BLAST_ERR_INTERNAL,
               "cannot install the handler of signal %d: %s", kStopSignals[i], strerror(errno));
  struct sigaction ign;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  BlastCheck(sigaction(SIGPIPE, &ign, NULL) == 0, BLAST_ERR_INTERNAL, "cannot ignore SIGPIPE: %s",
             strerror(errno));
  return 0;
}

int BlastSignalPending(void) {
  return (int)g_signal;
}

const char *BlastSignalName(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "a signal";
  }
}
