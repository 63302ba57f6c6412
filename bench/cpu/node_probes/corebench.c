/* per-process compute and memory rates, for running N copies at once */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv) {
  int mode = atoi(argv[1]);
  if (mode == 0) { /* compute: 8 independent mul-add chains */
    double a[64];
    for (int i = 0; i < 64; i++) a[i] = 1.0 + i * 1e-9;
    double m = 0.9999999, c = 1e-7;
    long n = 100000000L * (argc > 2 ? atol(argv[2]) : 1);
    double t0 = now();
    for (long k = 0; k < n; k++) {
      for (int i = 0; i < 64; i++) a[i] = a[i] * m + c;
    }
    double t = now() - t0;
    double s = 0;
    for (int i = 0; i < 64; i++) s += a[i];
    printf("compute %.3f Gflop/s (%.2f s) %g\n", 2.0 * 64 * n / t * 1e-9, t, s);
  } else if (mode == 2) { /* triad for argv[2] seconds */
    size_t n = 8u << 20;
    double *x = malloc(n * 8), *y = malloc(n * 8), *z = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
      x[i] = 1;
      y[i] = 2;
      z[i] = 0;
    }
    double t0 = now(), T = atof(argv[2]);
    long it = 0;
    while (now() - t0 < T) {
      for (size_t i = 0; i < n; i++) z[i] = x[i] + 1.5 * y[i];
      it++;
    }
    printf("triad-loop %.2f GB/s %g\n", 24.0 * n * it / (now() - t0) * 1e-9, z[7]);
  } else { /* triad over 3 x 64 MiB */
    size_t n = 8u << 20;
    double *x = malloc(n * 8), *y = malloc(n * 8), *z = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
      x[i] = 1;
      y[i] = 2;
      z[i] = 0;
    }
    double best = 1e9;
    for (int r = 0; r < 20; r++) {
      double t0 = now();
      for (size_t i = 0; i < n; i++) z[i] = x[i] + 1.5 * y[i];
      double t = now() - t0;
      if (t < best) best = t;
    }
    printf("triad %.2f GB/s %g\n", 24.0 * n / best * 1e-9, z[7]);
  }
  return 0;
}
