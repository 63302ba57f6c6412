/* Per-process compute and memory rates, for running N copies at once (one per core).
 *   corebench 0 [K]   64 independent multiply-add chains, K x 10^8 iterations (compute-bound)
 *   corebench 1       triad z = x + 1.5 y over 3 x 64 MiB, best of 20 sweeps
 *   corebench 2 T     the same triad, swept for T seconds (a steady memory load) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

enum { kTriadN = 8 << 20 };  // doubles per array: 64 MiB

static double *x, *y, *z;

static void TriadSetup(void) {
  x = malloc(kTriadN * sizeof *x), y = malloc(kTriadN * sizeof *y), z = malloc(kTriadN * sizeof *z);
  if (!x || !y || !z) {
    fprintf(stderr, "corebench: out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < kTriadN; i++) x[i] = 1, y[i] = 2, z[i] = 0;
}

static void TriadSweep(void) {
  for (size_t i = 0; i < kTriadN; i++) z[i] = x[i] + 1.5 * y[i];
}

int main(int argc, char **argv) {
  const int mode = argc > 1 ? atoi(argv[1]) : -1;
  if (mode == 0) {
    double a[64];
    for (int i = 0; i < 64; i++) a[i] = 1.0 + i * 1e-9;
    const double m = 0.9999999, c = 1e-7;
    const long n = 100000000L * (argc > 2 ? atol(argv[2]) : 1);
    const double t0 = now();
    for (long k = 0; k < n; k++)
      for (int i = 0; i < 64; i++) a[i] = a[i] * m + c;
    const double t = now() - t0;
    double s = 0;
    for (int i = 0; i < 64; i++) s += a[i];
    printf("compute %.3f Gflop/s (%.2f s) %g\n", 2.0 * 64 * n / t * 1e-9, t, s);
  } else if (mode == 1) {
    TriadSetup();
    double best = 1e9;
    for (int r = 0; r < 20; r++) {
      const double t0 = now();
      TriadSweep();
      const double t = now() - t0;
      if (t < best) best = t;
    }
    printf("triad %.2f GB/s %g\n", 24.0 * kTriadN / best * 1e-9, z[7]);
  } else if (mode == 2 && argc > 2) {
    TriadSetup();
    const double t0 = now(), seconds = atof(argv[2]);
    long sweeps = 0;
    while (now() - t0 < seconds) TriadSweep(), sweeps++;
    printf("triad-loop %.2f GB/s %g\n", 24.0 * kTriadN * sweeps / (now() - t0) * 1e-9, z[7]);
  } else {
    fprintf(stderr, "usage: corebench 0 [K] | 1 | 2 SECONDS\n");
    return 2;
  }
  return 0;
}
