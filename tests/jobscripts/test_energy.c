// Energy meters (app/energy.c) without hardware: NVML through a fake libnvidia-ml.so.1
// (fake_nvml.c, on LD_LIBRARY_PATH), RAPL through a fake powercap tree
// (BLAST_POWERCAP_ROOT), on one or more ranks of one node: each GPU and each node counted
// once, counter wrap-around, and every unavailable case reported with its reason.
//
//   test_energy fake     the fake NVML library is on LD_LIBRARY_PATH
//   test_energy system   the system's NVML, if any: CI has none ("not found" reported); on a
//                        GPU node the GPU energy is measured or the reason reported
#define _POSIX_C_SOURCE 200809L  // setenv(), mkdtemp(), dlopen()
#include <dlfcn.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "energy.h"
#include "testlib.h"

static int rank, size;
static char root[256];  // the fake powercap tree (rank 0 writes it; one node)

static int HasNote(const BlastEnergyReport *r, const char *prefix, const char *text) {
  for (int i = 0; i < r->nunavailable; i++)
    if (!strncmp(r->unavailable[i], prefix, strlen(prefix)) && strstr(r->unavailable[i], text))
      return 1;
  return 0;
}

static void PrintNotes(const char *what, const BlastEnergyReport *r) {
  if (rank) return;
  printf("%s: gpu %g J (%d), package %g J (%d), dram %g J (%d), total %g J, %g W\n", what,
         r->gpu_joules, r->gpus, r->cpu_package_joules, r->cpu_packages, r->dram_joules,
         r->dram_domains, r->total_joules, r->average_watts);
  for (int i = 0; i < r->nsources; i++) printf("  source: %s\n", r->sources[i]);
  for (int i = 0; i < r->nunavailable; i++) printf("  unavailable: %s\n", r->unavailable[i]);
}

static void WriteFile(const char *zone, const char *file, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, zone);
  mkdir(path, 0755);
  snprintf(path, sizeof path, "%s/%s/%s", root, zone, file);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  fputs(text, f);
  fclose(f);
}

typedef void (*Between)(void);

// One measurement; `between` runs on rank 0 while the meters run.
static BlastEnergyReport Measure(const char *what, int use_gpu, const char *pci, Between between) {
  BlastEnergyReport r;
  memset(&r, 0, sizeof r);
  BlastEnergy m = NULL;
  TEST_CALL(BlastEnergyStart(MPI_COMM_WORLD, use_gpu, pci, &m));
  MPI_Barrier(MPI_COMM_WORLD);
  if (!rank && between) between();
  MPI_Barrier(MPI_COMM_WORLD);
  TEST_CALL(BlastEnergyStop(m, &r));
  TEST_CALL(BlastEnergyDestroy(&m));
  TEST_ASSERT(m == NULL, "the meter is reset");
  TEST_ASSERT(r.seconds >= 0 && r.nodes == 1, "%s: seconds %g, nodes %d", what, r.seconds, r.nodes);
  PrintNotes(what, &r);
  return r;
}

static void GpuCase(const char *what, const char *ndev, const char *visible, const char *pci,
                    double joules, int gpus) {
  setenv("FAKE_NVML_DEVICES", ndev, 1);
  if (visible)
    setenv("CUDA_VISIBLE_DEVICES", visible, 1);
  else
    unsetenv("CUDA_VISIBLE_DEVICES");
  BlastEnergyReport r = Measure(what, 1, pci, NULL);
  TEST_CLOSE(r.gpu_joules, joules, 1e-12);
  TEST_ASSERT(r.gpus == gpus, "%s: %d GPUs, expected %d", what, r.gpus, gpus);
  TEST_CLOSE(r.total_joules, joules, 1e-12);
  TEST_ASSERT(r.nsources == 1 && !strncmp(r.sources[0], "nvml: ", 6), "%s: source", what);
  TEST_ASSERT(isnan(r.cpu_package_joules) && HasNote(&r, "rapl: ", "not present"),
              "%s: no powercap tree", what);
  if (r.seconds > 0) TEST_CLOSE(r.average_watts, joules / r.seconds, 1e-12);
}

static void GpuFails(const char *what, const char *ndev, const char *visible, const char *reason) {
  setenv("FAKE_NVML_DEVICES", ndev, 1);
  if (visible)
    setenv("CUDA_VISIBLE_DEVICES", visible, 1);
  else
    unsetenv("CUDA_VISIBLE_DEVICES");
  BlastEnergyReport r = Measure(what, 1, NULL, NULL);
  TEST_ASSERT(isnan(r.gpu_joules) && isnan(r.total_joules) && isnan(r.average_watts) &&
                  r.gpus == 0 && r.nsources == 0,
              "%s: nothing measured", what);
  TEST_ASSERT(HasNote(&r, "nvml: ", reason), "%s: reason '%s' reported", what, reason);
}

// RAPL: package 0 wraps (900000 -> 100000 with a 1 J range: 0.2 J), package 1 gains 1 J,
// the dram domain 0.5 J; "core", psys and the mmio copy of package 0 are not counted.
static void RaplTree(void) {
  WriteFile("intel-rapl:0", "name", "package-0\n");
  WriteFile("intel-rapl:0", "energy_uj", "900000\n");
  WriteFile("intel-rapl:0", "max_energy_range_uj", "1000000\n");
  WriteFile("intel-rapl:0:0", "name", "dram\n");
  WriteFile("intel-rapl:0:0", "energy_uj", "1000\n");
  WriteFile("intel-rapl:0:0", "max_energy_range_uj", "262143328850\n");
  WriteFile("intel-rapl:1", "name", "package-1\n");
  WriteFile("intel-rapl:1", "energy_uj", "5000\n");
  WriteFile("intel-rapl:1", "max_energy_range_uj", "262143328850\n");
  WriteFile("intel-rapl:1:0", "name", "core\n");
  WriteFile("intel-rapl:1:0", "energy_uj", "0\n");
  WriteFile("intel-rapl:2", "name", "psys\n");
  WriteFile("intel-rapl:2", "energy_uj", "0\n");
  WriteFile("intel-rapl-mmio:0", "name", "package-0\n");
  WriteFile("intel-rapl-mmio:0", "energy_uj", "0\n");
}

static void RaplAdvance(void) {
  WriteFile("intel-rapl:0", "energy_uj", "100000\n");
  WriteFile("intel-rapl:0:0", "energy_uj", "501000\n");
  WriteFile("intel-rapl:1", "energy_uj", "1005000\n");
  WriteFile("intel-rapl:1:0", "energy_uj", "7000000\n");
  WriteFile("intel-rapl:2", "energy_uj", "9000000\n");
  WriteFile("intel-rapl-mmio:0", "energy_uj", "8000000\n");
}

static void RaplCases(void) {
  if (!rank) RaplTree();
  MPI_Barrier(MPI_COMM_WORLD);
  setenv("BLAST_POWERCAP_ROOT", root, 1);
  BlastEnergyReport r = Measure("rapl", 0, NULL, RaplAdvance);
  TEST_CLOSE(r.cpu_package_joules, 1.2, 1e-12);
  TEST_CLOSE(r.dram_joules, 0.5, 1e-12);
  TEST_CLOSE(r.total_joules, 1.7, 1e-12);
  TEST_ASSERT(r.cpu_packages == 2 && r.dram_domains == 1, "rapl: %d packages, %d dram domains",
              r.cpu_packages, r.dram_domains);
  TEST_ASSERT(r.nsources == 2 && isnan(r.gpu_joules), "rapl: two sources, no GPU");
  TEST_ASSERT(HasNote(&r, "nvml: ", "no rank runs on a GPU"), "rapl: GPU not used");
  TEST_ASSERT(r.nunavailable == 1, "rapl: one note, %d", r.nunavailable);

  // GPU and CPU together: the total is the sum of the parts.
  setenv("FAKE_NVML_DEVICES", "1", 1);
  unsetenv("CUDA_VISIBLE_DEVICES");
  if (!rank) RaplTree();
  MPI_Barrier(MPI_COMM_WORLD);
  r = Measure("gpu + rapl", 1, NULL, RaplAdvance);
  if (!isnan(r.gpu_joules)) TEST_CLOSE(r.total_joules, r.gpu_joules + 1.7, 1e-12);

  // No dram domain: packages counted, dram reported missing.
  if (!rank) {
    RaplTree();
    WriteFile("intel-rapl:0:0", "name", "uncore\n");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  r = Measure("no dram", 0, NULL, RaplAdvance);
  TEST_CLOSE(r.cpu_package_joules, 1.2, 1e-12);
  TEST_ASSERT(isnan(r.dram_joules) && HasNote(&r, "rapl-dram: ", "no dram domain"),
              "no dram: reported");
  TEST_CLOSE(r.total_joules, 1.2, 1e-12);

  // An unreadable counter (a directory stands in for a file without read permission,
  // which root could still read).
  if (!rank) {
    RaplTree();
    char path[512];
    snprintf(path, sizeof path, "%s/intel-rapl:1/energy_uj", root);
    remove(path);
    mkdir(path, 0755);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  r = Measure("unreadable", 0, NULL, NULL);
  TEST_ASSERT(isnan(r.cpu_package_joules) && HasNote(&r, "rapl: ", "cannot read"),
              "unreadable: reported");
  TEST_CLOSE(r.dram_joules, 0.0, 1e-12);

  // No package zone at all.
  setenv("BLAST_POWERCAP_ROOT", "/", 1);
  r = Measure("empty", 0, NULL, NULL);
  TEST_ASSERT(isnan(r.total_joules) && HasNote(&r, "rapl: ", "no intel-rapl package domain"),
              "empty: reported");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *mode = argc > 1 ? argv[1] : "fake";
  if (!rank) {
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/blast_powercap_XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(root)) {
      perror("mkdtemp");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  MPI_Bcast(root, sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
  char missing[300];
  snprintf(missing, sizeof missing, "%s/absent", root);
  setenv("BLAST_POWERCAP_ROOT", missing, 1);
  unsetenv("FAKE_NVML_ENERGY");

  if (!strcmp(mode, "system")) {
    void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml) {
      GpuFails("no library", "1", NULL, "libnvidia-ml.so.1 not found");
    } else {
      dlclose(nvml);
      unsetenv("FAKE_NVML_DEVICES");
      BlastEnergyReport r = Measure("system NVML", 1, NULL, NULL);
      TEST_ASSERT(
          (!isnan(r.gpu_joules) && r.gpu_joules >= 0 && r.gpus >= 1) || HasNote(&r, "nvml: ", ""),
          "system NVML: GPU energy measured or the reason given");
    }
    BlastEnergyReport r = Measure("cpu backend", 0, NULL, NULL);
    TEST_ASSERT(HasNote(&r, "nvml: ", "no rank runs on a GPU"), "cpu backend: GPU not used");
    TEST_ASSERT(HasNote(&r, "rapl: ", "not present"), "cpu backend: no powercap");
  } else {
    // Ranks share GPUs by node-local rank modulo the visible devices; each GPU counted once.
    const int two = size >= 2;
    GpuCase("one GPU", "1", NULL, NULL, 1.0, 1);
    GpuCase("two GPUs", "2", NULL, NULL, two ? 3.0 : 1.0, two ? 2 : 1);
    GpuCase("CUDA_VISIBLE_DEVICES=1", "2", "1", NULL, 2.0, 1);
    GpuCase("visible by UUID prefix", "2", "GPU-fake-0001", NULL, 2.0, 1);
    GpuCase("visible reordered", "2", " 1 , 0", NULL, two ? 3.0 : 2.0, two ? 2 : 1);
    GpuCase("visible list cut at a bad entry", "2", "1,7,0", NULL, 2.0, 1);
    GpuCase("by PCI bus id", "2", NULL, "0000:01:00.0", 2.0, 1);
    GpuFails("no visible device", "2", "5", "no visible GPU");
    GpuFails("MIG", "2", "MIG-1234", "MIG instance");
    GpuFails("no devices", "0", NULL, "no visible GPU");
    setenv("FAKE_NVML_ENERGY", "unsupported", 1);
    GpuFails("no energy counter", "1", NULL, "Not Supported");
    unsetenv("FAKE_NVML_ENERGY");
    RaplCases();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int fails = blast_test_failures, all;
  MPI_Allreduce(&fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  blast_test_failures = all;
  int rc = BlastTestFinish("test_energy");
  if (!rank) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
  }
  MPI_Finalize();
  return rc;
}
