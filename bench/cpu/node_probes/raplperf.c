/* RAPL through the perf "power" PMU: energy-pkg / energy-ram over a busy interval */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
static int rd(const char *p, char *b, int n) {
  FILE *f = fopen(p, "r");
  if (!f) return -1;
  if (!fgets(b, n, f)) {
    fclose(f);
    return -1;
  }
  fclose(f);
  b[strcspn(b, "\n")] = 0;
  return 0;
}
int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 2;
  char b[256];
  if (rd("/sys/bus/event_source/devices/power/type", b, 256)) {
    puts("no power pmu");
    return 1;
  }
  int type = atoi(b);
  printf("power pmu type %d\n", type);
  system(
      "ls /sys/bus/event_source/devices/power/events/; cat "
      "/sys/bus/event_source/devices/power/cpumask");
  const char *ev[] = {"energy-pkg", "energy-ram", "energy-cores", "energy-psys"};
  int fd[4];
  double sc[4];
  uint64_t v0[4], v1[4];
  for (int i = 0; i < 4; i++) {
    char p[256];
    fd[i] = -1;
    snprintf(p, 256, "/sys/bus/event_source/devices/power/events/%s", ev[i]);
    if (rd(p, b, 256)) continue;
    unsigned cfg = 0;
    sscanf(b, "event=%x", &cfg);
    snprintf(p, 256, "/sys/bus/event_source/devices/power/events/%s.scale", ev[i]);
    sc[i] = rd(p, b, 256) ? 0 : atof(b);
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = type;
    a.size = sizeof a;
    a.config = cfg;
    fd[i] = syscall(SYS_perf_event_open, &a, -1, 0, -1, 0);
    printf("%s cfg 0x%x scale %g fd %d %s\n", ev[i], cfg, sc[i], fd[i],
           fd[i] < 0 ? strerror(errno) : "");
  }
  for (int i = 0; i < 4; i++)
    if (fd[i] >= 0 && read(fd[i], &v0[i], 8) != 8) fd[i] = -1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  volatile double x = 1;
  do {
    for (int k = 0; k < 1000000; k++) x = x * 1.0000001 + 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &t1);
  } while (t1.tv_sec - t0.tv_sec + 1e-9 * (t1.tv_nsec - t0.tv_nsec) < secs);
  for (int i = 0; i < 4; i++)
    if (fd[i] >= 0 && read(fd[i], &v1[i], 8) == 8)
      printf("%s: %.3f J over %.1f s = %.1f W (raw %llu -> %llu)\n", ev[i], (v1[i] - v0[i]) * sc[i],
             secs, (v1[i] - v0[i]) * sc[i] / secs, (unsigned long long)v0[i],
             (unsigned long long)v1[i]);
  return 0;
}
