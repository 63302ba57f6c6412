// Checkpoint/restart through the library: a run stopped after some steps,
// checkpointed and restarted in a fresh solver ends bitwise identical to the uninterrupted
// run on the same ranks, and to round-off (|e| <= 1e-12 relative, same steps) on another
// rank count (written on all ranks of the job, read on a subset and vice versa); damaged
// or foreign checkpoints are refused with BLAST_ERR_INPUT.
// Usage (mpirun -n 4): test_checkpoint SCRATCH_DIR
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "blast_mpi.h"
#include "blast_hdf5.h"
#include "checkpoint.h"
#include "io_test_meshes.h"
#include "regression_common.h"
#include "testlib.h"

typedef struct {
  BlastHydro h;
  int stop_at;  // accepted step after which to stop (0: never)
} StopAt;

static int StopCallback(void *user, const BlastStepInfo *info) {
  StopAt *s = user;
  if (!info->rejected && s->stop_at && info->step == s->stop_at) BlastHydroRequestStop(s->h);
  return 0;
}

typedef struct {
  int steps, attempts;
  double t, dt, e_norm;
} Final;

static int Create(MPI_Comm comm, const BlastConfig *cfg, BlastMesh mesh, BlastHydro *h) {
  return BlastHydroCreate(cfg, mesh, comm, &blast_backend_cpu, h);
}

static int Finish(BlastHydro h, Final *f) {
  BlastHydroGetProgress(h, &f->t, &f->dt, &f->steps, &f->attempts);
  return BlastHydroENorm(h, &f->e_norm);
}

// Run to the end on `comm`, or stop after `stop_at` steps and write a checkpoint.
static int RunPart(MPI_Comm comm, const BlastConfig *cfg, BlastMesh mesh, int stop_at,
                   const char *dir, char *path, Final *f) {
  BlastHydro h;
  BlastCall(Create(comm, cfg, mesh, &h));
  StopAt s = {h, stop_at};
  BlastCall(BlastHydroRun(h, StopCallback, &s));
  if (stop_at)
    BlastCall(BlastCheckpointWrite(comm, h, cfg, stop_at, 1.0, dir, 2, "[problem]\n", "test",
                                   "0123456789abcdef0123456789abcdef", -1, path, 1024));
  BlastCall(Finish(h, f));
  BlastCall(BlastHydroDestroy(&h));
  return 0;
}

static int Resume(MPI_Comm comm, const BlastConfig *cfg, BlastMesh mesh, const char *path,
                  Final *f) {
  BlastHydro h;
  BlastCall(Create(comm, cfg, mesh, &h));
  BlastCall(BlastCheckpointRead(comm, h, cfg, path, NULL, 0));
  BlastCall(BlastHydroRun(h, NULL, NULL));
  BlastCall(Finish(h, f));
  BlastCall(BlastHydroDestroy(&h));
  return 0;
}

// Restart must fail with an input error (the error stays recorded for the message check).
static void ExpectRefused(MPI_Comm comm, const BlastConfig *cfg, BlastMesh mesh, const char *path,
                          const char *what, const char *needle) {
  BlastHydro h = NULL;
  TEST_CALL(Create(comm, cfg, mesh, &h));
  const int ierr = BlastCheckpointRead(comm, h, cfg, path, NULL, 0);
  char msg[1024];
  snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
  BlastErrorClear();
  TEST_ASSERT(ierr == BLAST_ERR_INPUT, "%s: error code %d, want %d (input error)", what, ierr,
              BLAST_ERR_INPUT);
  TEST_ASSERT(strstr(msg, needle) != NULL, "%s: message '%s' lacks '%s'", what, msg, needle);
  BlastHydroDestroy(&h);
}

static void Same(const char *what, const Final *a, const Final *b, double tol) {
  TEST_ASSERT(a->steps == b->steps && a->attempts == b->attempts, "%s: steps %d/%d attempts %d/%d",
              what, a->steps, b->steps, a->attempts, b->attempts);
  if (tol == 0.0)
    TEST_ASSERT(a->e_norm == b->e_norm && a->t == b->t && a->dt == b->dt,
                "%s: |e| %.17g vs %.17g, t %.17g vs %.17g, dt %.17g vs %.17g (want bitwise)", what,
                a->e_norm, b->e_norm, a->t, b->t, a->dt, b->dt);
  else
    TEST_CLOSE(a->e_norm, b->e_norm, tol);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *scratch = argc > 1 ? argv[1] : "checkpoint_scratch";
  // Sub-communicators: the first half of the ranks, and rank 0 alone.
  MPI_Comm half, one;
  MPI_Comm_split(MPI_COMM_WORLD, rank < (size + 1) / 2 ? 0 : MPI_UNDEFINED, rank, &half);
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, rank, &one);
  const struct {
    int dim, n, problem;
  } cases[] = {{2, 4, BLAST_PROBLEM_SEDOV},
               {3, 3, BLAST_PROBLEM_TRIPLE_POINT},
               {2, 4, BLAST_PROBLEM_TAYLOR_GREEN}};
  for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
    BlastMesh mesh;
    TEST_CALL(TestUnitBoxMesh(cases[ci].dim, cases[ci].n, &mesh));
    BlastConfig cfg;
    RegressionConfig(&cfg, cases[ci].problem);
    cfg.t_final = cases[ci].dim == 2 ? 0.3 : 0.2;
    cfg.cg_tol = 1e-10;
    char dir[512], path[1024], path2[1024];
    snprintf(dir, sizeof dir, "%s/case%zu", scratch, ci);
    Final ref, part, res;
    // 1. same ranks: bitwise
    TEST_CALL(RunPart(MPI_COMM_WORLD, &cfg, mesh, 0, dir, path, &ref));
    TEST_CALL(RunPart(MPI_COMM_WORLD, &cfg, mesh, ref.steps / 2, dir, path, &part));
    TEST_ASSERT(part.steps == ref.steps / 2, "stopped run: %d steps, want %d", part.steps,
                ref.steps / 2);
    TEST_CALL(Resume(MPI_COMM_WORLD, &cfg, mesh, path, &res));
    Same("restart on the same ranks", &res, &ref, 0.0);
    if (!rank)
      printf(
          "case %zu: uninterrupted %d steps |e| %.17g; stopped at %d, restarted from %s: %d steps "
          "|e| %.17g\n",
          ci, ref.steps, ref.e_norm, part.steps, path, res.steps, res.e_norm);
    // 2. written on all ranks, read on half of them; written on one rank, read on all
    if (half != MPI_COMM_NULL) {
      TEST_CALL(Resume(half, &cfg, mesh, path, &res));
      Same("restart on fewer ranks", &res, &ref, 1e-12);
      if (!rank)
        printf("case %zu: %d -> %d ranks: |e| %.17g (rel %.1e)\n", ci, size, (size + 1) / 2,
               res.e_norm, fabs(res.e_norm - ref.e_norm) / ref.e_norm);
    }
    if (one != MPI_COMM_NULL) TEST_CALL(RunPart(one, &cfg, mesh, ref.steps / 3, dir, path2, &part));
    MPI_Bcast(path2, sizeof path2, MPI_CHAR, 0, MPI_COMM_WORLD);
    TEST_CALL(Resume(MPI_COMM_WORLD, &cfg, mesh, path2, &res));
    Same("restart on more ranks", &res, &ref, 1e-12);
    if (!rank)
      printf("case %zu: 1 -> %d ranks: |e| %.17g (rel %.1e)\n", ci, size, res.e_norm,
             fabs(res.e_norm - ref.e_norm) / ref.e_norm);
    // 3. refused checkpoints (first case only)
    if (ci == 0) {
      char bad[1100];
      // a different problem, order, mesh
      BlastConfig other = cfg;
      other.problem = BLAST_PROBLEM_TAYLOR_GREEN;
      ExpectRefused(MPI_COMM_WORLD, &other, mesh, path, "other problem", "different problem");
      other = cfg;
      other.order_kinematic = 3, other.order_thermo = 2;
      ExpectRefused(MPI_COMM_WORLD, &other, mesh, path, "other order", "kinematic order");
      // the other [fem] assembly mode than the one the checkpoint recorded
      other = cfg;
      other.assembly = BlastAssemblyResolve(cfg.assembly, cases[ci].dim, cfg.order_kinematic) ==
                               BLAST_ASSEMBLY_FULL
                           ? BLAST_ASSEMBLY_PARTIAL
                           : BLAST_ASSEMBLY_FULL;
      char want[1200];
      snprintf(want, sizeof want,
               "checkpoint %s was written with [fem] assembly = %s, but this run uses %s: a "
               "restart cannot change the assembly mode",
               path,
               BlastCheckpointAssemblyName(
                   BlastAssemblyResolve(cfg.assembly, cases[ci].dim, cfg.order_kinematic)),
               BlastCheckpointAssemblyName(other.assembly));
      ExpectRefused(MPI_COMM_WORLD, &other, mesh, path, "other assembly", want);
      BlastMesh fine;
      TEST_CALL(TestUnitBoxMesh(2, 5, &fine));
      ExpectRefused(MPI_COMM_WORLD, &cfg, fine, path, "other mesh", "different mesh");
      BlastMeshDestroy(&fine);
      // truncated, flipped bytes, not HDF5, missing
      snprintf(bad, sizeof bad, "%s/truncated.h5", dir);
      if (!rank) {
        FILE *in = fopen(path, "rb"), *out = fopen(bad, "wb");
        fseek(in, 0, SEEK_END);
        const long n = ftell(in);
        fseek(in, 0, SEEK_SET);
        for (long i = 0; i < n / 2; i++) fputc(fgetc(in), out);
        fclose(in), fclose(out);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      ExpectRefused(MPI_COMM_WORLD, &cfg, mesh, bad, "truncated", "truncated or damaged");
      snprintf(bad, sizeof bad, "%s/altered.h5", dir);
      if (!rank) {  // a copy with one energy value changed behind the checksum's back
        FILE *in = fopen(path, "rb"), *out = fopen(bad, "wb");
        int ch;
        while ((ch = fgetc(in)) != EOF) fputc(ch, out);
        fclose(in), fclose(out);
        hid_t f = H5Fopen(bad, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t d = H5Dopen2(f, "e", H5P_DEFAULT);
        hid_t fs = H5Dget_space(d);
        const hsize_t at[2] = {0, 0}, one1 = 1;
        H5Sselect_elements(fs, H5S_SELECT_SET, 1, at);
        hid_t ms = H5Screate_simple(1, &one1, NULL);
        double val;
        H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &val);
        val += 1.0;
        H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, &val);
        H5Sclose(ms), H5Sclose(fs), H5Dclose(d), H5Fclose(f);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      ExpectRefused(MPI_COMM_WORLD, &cfg, mesh, bad, "altered value",
                    "/e is corrupted (checksum mismatch)");
      snprintf(bad, sizeof bad, "%s/format2.h5", dir);
      if (!rank) {  // a copy that says it is of format 2, which had no assembly attribute
        FILE *in = fopen(path, "rb"), *out = fopen(bad, "wb");
        int ch;
        while ((ch = fgetc(in)) != EOF) fputc(ch, out);
        fclose(in), fclose(out);
        hid_t f = H5Fopen(bad, H5F_ACC_RDWR, H5P_DEFAULT);
        hid_t a = H5Aopen(f, "format_version", H5P_DEFAULT);
        const int two = 2;
        H5Awrite(a, H5T_NATIVE_INT, &two);
        H5Aclose(a), H5Fclose(f);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      ExpectRefused(MPI_COMM_WORLD, &cfg, mesh, bad, "format 2",
                    "has format version 2, this blast_gpu reads version 4 (version 2 files do not "
                    "record [fem] assembly");
      // Other materials: a header that differs from this run's only in its materials
      // record (a file of the header alone: the header is checked before any field).
      const char *changes[][2] = {
          {"gamma=1.4 ", "gamma=1.4000000000000001 "},  // a parameter, by one ulp
          {"ideal_gas gamma=1.4 p_inf=0", "stiffened_gas gamma=1.4 p_inf=0"},  // the kind
          {"gas:", "air:"},                                                    // the name
          {"", "; water: stiffened_gas gamma=4.4 p_inf=600000000"}};           // one more material
      for (int c = 0; c < 4 && ci == 0; c++) {
        snprintf(bad, sizeof bad, "%s/materials%d.h5", dir, c);
        if (!rank) {
          BlastCheckpointHeader hd;
          TEST_CALL(BlastCheckpointPeek(path, &hd));
          char *at = changes[c][0][0] ? strstr(hd.materials, changes[c][0])
                                      : hd.materials + strlen(hd.materials);
          TEST_ASSERT(at != NULL, "materials record '%s' lacks '%s'", hd.materials, changes[c][0]);
          if (at) {
            char rest[sizeof hd.materials];
            snprintf(rest, sizeof rest, "%s", at + strlen(changes[c][0]));
            snprintf(at, sizeof hd.materials - (size_t)(at - hd.materials), "%s%s", changes[c][1],
                     rest);
          }
          hid_t f = H5Fcreate(bad, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
          TEST_CALL(BlastCheckpointHeaderWrite(f, &hd));
          H5Fclose(f);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        ExpectRefused(MPI_COMM_WORLD, &cfg, mesh, bad, "other materials",
                      c < 3 ? "has material 0 as '" : "has 2 materials (");
      }
      snprintf(bad, sizeof bad, "%s/not_hdf5.h5", dir);
      if (!rank) {
        FILE *out = fopen(bad, "w");
        fputs("this is not an HDF5 file\n", out);
        fclose(out);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      ExpectRefused(MPI_COMM_WORLD, &cfg, mesh, bad, "not HDF5", "not a readable HDF5 file");
      snprintf(bad, sizeof bad, "%s/missing.h5", dir);
      ExpectRefused(MPI_COMM_WORLD, &cfg, mesh, bad, "missing file", "cannot open checkpoint");
    }
    BlastMeshDestroy(&mesh);
  }
  if (half != MPI_COMM_NULL) MPI_Comm_free(&half);
  if (one != MPI_COMM_NULL) MPI_Comm_free(&one);
  int r = BlastTestFinish("test_checkpoint");
  MPI_Finalize();
  return r;
}
