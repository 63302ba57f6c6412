// Setup of the Lagrangian operator (method spec 3.3, 3.4, 5.1, 5.5, 6, 11) as a sequence of
// named phases with one cleanup path (HydroSetup), and BlastHydroCreate. The phases' numerical
// work is in hydro_init.c (initial geometry and data) and hydro_mass.c (mass matrices,
// communication patterns).
#define _POSIX_C_SOURCE 200809L  // clock_gettime, getrusage

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "blast_mpi.h"
#include "ddsum.h"
#include "hydro_setup.h"
#include "problems/sources.h"
#include "memory_cpu.h"
#include "simplex.h"

// Sum of double-double pairs across ranks (an MPI reduction operator).
static void DDSumOp(void *in, void *inout, int *len, MPI_Datatype *type) {
  const double *a = in;
  double *b = inout;
  for (int i = 0; i < *len; i++) {
    BlastDD acc = {b[2 * i], b[2 * i + 1]};
    BlastDDAddDD(&acc, a[2 * i], a[2 * i + 1]);
    BlastDDNormalize(&acc);
    b[2 * i] = acc.hi, b[2 * i + 1] = acc.lo;
  }
  (void)type;
}

// Errors during the setup: see hydro_setup.h.
int BlastSetupAgree(BlastHydro h, int ierr, int64_t key) {
  if (h->nranks <= 1) {
    if (ierr) BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return ierr;
  }
  int fail = ierr != 0, nfail = 0;
  BlastCallMPI(MPI_Allreduce(&fail, &nfail, 1, MPI_INT, MPI_SUM, h->comm));
  if (!nfail) return 0;
  long long mine = ierr ? (long long)key : LLONG_MAX, low = LLONG_MAX;
  BlastCallMPI(MPI_Allreduce(&mine, &low, 1, MPI_LONG_LONG, MPI_MIN, h->comm));
  int cand = ierr && mine == low ? h->rank : h->nranks, root = 0;
  BlastCallMPI(MPI_Allreduce(&cand, &root, 1, MPI_INT, MPI_MIN, h->comm));
  char msg[2048] = "";
  int code = ierr;
  if (h->rank == root) snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
  BlastCallMPI(MPI_Bcast(&code, 1, MPI_INT, root, h->comm));
  BlastCallMPI(MPI_Bcast(msg, sizeof msg, MPI_CHAR, root, h->comm));
  if (h->rank != root || (low == LLONG_MAX && nfail < h->nranks)) {
    // Errors that name no zone (resources, backend) say where they happened.
    if (low == LLONG_MAX && nfail < h->nranks)
      BlastErrorRaise(__FILE__, __LINE__, __func__, code, "%s (on rank %d; %d of %d ranks failed)",
                      msg, root, nfail, h->nranks);
    else
      BlastErrorRaise(__FILE__, __LINE__, __func__, code, "%s", msg);
  }
  BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
  return code;
}

// Global sum of per-zone values that does not depend on the partition: children are
// summed per mesh zone (all children of a mesh zone live on one rank), the mesh-zone
// sums are combined by an all-reduce in which every entry has one contributor (exact),
// and the result is summed in mesh-zone order on every rank.
int BlastSetupOrderedZoneSum(BlastHydro h, const double *zone_value, double *sum) {
  const BlastSpace *s = h->space;
  const int nmesh = BlastMeshNumZones(s->mesh);
  double *macro = NULL, *all = NULL;
  int ierr = BlastCalloc(nmesh, &macro);
  if (!ierr) ierr = BlastMalloc(nmesh, &all);
  ierr = BlastSetupAgree(h, ierr, kNoZone);
  if (ierr) {
    BlastFree(&macro);
    BlastFree(&all);
    BlastCall(ierr);
  }
  for (int z = 0; z < s->nz; z++) macro[s->zone_macro[z]] += zone_value[z];
  BlastCallMPI(MPI_Allreduce(macro, all, nmesh, MPI_DOUBLE, MPI_SUM, h->comm));
  double total = 0.0;
  for (int Z = 0; Z < nmesh; Z++) total += all[Z];
  *sum = total;
  BlastFree(&macro);
  BlastFree(&all);
  return 0;
}

// ---------------------------------------------------------------------------------------
// The phases. Each fills part of the zeroed object h (or of the temporaries in st) and
// returns an error that is the same on every rank: local work ends in BlastSetupAgree (or
// a collective routine that agrees itself), so that an error on any rank stops every rank
// at the same point with the same message. Whatever a phase leaves behind when it fails
// is freed once, by HydroSetup (temporaries) and BlastHydroDestroy (members of h).

typedef struct {
  BlastHydro h;
  const BlastConfig *cfg;
  BlastMesh mesh;
  MPI_Comm comm;
  const BlastBackendOps *ops;
  int dim, k, m;  // dimension, kinematic and thermodynamic orders
  int geom;       // the zones' geometry (BlastGeom; one per mesh)
  int partial;    // BLAST_ASSEMBLY_PARTIAL resolved
  int rebuild;    // BlastHydroRebuild: the reference phases only, the state kept
  // temporaries (host), freed by HydroSetup whichever way the phases end
  double *S0;         // initial state
  double *xext;       // positions of all ext dofs
  double *wdetJ0;     // w |J0| at the quadrature points of all ext zones
  double *zone_vol;   // initial zone volumes
  double *Vinv;       // inverse Bernstein collocation matrix
  double *rho0h;      // Bernstein coefficients of the initial density
  double *qp_c;       // w |J0| rho0 at the quadrature points of all ext zones
  double *gravity;    // M_V g on the owned rows, dim components (problems with gravity)
  double *rho_qp;     // custom problems: the density at the quadrature points of ext zones
  long long nshared;  // owned dofs that another rank holds as a ghost
} Setup;

static double Rho0Fn(const BlastProblem *p, const double *x) {
  return BlastProblemRho0(p, x);
}
static double E0Fn(const BlastProblem *p, const double *x) {
  return BlastProblemE0(p, x);
}

// The communicator, the configuration and the double-double reduction.
static int PhaseCommunicator(Setup *st) {
  BlastHydro h = st->h;
  h->comm = st->comm;
  BlastCallMPI(MPI_Comm_rank(st->comm, &h->rank));
  BlastCallMPI(MPI_Comm_size(st->comm, &h->nranks));
  h->cfg = *st->cfg;
  h->mesh = st->mesh;
  h->ops = st->ops;
  BlastCall(BlastBackendCheck(st->ops));  // the same table on every rank: no agreement needed
  BlastCallMPI(MPI_Type_contiguous(2, MPI_DOUBLE, &h->dd_type));
  BlastCallMPI(MPI_Type_commit(&h->dd_type));
  BlastCallMPI(MPI_Op_create(DDSumOp, 1, &h->dd_op));
  st->dim = BlastMeshDim(st->mesh), st->k = st->cfg->order_kinematic;
  st->m = st->cfg->order_thermo >= 0 ? st->cfg->order_thermo : st->k - 1;
  BlastCall(BlastSetupZoneGeometry(h, st->mesh, &st->geom));
  h->hd.assembly =
      BlastAssemblyResolveMesh(st->cfg->assembly, st->dim, st->k, BlastGeomIsSimplex(st->geom));
  st->partial = h->hd.assembly == BLAST_ASSEMBLY_PARTIAL;
  return 0;
}

static int PhaseProblem(Setup *st) {
  BlastHydro h = st->h;
  BlastProblemDestroy(&h->prob);
  const int ierr = BlastProblemCreate(st->cfg, st->dim, &h->prob);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  return 0;
}

static int PhaseTopology(Setup *st) {
  BlastCall(BlastSetupAgree(st->h, BlastTopologyCreate(st->mesh, &st->h->topo), kNoZone));
  return 0;
}

// The owner of every mesh zone (several ranks) and the partition's statistics.
static int PhasePartition(Setup *st) {
  BlastHydro h = st->h;
  const int nzm = BlastMeshNumZones(st->mesh);
  if (h->nranks <= 1) {
    h->pstats = (BlastPartStats){1, nzm, nzm, 1.0, 0};
    return 0;
  }
  int *xadj = NULL, *adjncy = NULL;
  int ierr = BlastTopologyDualGraph(h->topo, &xadj, &adjncy);
  if (!ierr) ierr = BlastMalloc(nzm, &h->part);
  ierr = BlastSetupAgree(h, ierr, kNoZone);
  if (!ierr) {  // collective; rank 0's outcome is every rank's, but not its statistics'
    ierr = BlastPartitionGraph(st->comm, st->cfg->partitioner, nzm, xadj, adjncy, h->nranks,
                               h->part, &h->pstats);
    ierr = BlastSetupAgree(h, ierr, kNoZone);
  }
  BlastFree(&xadj);
  BlastFree(&adjncy);
  BlastCall(ierr);
  return 0;
}

// Sizes fit ints and the host memory (collective, agrees itself).
static int PhaseMemoryCheck(Setup *st) {
  BlastCall(BlastCpuMemoryCheck(st->comm, st->cfg, st->mesh, st->h->part, st->ops));
  return 0;
}

static int PhaseSpaces(Setup *st) {
  BlastHydro h = st->h;
  const BlastConfig *cfg = st->cfg;
  int ierr = BlastSpaceCreate(st->mesh, h->topo, st->k, st->m, cfg->refine_parallel, h->part,
                              h->rank, &h->space);
  if (!ierr) ierr = BlastSetupElementTables(h, st->geom, st->k, st->m, cfg->order_quadrature);
  if (!ierr && (h->space->h1_nd != h->tab->h1_nd || h->space->l2_nd != h->tab->l2_nd))
    ierr = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INTERNAL,
                           "the spaces have %d H1 and %d L2 dofs per zone, the %s tables %d and %d",
                           h->space->h1_nd, h->space->l2_nd, BlastGeomName(st->geom), h->tab->h1_nd,
                           h->tab->l2_nd);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  return 0;
}

// The communication patterns need only the sparsity of the mass matrix (its row-offset
// check may fail on one rank).
static int PhaseMassPattern(Setup *st) {
  BlastCall(BlastSetupAgree(
      st->h, st->partial ? BlastSetupMassVPartialPattern(st->h) : BlastSetupMassVPattern(st->h),
      kNoZone));
  return 0;
}

static int PhaseHalos(Setup *st) {
  BlastCall(BlastSetupHalos(st->h));
  return 0;
}

// The initial positions of every ext dof, identical on all ranks (collective).
static int PhasePositions(Setup *st) {
  BlastHydro h = st->h;
  const BlastSpace *s = h->space;
  const int dim = st->dim, nl = s->h1_nl, next = s->h1_next;
  h->nx = (size_t)dim * nl, h->ne = (size_t)s->nz * s->l2_nd, h->nstate = 2 * h->nx + h->ne;
  int ierr = st->rebuild ? 0 : BlastCalloc(h->nstate, &st->S0);
  if (!ierr) ierr = BlastMalloc((size_t)dim * next + 1, &st->xext);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  BlastCall(BlastSetupCanonicalPositions(h, st->xext));
  BlastFree(&h->x0_host);
  ierr = BlastMalloc(h->nx + 1, &h->x0_host);  // the reference (output: initial geometry)
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  double *x0 = h->x0_host, *xext = st->xext;  // copied by all threads (the first touch too)
#pragma omp parallel for schedule(static) collapse(2)
  for (int c = 0; c < dim; c++)
    for (int l = 0; l < nl; l++) x0[(size_t)c * nl + l] = xext[(size_t)c * next + l];
#pragma omp parallel for schedule(static)
  for (size_t k = 0; k < (st->rebuild ? 0 : h->nx); k++) st->S0[k] = x0[k];
  return 0;
}

// Jacobians of the initial map (a bad zone is named), zone volumes, total volume, h0.
static int PhaseGeometry(Setup *st) {
  BlastHydro h = st->h;
  const BlastSpace *s = h->space;
  const int dim = st->dim, nz = s->nz, nqp = h->tab->nqp;
  // J0^{-1} only for the full path: the partial path's zone kernels recompute it from x0.
  BlastFree(&h->qp_J0inv);
  int ierr = st->partial ? 0 : BlastMalloc((size_t)nz * nqp * dim * dim, &h->qp_J0inv);
  if (!ierr) ierr = BlastMalloc((size_t)s->nz_ext * nqp, &st->wdetJ0);
  if (!ierr) ierr = BlastMalloc(nz + 1, &st->zone_vol);
  int64_t bad_gid = kNoZone;
  if (!ierr) ierr = BlastSetupInitialGeometry(h, st->xext, st->wdetJ0, &bad_gid);
  BlastCall(BlastSetupAgree(h, ierr, bad_gid));
  const double *wdetJ0 = st->wdetJ0;
#pragma omp parallel for schedule(static)
  for (int z = 0; z < nz; z++) {
    double v = 0.0;
    for (int q = 0; q < nqp; q++) v += wdetJ0[(size_t)z * nqp + q];
    st->zone_vol[z] = v;
  }
  BlastCall(BlastSetupOrderedZoneSum(h, st->zone_vol, &h->volume0));
  // h0 (method spec 10.1): the mean zone size over the zones' reference volumes, so that
  // a zone's share is (V_z / |ref_z|)^(1/d) whatever its geometry (docs/architecture.md).
  double scaled = h->volume0;  // sum_z V_z / |ref_z|: the volume itself on tensor zones
  if (BlastMeshHasSimplices(s->mesh)) {
    for (int z = 0; z < nz; z++)
      st->zone_vol[z] /= BlastSetupRefVolume(BlastMeshZoneGeom(s->mesh, s->zone_macro[z]));
    BlastCall(BlastSetupOrderedZoneSum(h, st->zone_vol, &scaled));
  }
  const double nzg = (double)s->nz_global;
  const int k = st->k;
  h->h0 = dim == 1 ? h->volume0 / (nzg * k) : pow(scaled / nzg, 1.0 / dim) / k;
  if (!(isfinite(h->volume0) && h->volume0 > 0.0 && isfinite(h->h0) && h->h0 > 0.0)) {
    char where[BLAST_PATH_MAX + 64];
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                    "%s: coordinates too large or not finite: the volume of the mesh is %g (the "
                    "sum of finite zone volumes overflows double precision; mesh size h0 = %g); "
                    "scale the mesh down",
                    BlastSetupMeshOrigin(h, where, sizeof where), h->volume0, h->h0);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);  // global sums: the same on every rank
    return BLAST_ERR_INPUT;
  }
  return 0;
}

// Material, density, energy, velocity (method spec 11.2), checked before the collective
// Sedov deposit.
static int PhaseInitialData(Setup *st) {
  BlastHydro h = st->h;
  const BlastSpace *s = h->space;
  const int dim = st->dim, nz = s->nz, ne = s->l2_nd, nl = s->h1_nl, next = s->h1_next;
  double *v0 = st->S0 + h->nx, *e0 = st->S0 + 2 * h->nx;
  const double *xext = st->xext;
  int64_t bad_gid = kNoZone;
  h->nmat = BlastProblemMaterials(&h->prob, h->mats);
  BlastFree(&h->zone_mat);
  int ierr = BlastMalloc(nz + 1, &h->zone_mat);
  if (h->prob.custom) {  // the zones' regions (collective)
    BlastCall(BlastSetupAgree(h, ierr, kNoZone));
    BlastCall(BlastSetupCustomRegions(h));
  } else if (!ierr) {
#pragma omp parallel for schedule(static)
    for (int z = 0; z < nz; z++) {
      double xi[3] = {0.5, 0.5, 0.5}, X[3];
      BlastRefCentroid(BlastHydroZoneTab(h, z)->geom, xi);
      BlastSetupZonePoint(s, z, xi, X);
      h->zone_mat[z] = BlastProblemMaterialAt(&h->prob, X);
    }
  }
  if (!ierr) ierr = BlastMalloc((size_t)(h->zone_slot ? 2 : 1) * ne * ne, &st->Vinv);
  if (!ierr) ierr = BlastSetupBernsteinCollocationInverse(h, st->Vinv);
  if (!ierr) ierr = BlastMalloc((size_t)nz * ne + 1, &st->rho0h);
  if (!ierr && h->prob.custom)
    ierr = BlastSetupCustomInitialData(h, st->Vinv, st->rho0h, st->rebuild ? NULL : e0, &bad_gid);
  else if (!ierr)
    ierr = BlastSetupInterpolateL2(h, st->Vinv, Rho0Fn, st->rho0h);
  if (st->rebuild) {  // the reference density only: the state (e, v) stays
    BlastCall(BlastSetupAgree(h, ierr, bad_gid));
    return 0;
  }
  if (!ierr && h->prob.id != BLAST_PROBLEM_SEDOV && !h->prob.custom)
    ierr = BlastSetupInterpolateL2(h, st->Vinv, E0Fn, e0);
  if (!ierr) ierr = BlastSetupCheckInitialData(h, xext, st->rho0h, e0, &bad_gid);
  BlastCall(BlastSetupAgree(h, ierr, bad_gid));
  // Point sources ([source.NAME]) add to the initial energy; on Sedov they replace the
  // built-in deposit.
  int npoint = 0;
  for (int i = 0; i < st->cfg->nsources; i++)
    npoint += st->cfg->sources[i].kind == BLAST_SOURCE_POINT;
  if (h->prob.id == BLAST_PROBLEM_SEDOV && !npoint)
    BlastCall(BlastSetupSedovDeposit(h, st->wdetJ0, e0));
  if (h->prob.id == BLAST_PROBLEM_SEDOV && npoint)
    for (size_t i = 0; i < (size_t)nz * ne; i++) e0[i] = 0.0;
  if (npoint) BlastCall(BlastSourcesDepositPoints(h, st->wdetJ0, e0));
  if (h->prob.custom) return BlastSetupCustomVelocity(h, xext, v0);  // collective
#pragma omp parallel for schedule(static)
  for (int l = 0; l < nl; l++) {  // nodal interpolation at the (canonical) node positions
    double X[3], vv[3];
    for (int c = 0; c < dim; c++) X[c] = xext[(size_t)c * next + l];
    BlastProblemV0(&h->prob, X, vv);
    for (int c = 0; c < dim; c++) v0[(size_t)c * nl + l] = vv[c];
  }
  return 0;
}

// The boundary conditions (boundary.h): the initial velocity constrained (prescribed
// components set, wall normals' parts removed); the owned constrained dofs are kept.
static int PhaseEssentialDofs(Setup *st) {
  if (st->rebuild) return 0;  // the discretisation's, and the state's velocity
  BlastHydro h = st->h;
  const BlastSpace *s = h->space;
  double *v0 = st->S0 + h->nx;
  int ierr = BlastBoundaryBuild(st->cfg, s, &h->bc);
  if (!ierr) {
    BlastBoundaryApplyInitial(&h->bc, s->h1_nl, v0);
    BlastBoundaryKeepOwned(&h->bc, s->h1_nown);
    h->ess_off = h->bc.ess_off, h->ess_idx = h->bc.ess_idx;  // hydro.c frees them
    h->bc.ess_off = h->bc.ess_idx = NULL;
  }
  if (!ierr && h->bc.time_dependent)
    ierr = BlastMalloc((size_t)s->dim * s->h1_next + 1, &h->bc.host_a);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  // the coupled projected PCG where some rank has a wall that is not axis-aligned
  int any = h->bc.nproj > 0;
  BlastCallMPI(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, h->comm));
  h->coupled_cg = any;
  return 0;
}

// rho0 |J0| w from the Bernstein density; mass matrices from the analytic density (halo
// zones too: they complete the rows of the owned dofs); M_V g for gravity.
static int PhaseMassMatrices(Setup *st) {
  BlastHydro h = st->h;
  const BlastSpace *s = h->space;
  const int dim = st->dim, nz = s->nz, ne = s->l2_nd, nqp = h->tab->nqp, nown = s->h1_nown;
  const double *wdetJ0 = st->wdetJ0;
  int64_t bad_gid = kNoZone;
  double **ref[] = {&h->qp_R0, &h->mv_val, &h->mv_dinv, &h->me_inv, &h->pa_qmass};
  for (size_t i = 0; i < sizeof ref / sizeof *ref; i++) BlastFree(ref[i]);  // a rebuild's
  int ierr = BlastMalloc((size_t)nz * nqp, &h->qp_R0);
  if (!ierr) ierr = BlastMalloc((size_t)s->nz_ext * nqp, &st->qp_c);
  if (!ierr && h->prob.custom) ierr = BlastSetupCustomQpDensity(h, &st->rho_qp);
  if (!ierr) {
    // Zones are independent (disjoint outputs); the lowest zone with a non-finite mass is
    // reported, at its first such point, as by a serial loop.
    int bad = INT_MAX;
    double *qp_c = st->qp_c, *qp_R0 = h->qp_R0;
    const double *rho_qp = st->rho_qp;
#pragma omp parallel for schedule(dynamic, 32) reduction(min : bad)
    for (int z = 0; z < s->nz_ext; z++)
      for (int q = 0; q < nqp; q++) {
        const BlastTensorTables *t = BlastHydroZoneTab(h, z);
        double X[3];
        const size_t zq = (size_t)z * nqp + q;
        BlastSetupZonePoint(s, z, &t->qp_x[(size_t)q * dim], X);
        qp_c[zq] = wdetJ0[zq] * (rho_qp ? rho_qp[zq] : BlastProblemRho0(&h->prob, X));
        if (z >= nz) continue;
        double rho = 0.0;
        for (int j = 0; j < ne; j++)
          rho += st->rho0h[(size_t)z * ne + j] * t->l2_B[(size_t)q * ne + j];
        qp_R0[zq] = wdetJ0[zq] * rho;
        if (!(isfinite(qp_c[zq]) && isfinite(qp_R0[zq])) && z < bad) bad = z;
      }
    for (int q = 0; q < nqp && bad < INT_MAX; q++) {
      const size_t zq = (size_t)bad * nqp + q;
      if (isfinite(qp_c[zq]) && isfinite(qp_R0[zq])) continue;
      char where[BLAST_PATH_MAX + 64], zone[256];
      bad_gid = s->zone_gid[bad];
      ierr = BlastErrorRaise(
          __FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
          "%s: %s: coordinates or densities too large: the mass of the zone at quadrature "
          "point %d (rho0 w det J0 = %g) overflows double precision",
          BlastSetupMeshOrigin(h, where, sizeof where),
          BlastSetupZoneName(h, bad, zone, sizeof zone), q,
          isfinite(qp_c[zq]) ? qp_R0[zq] : qp_c[zq]);
      break;
    }
  }
  if (!ierr) BlastSetupPaddedPoints(h, h->qp_R0);
  if (st->partial) {
    if (!ierr && h->prob.gravity) ierr = BlastCalloc((size_t)dim * nown + 1, &st->gravity);
    if (!ierr) ierr = BlastSetupMassVPartialValues(h, st->qp_c, h->prob.g, st->gravity, &bad_gid);
  } else if (!ierr) {
    ierr = BlastSetupMassVValues(h, st->qp_c, &bad_gid);
  }
  if (!ierr) ierr = BlastSetupMassEInverse(h, st->qp_c, &bad_gid);
  BlastCall(BlastSetupAgree(h, ierr, bad_gid));
  if (st->partial) {  // the mass operator's quadrature data stays
    h->pa_qmass = st->qp_c;
    st->qp_c = NULL;
  } else if (h->prob.gravity) {
    BlastCall(BlastSetupAgree(h, BlastCalloc((size_t)dim * nown + 1, &st->gravity), kNoZone));
    BlastSetupMassVGravity(h, h->prob.g, st->gravity);
  }
  // What the backend does not need.
  BlastFree(&st->xext);
  BlastFree(&st->Vinv);
  BlastFree(&st->rho0h);
  BlastFree(&st->qp_c);
  BlastFree(&st->rho_qp);
  BlastFree(&st->wdetJ0);
  BlastFree(&st->zone_vol);
  return 0;
}

// The constant data handed to the backend (pointers into h; nothing can fail).
static int PhaseBackendData(Setup *st) {
  BlastHydro h = st->h;
  const BlastSpace *s = h->space;
  const BlastTensorTables *t = h->tab;
  BlastHydroData *hd = &h->hd;
  hd->dim = st->dim, hd->nz = s->nz, hd->nqp = t->nqp, hd->h1_nd = s->h1_nd;
  hd->l2_nd = s->l2_nd, hd->h1_nl = s->h1_nl;
  hd->h1_nown = s->h1_nown, hd->h1_next = s->h1_next;
  hd->h1_edof = s->h1_edof, hd->h1_toff = s->h1_toff, hd->h1_tidx = s->h1_tidx;
  hd->qp_w = t->qp_w, hd->h1_B = t->h1_B, hd->h1_G = t->h1_G, hd->l2_B = t->l2_B;
  BlastSetupMixedBackendData(h), hd->qp_R0 = h->qp_R0;
  hd->zone_mat = h->zone_mat, hd->mats = h->mats, hd->nmat = h->nmat;
  hd->me_inv = h->me_inv;
  hd->mv_dinv = h->mv_dinv, hd->mv_rows = h->mv_rows;
  hd->ess_off = h->ess_off, hd->ess_idx = h->ess_idx;
  hd->nproj = h->bc.nproj, hd->proj_idx = h->bc.proj_idx, hd->proj_normal = h->bc.proj_normal;
  hd->wall_np = h->bc.wall_np, hd->wall_off = h->bc.wall_off, hd->wall_slot = h->bc.wall_slot;
  hd->wall_idx = h->bc.wall_idx, hd->wall_w = h->bc.wall_w;
  for (int w = 0; w < 2; w++) {
    hd->halo[w].nsend = BlastHaloSendCount(h->halo[w]);
    hd->halo[w].nrecv = BlastHaloRecvCount(h->halo[w]);
    hd->halo[w].send_idx = BlastHaloSendIdx(h->halo[w]);
    hd->halo[w].recv_idx = BlastHaloRecvIdx(h->halo[w]);
  }
  hd->qpar.dim = st->dim, hd->qpar.order_k = st->k, hd->qpar.visc = h->prob.visc;
  hd->qpar.vort = h->prob.vort, hd->qpar.h0 = h->h0, hd->qpar.cfl = st->cfg->cfl;
  int npower = 0;  // power sources ([source.NAME] power) replace the built-in TG source
  for (int i = 0; i < st->cfg->nsources; i++)
    npower += st->cfg->sources[i].kind == BLAST_SOURCE_POWER;
  hd->tg_source = h->prob.tg_source && !npower;
  if (!st->partial) {
    hd->full.rowptr = h->mv_rowptr, hd->full.col = h->mv_col, hd->full.val = h->mv_val;
    hd->full.J0inv = h->qp_J0inv;
  } else {
    hd->pa.nz_ext = s->nz_ext;
    hd->pa.mass_toff = s->mass_toff, hd->pa.mass_tidx = s->mass_tidx;
    hd->pa.d1d = t->k + 1, hd->pa.q1d = t->q1d, hd->pa.l1d = t->m + 1;
    hd->pa.B = t->b1d, hd->pa.G = t->g1d, hd->pa.L = t->l1d;
    hd->pa.qmass = h->pa_qmass, hd->pa.x0 = h->x0_host;
    hd->pa.zones = h->pa_zones, hd->pa.nzint = h->pa_nzint;
    hd->pa.keep_stress = st->cfg->ode_solver == BLAST_ODE_RK2AVG;
  }
  return 0;
}

// The backend context (CUDA: collective, its memory check agreed inside) and the CPU+GPU
// sharing of the zones.
static int PhaseBackend(Setup *st) {
  BlastHydro h = st->h;
  const BlastConfig *cfg = st->cfg;
  int ierr = st->ops->ctx.create(&h->hd, &h->bctx);
  if (!ierr && cfg->balance_mode != BLAST_BALANCE_OFF)
    ierr = BlastHybridCreate(st->ops, h->bctx, &h->hd, cfg->balance_mode, cfg->balance_gpu_fraction,
                             cfg->balance_period, &h->hybrid);
  if (!ierr) BlastHybridSetTrace(h->hybrid, cfg->balance_trace);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  return 0;
}

// Backend memory: halo buffers (host, pinned for GPUs), the state and the integrator's
// work vectors, the momentum rhs, the PCG vectors, gravity; the initial state uploaded.
static int PhaseBuffers(Setup *st) {
  BlastHydro h = st->h;
  const BlastBackendOps *ops = st->ops;
  const BlastSpace *s = h->space;
  const int dim = st->dim, nown = s->h1_nown;
  void *b = h->bctx;
  int ierr = 0;
  {  // halo buffers in the backend's host memory (pinned for GPUs)
    size_t nbuf = 1;
    for (int w = 0; w < 2; w++) {
      const int ns = BlastHaloSendCount(h->halo[w]), nr = BlastHaloRecvCount(h->halo[w]);
      const size_t n = 2 * (size_t)dim * (size_t)(ns > nr ? ns : nr);
      if (n > nbuf) nbuf = n;
    }
    BlastFree(&h->hbuf_send);
    BlastFree(&h->hbuf_recv);
    h->hbuf_backend = 1;
    ierr = ops->vec.host_alloc(b, nbuf, &h->hbuf_send);
    if (!ierr) ierr = ops->vec.host_alloc(b, nbuf, &h->hbuf_recv);
  }
  if (!ierr) ierr = ops->vec.alloc(b, h->nstate, &h->S);
  if (!ierr) ierr = BlastOdeScratchCreate(h);
  if (!ierr) ierr = ops->vec.alloc(b, 2 * h->nx, &h->rhs);  // double-double pairs
  double **cg[] = {&h->cg_r, &h->cg_z, &h->cg_q, &h->cg_d, &h->cg_b, &h->cg_x};
  for (size_t i = 0; i < sizeof cg / sizeof *cg && !ierr; i++)
    ierr = ops->vec.alloc(b, (size_t)dim * s->h1_next + 1, cg[i]);
  if (!ierr) ierr = BlastHydroWallAlloc(h);
  if (!ierr) ierr = ops->vec.from_host(b, h->nstate, st->S0, h->S);
  if (!ierr && st->gravity) {
    ierr = ops->vec.alloc(b, (size_t)dim * nown + 1, &h->gravity);
    if (!ierr) ierr = ops->vec.from_host(b, (size_t)dim * nown, st->gravity, h->gravity);
  }
  // Shared dofs: owned dofs that some other rank holds as a ghost (counted once).
  st->nshared = 0;
  char *sent = NULL;
  if (!ierr) ierr = BlastCalloc(nown + 1, &sent);
  if (!ierr) {
    const int *sidx = BlastHaloSendIdx(h->halo[BLAST_HALO_L]);
    for (int i = 0; i < BlastHaloSendCount(h->halo[BLAST_HALO_L]); i++) sent[sidx[i]] = 1;
    for (int l = 0; l < nown; l++) st->nshared += sent[l];
  }
  BlastFree(&sent);
  if (!ierr && !h->sources) ierr = BlastSourcesCreate(h, &h->sources);  // power sources
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  BlastFree(&st->S0);
  BlastFree(&st->gravity);
  return 0;
}

// The shape for reports (collective).
static int PhaseShape(Setup *st) {
  BlastHydro h = st->h;
  const BlastSpace *s = h->space;
  const MPI_Comm comm = st->comm;
  h->shape.dim = st->dim, h->shape.k = st->k, h->shape.m = st->m, h->shape.nqp = h->tab->nqp;
  h->shape.ranks = h->nranks, h->shape.threads = omp_get_max_threads();
  h->shape.assembly = h->hd.assembly, h->shape.zones = s->nz_global;
  h->shape.h1_dofs = st->dim * s->h1_nglobal, h->shape.l2_dofs = s->nz_global * s->l2_nd;
  h->shape.volume = h->volume0, h->shape.h0 = h->h0;
  const int64_t nchild = s->nz_global / BlastMeshNumZones(st->mesh);
  h->shape.partitioner = st->cfg->partitioner;
  h->shape.zones_min = h->pstats.zones_min * nchild,
  h->shape.zones_max = h->pstats.zones_max * nchild;
  h->shape.imbalance = h->pstats.imbalance, h->shape.edge_cut = h->pstats.edge_cut;
  const int64_t shared = st->nshared;
  BlastCallMPI(MPI_Allreduce(&shared, &h->shape.shared_dofs, 1, MPI_INT64_T, MPI_SUM, comm));
  int nb = BlastHaloNeighbors(h->halo[BLAST_HALO_L]);
  BlastCallMPI(MPI_Allreduce(&nb, &h->shape.neighbors_min, 1, MPI_INT, MPI_MIN, comm));
  BlastCallMPI(MPI_Allreduce(&nb, &h->shape.neighbors_max, 1, MPI_INT, MPI_MAX, comm));
  return 0;
}

// Initial energy and time step (method spec 10.1, 13.2). The norms and the dt estimate
// are global: a failure of their checks is the same on every rank.
static int PhaseInitialStep(Setup *st) {
  BlastHydro h = st->h;
  double e_norm, ie, ke;
  BlastCall(BlastHydroNorms(h, &e_norm, &ie, &ke));
  h->energy0 = ie + ke;
  if (!(isfinite(e_norm) && isfinite(ie) && isfinite(ke) && isfinite(h->energy0))) {
    char where[BLAST_PATH_MAX + 64];
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_INPUT,
                    "[problem] name = %s: the initial energies overflow double precision "
                    "(|e| = %g, internal energy %g, kinetic energy %g) on %s: the problem's "
                    "energies%s or the mesh coordinates are too large",
                    BlastProblemName(h->prob.id), e_norm, ie, ke,
                    BlastSetupMeshOrigin(h, where, sizeof where),
                    h->prob.id == BLAST_PROBLEM_SEDOV ? " ([problem] blast_energy)" : "");
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_INPUT;
  }
  h->dt_est = HUGE_VAL;
  h->tangled_zone = -1;
  h->qdata_current = 0;
  BlastCall(BlastSetupAgree(h, BlastHydroUpdateQData(h, h->S), kNoZone));
  BlastCall(BlastHydroGlobalDtEstimate(h, &h->dt0));
  if (!(h->dt0 > 0.0 && isfinite(h->dt0))) {
    BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_NUMERIC,
                    "the initial time-step estimate is %g: the initial state has no sound speed "
                    "and no viscosity anywhere, or a tangled zone",
                    h->dt0);
    BlastErrorSetCollective(BLAST_COLLECTIVE_SAME);
    return BLAST_ERR_NUMERIC;
  }
  h->dt = h->dt0;
  h->t = 0.0;
  h->ti = 1;
  h->attempts = 0;
  h->norms_attempts = -1;
  return 0;
}

static int PhaseTransport(Setup *st) {  // halo_nccl.h
  return BlastHydroTransportSetup(st->h, st->cfg->gpu_halo);
}

// The phases in order; BlastHydroSetupPhaseName names them (messages, tests).
static const struct {
  const char *name;
  int (*run)(Setup *st);
} kPhases[] = {
    {"communicator", PhaseCommunicator},
    {"problem", PhaseProblem},
    {"topology", PhaseTopology},
    {"partition", PhasePartition},
    {"memory check", PhaseMemoryCheck},
    {"spaces", PhaseSpaces},
    {"mass pattern", PhaseMassPattern},
    {"halos", PhaseHalos},
    {"positions", PhasePositions},
    {"geometry", PhaseGeometry},
    {"initial data", PhaseInitialData},
    {"essential dofs", PhaseEssentialDofs},
    {"mass matrices", PhaseMassMatrices},
    {"backend data", PhaseBackendData},
    {"backend", PhaseBackend},
    {"buffers", PhaseBuffers},
    {"shape", PhaseShape},
    {"halo transport", PhaseTransport},
    {"initial step", PhaseInitialStep},
};
enum { kNumPhases = (int)(sizeof kPhases / sizeof *kPhases) };
_Static_assert((int)kNumPhases <= (int)BLAST_SETUP_PHASES_MAX, "BLAST_SETUP_PHASES_MAX too small");

int BlastHydroSetupPhaseCount(void) {
  return kNumPhases;
}

const char *BlastHydroSetupPhaseName(int phase) {
  return phase >= 0 && phase < kNumPhases ? kPhases[phase].name : NULL;
}

double BlastHydroSetupPhaseSeconds(BlastHydro h, int phase) {
  return phase >= 0 && phase < kNumPhases ? h->setup_seconds[phase] : 0.0;
}

double BlastHydroSetupPhaseCpuSeconds(BlastHydro h, int phase) {
  return phase >= 0 && phase < kNumPhases ? h->setup_cpu_seconds[phase] : 0.0;
}

double BlastHydroSetupPhasePeakRss(BlastHydro h, int phase) {
  return phase >= 0 && phase < kNumPhases ? h->setup_peak_rss[phase] : 0.0;
}

double BlastProcessCpuSeconds(void) {
  struct timespec t;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return NAN;
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double BlastProcessPeakRss(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return NAN;
  return 1024.0 * (double)ru.ru_maxrss;
}

// The test hook (BlastHydroSetupFailAtForTest): the phase to fail after, the failing rank.
static struct { int phase, rank; } g_fail = {-1, -1};

int BlastHydroSetupFailAtForTest(int phase, int rank) {
  BlastCheck(phase >= -1 && phase < kNumPhases, BLAST_ERR_ARG,
             "BlastHydroSetupFailAtForTest: phase %d is not -1 or one of the %d setup phases",
             phase, kNumPhases);
  g_fail.phase = phase, g_fail.rank = rank;
  return 0;
}

// The setup's host temporaries (whichever way the phases ended).
static void FreeTemporaries(Setup *st) {
  double **tmp[] = {&st->S0,    &st->wdetJ0, &st->xext,    &st->zone_vol, &st->Vinv,
                    &st->rho0h, &st->qp_c,   &st->gravity, &st->rho_qp};
  for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++) BlastFree(tmp[i]);
}

// The phases in order, stopping at the first error (every rank at the same phase). The
// one cleanup path: the temporaries are freed here, whatever h holds is freed by
// BlastHydroDestroy, called by BlastHydroCreate.
static int HydroSetup(BlastHydro h, const BlastConfig *cfg, BlastMesh mesh, MPI_Comm comm,
                      const BlastBackendOps *ops) {
  Setup st;
  memset(&st, 0, sizeof st);
  st.h = h, st.cfg = cfg, st.mesh = mesh, st.comm = comm, st.ops = ops;
  int ierr = 0;
  for (int p = 0; p < kNumPhases && !ierr; p++) {
    const double t0 = BlastWtime(), c0 = BlastProcessCpuSeconds();
    ierr = kPhases[p].run(&st);
    h->setup_seconds[p] = BlastWtime() - t0;
    h->setup_cpu_seconds[p] = BlastProcessCpuSeconds() - c0;
    h->setup_peak_rss[p] = BlastProcessPeakRss();
    if (!ierr && g_fail.phase == p) {  // the test hook: a local error, agreed as any other
      int mine = 0;
      if (g_fail.rank < 0 || g_fail.rank == h->rank)
        mine = BlastErrorRaise(__FILE__, __LINE__, __func__, BLAST_ERR_MEM,
                               "setup phase %d of %d (%s): failure forced by "
                               "BlastHydroSetupFailAtForTest",
                               p + 1, kNumPhases, kPhases[p].name);
      g_fail.phase = -1;
      ierr = BlastSetupAgree(h, mine, kNoZone);
    }
  }
  FreeTemporaries(&st);
  BlastCall(ierr);
  return 0;
}

int BlastHydroCreate(const BlastConfig *cfg, BlastMesh mesh, MPI_Comm comm,
                     const BlastBackendOps *ops, BlastHydro *hydro) {
  BlastHydro h;
  BlastCall(BlastCalloc(1, &h));
  h->dd_op = MPI_OP_NULL, h->dd_type = MPI_DATATYPE_NULL;
  const int ierr = HydroSetup(h, cfg, mesh, comm, ops);
  if (ierr) {
    // Keep the setup's error: destroying a half-built object only frees memory.
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", BlastErrorMessage());
    const BlastCollective level = BlastErrorCollective();
    if (BlastHydroDestroy(&h)) {
      BlastErrorRaise(__FILE__, __LINE__, __func__, ierr, "%s", msg);
      BlastErrorSetCollective(level);
    }
    BlastFree(&h);
    BlastCall(ierr);
  }
  *hydro = h;
  return 0;
}

// The mesh of a rebuild describes the same discretisation: the dimension, the vertices
// and the zones with their corners of the mesh the setup used; only the coordinates move.
static int SameTopology(BlastMesh a, BlastMesh b) {
  const int dim = BlastMeshDim(a), nz = BlastMeshNumZones(a);
  if (BlastMeshDim(b) != dim || nz != BlastMeshNumZones(b) ||
      BlastMeshNumVertices(a) != BlastMeshNumVertices(b))
    return 0;
  const int *za = BlastMeshZoneVerts(a), *zb = BlastMeshZoneVerts(b);
  for (size_t i = 0; i < ((size_t)nz << dim); i++)
    if (za[i] != zb[i]) return 0;
  return 1;
}

int BlastHydroRebuild(BlastHydro h, BlastMesh mesh) {
  BlastCheck(mesh && SameTopology(h->mesh, mesh), BLAST_ERR_ARG,
             "BlastHydroRebuild: the mesh must have the dimension, vertices and zones of the "
             "mesh the solver was set up on (only the coordinates may differ)");
  Setup st;
  memset(&st, 0, sizeof st);
  st.h = h, st.cfg = &h->cfg, st.mesh = mesh, st.comm = h->comm, st.ops = h->ops;
  st.dim = BlastMeshDim(mesh), st.k = h->cfg.order_kinematic;
  st.m = h->cfg.order_thermo >= 0 ? h->cfg.order_thermo : st.k - 1;
  st.partial = h->hd.assembly == BLAST_ASSEMBLY_PARTIAL;
  st.rebuild = 1;
  h->mesh = mesh, h->space->mesh = mesh;
  // The reference phases of the setup, from the positions to the backend data, in order.
  int p0 = 0, p1 = 0;
  for (int p = 0; p < kNumPhases; p++) {
    if (kPhases[p].run == PhasePositions) p0 = p;
    if (kPhases[p].run == PhaseBackendData) p1 = p;
  }
  int ierr = 0;
  for (int p = p0; p <= p1 && !ierr; p++) ierr = kPhases[p].run(&st);
  if (!ierr && st.gravity)
    ierr =
        h->ops->vec.from_host(h->bctx, (size_t)st.dim * h->space->h1_nown, st.gravity, h->gravity);
  if (!ierr) ierr = h->ops->ctx.rebuild(h->bctx, &h->hd);
  if (!ierr) ierr = BlastHybridRebuild(h->hybrid, &h->hd);
  FreeTemporaries(&st);
  BlastCall(BlastSetupAgree(h, ierr, kNoZone));
  h->shape.volume = h->volume0, h->shape.h0 = h->h0;
  h->qdata_current = 0;  // the quadrature data of the old reference are stale
  return 0;
}
