// The solver's exact Sedov solution (hydro/problems/sedov_exact.h) as CSV, to check the
// independent numpy version of tools/plot_sedov.py (test_viz_tools.py).
// Usage: sedov_profile DIM GAMMA E0 T N
// Prints "alpha,<alpha>", "r2,<shock radius>", then N lines "r,rho" for r = (i + 0.5)/N *
// 1.1 r2, i = 0..N-1 (the last ones outside the shock).
#include <stdio.h>
#include <stdlib.h>

#include "problems/sedov_exact.h"

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: %s DIM GAMMA E0 T N\n", argv[0]);
    return 2;
  }
  const int dim = atoi(argv[1]), n = atoi(argv[5]);
  const double gamma = atof(argv[2]), E0 = atof(argv[3]), t = atof(argv[4]);
  BlastSedov s;
  if (BlastSedovCreate(dim, gamma, E0, 1.0, &s)) {
    BlastErrorPrint();
    return 1;
  }
  const double r2 = BlastSedovShockRadius(s, t);
  printf("alpha,%.17g\nr2,%.17g\n", BlastSedovAlpha(s), r2);
  for (int i = 0; i < n; i++) {
    const double r = (i + 0.5) / n * 1.1 * r2;
    double rho;
    if (BlastSedovEval(s, t, r, &rho, NULL, NULL)) {
      BlastErrorPrint();
      return 1;
    }
    printf("%.17g,%.17g\n", r, rho);
  }
  BlastSedovDestroy(&s);
  return 0;
}
