// The setup of a run: the mesh, the backend and the solver, the resolved deck, and with a
// restart the checkpoint's state.
#define _POSIX_C_SOURCE 200809L  // open_memstream

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend_select.h"
#include "blast.h"
#include "blast_git.h"  // BLAST_GIT, generated at build time (cmake/git_version.cmake)
#include "blast_mpi.h"
#include "deck.h"
#include "meshdist.h"
#include "meshio.h"
#include "run.h"

// The serial mesh: read (by rank 0, sent to the others) or generated, then refined
// refine_serial times. Every rank holds it (it is small by construction: parallel
// refinement makes the large meshes). The attributes the deck names get their numbers
// from the mesh's names.
static int BuildMesh(MPI_Comm comm, BlastConfig *cfg, BlastMesh *mesh) {
  BlastMesh m0 = NULL;
  if (cfg->mesh_file[0])
    BlastCall(BlastMeshReadShared(comm, cfg->mesh_file, &m0));
  else if (cfg->generator == BLAST_MESH_GEN_BOX_SIMPLEX)
    BlastCall(BlastMeshCreateBoxSimplex(cfg->dim, cfg->elements, cfg->size, &m0));
  else
    BlastCall(BlastMeshCreateBox(cfg->dim, cfg->elements, cfg->size, &m0));
  const int nerr = BlastDeckResolveAttributeNames(cfg, m0);
  if (nerr) BlastMeshDestroy(&m0);
  BlastCall(nerr);
  if (cfg->refine_serial > 0) {
    const int ierr = BlastMeshRefine(m0, cfg->refine_serial, mesh);
    BlastMeshDestroy(&m0);
    if (ierr == BLAST_ERR_INPUT) {  // name the mesh the refinement came from
      char msg[1536];
      snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
      BlastError(BLAST_ERR_INPUT, "%s, refined %d times ([mesh] refine_serial): %s",
                 cfg->mesh_file[0] ? cfg->mesh_file : "the generated box mesh", cfg->refine_serial,
                 msg);
    }
    BlastCall(ierr);
  } else {
    *mesh = m0;
  }
  return 0;
}

// The resolved deck as text (stored in checkpoints).
static int DeckText(const BlastConfig *cfg, char **text) {
  size_t len = 0;
  FILE *f = open_memstream(text, &len);
  BlastCheck(f, BLAST_ERR_MEM, "open_memstream failed: %s", strerror(errno));
  const int ierr = BlastDeckWrite(cfg, f);
  fclose(f);
  BlastCall(ierr);
  return 0;
}

// The mesh, timed (wall, CPU, peak RSS: the summary reports them), and the checks that
// need its dimension.
static int SetupMesh(RunPlan *p, RunState *rs) {
  BlastConfig *cfg = p->cfg;
  const double mesh_cpu0 = BlastProcessCpuSeconds();
  BlastCallAgree(p->comm, 1, BuildMesh(p->comm, cfg, &rs->mesh));
  p->mesh_seconds = MPI_Wtime() - p->wall0;
  p->mesh_cpu = BlastProcessCpuSeconds() - mesh_cpu0, p->mesh_rss = BlastProcessPeakRss();
  cfg->mesh_dim = BlastMeshDim(rs->mesh);  // resolves [fem] assembly = default in the echo
  // Default is full on meshes with triangles or tetrahedra (BlastAssemblyResolveMesh):
  // resolved here, so that the echo, checkpoints and restarts name the mode the run uses.
  if (BlastMeshHasSimplices(rs->mesh) && cfg->assembly == BLAST_ASSEMBLY_DEFAULT)
    cfg->assembly = BLAST_ASSEMBLY_FULL;
  // The assembly mode is the run's, resolved with the mesh's dimension: checked before the
  // solver is built (which may not offer the other mode). Another dimension is refused with
  // its own reason when the checkpoint is read.
  if (p->restart && BlastMeshDim(rs->mesh) == p->from.dim)
    BlastCallAgree(p->comm, 1,
                   BlastCheckpointCheckAssembly(&p->from, cfg->checkpoint_restart, cfg->assembly,
                                                p->from.dim, cfg->order_kinematic));
  return 0;
}

// The backend of this rank and the solver on it; the setup's fault hook.
static int SetupSolver(RunPlan *p, RunState *rs) {
  BlastConfig *cfg = p->cfg;
  BlastCallAgree(p->comm, 1,
                 BlastBackendSelect(p->comm, cfg, &p->ops, p->backend, sizeof p->backend));
  // CPU-only runs use OpenMP on all zones: there is nothing to share them with.
  if (p->ops == &blast_backend_cpu) cfg->balance_mode = BLAST_BALANCE_OFF;
  BlastCallAgree(p->comm, 0, BlastHydroCreate(cfg, rs->mesh, p->comm, p->ops, &rs->h));
  p->fault = BlastFaultParse();
  if (p->fault.rank == p->rank && p->fault.step < 0) BlastCall(BlastFaultInject("setup"));
  return 0;
}

// The state of the checkpoint a restart continues from. A bad checkpoint is bad input:
// refused before anything is written.
static int ReadRestart(RunPlan *p, RunState *rs) {
  BlastConfig *cfg = p->cfg;
  const double t0 = MPI_Wtime();
  // Every rank reads the same header and agrees on the checksums: the refusal is the
  // same everywhere, printed once.
  BlastCallAgree(p->comm, 1,
                 BlastCheckpointRead(p->comm, rs->h, cfg, cfg->checkpoint_restart, p->changes,
                                     sizeof p->changes));
  p->read_seconds = MPI_Wtime() - t0;
  BlastHydroGetProgress(rs->h, NULL, NULL, &p->restart_steps, NULL);
  return 0;
}

int RunSetup(RunPlan *p, RunState *rs) {
  p->wall0 = MPI_Wtime();
  if (!p->rank) printf("blast_gpu %s (%s)\n", BLAST_VERSION, BLAST_GIT);
  BlastCall(SetupMesh(p, rs));
  BlastCall(SetupSolver(p, rs));
  BlastCall(DeckText(p->cfg, &rs->deck_text));
  if (p->restart) BlastCall(ReadRestart(p, rs));
  BlastCall(BlastHistoryCheckProbes(rs->h, p->cfg));  // before anything is written
  return 0;
}
