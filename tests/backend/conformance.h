// Internal header of the backend conformance test (tests/backend/): the environment the
// cases run in, the case table, and the helpers every case uses (data movement through a
// backend's own entries, bit comparisons, one report line per check).
#ifndef BLAST_TEST_BACKEND_CONFORMANCE_H
#define BLAST_TEST_BACKEND_CONFORMANCE_H

#include <stddef.h>

#include "backend.h"
#include "hydro.h"
#include "mesh.h"

/// A backend and one of its contexts.
typedef struct {
  const BlastBackendOps *o;
  void *ctx;
} Bk;

/// One problem: a real solver's constant data (hd, with variations) and a synthetic copy
/// (hdm) with ghost columns, interior/boundary rows and halo lists for the mass and halo
/// entries (one rank has none of these of its own).
typedef struct {
  char label[64];
  int dim, k, n;
  BlastMesh mesh;
  BlastHydro h;
  BlastHydroData hd, hdm;
  // arrays behind hdm (owned)
  int *m_col, *m_rows, *hl_send, *hl_recv, *hc_send, *hc_recv;
  int *m_edof, *m_zones;  // partial assembly: hdm's zone dofs (some ghosts) and zone order
  double *m_x0;           // hdm's initial positions, padded for the ghost dofs its zones read
  int *zone_mat;          // two-material variant: the zones' materials (alternating)
  BlastMaterial mats[2];  // two-material variant: an ideal gas (air) and a stiffened gas
  int pa;                 // hd.assembly == BLAST_ASSEMBLY_PARTIAL
  size_t nx;              // dim * h1_nl: an H1 field
  size_t ne;              // nz * l2_nd: an L2 field
  double *x0;             // [nx] the mesh positions (host)
  double hz;              // a length scale of the zones (1 / (n k))
  int *s_int[3];          // simplex sizes: hd's zone dofs and transpose map (owned)
  double *s_dbl[7];       // simplex sizes: hd's tables (owned)
} Problem;

/// Replace a full-assembly problem's zone tables (built on a uniform box) by synthetic
/// ones of nd H1 nodes (dim + 2 <= nd <= its own), ne L2 functions and nqp points per
/// zone, the sizes of triangles and tetrahedra (simplex_sizes.c).
int ProblemSimplexSizes(Problem *p, int nd, int ne, int nqp);

/// Where the cases run. CPU part (gpu == 0): the backend under test is the CPU backend
/// and the reference is computed in the test (or is the CPU backend itself for the
/// repeatability, thread and split checks). GPU part (gpu == 1): the backend under test
/// is the CUDA backend and the reference is the CPU backend on the same inputs.
typedef struct {
  int gpu;
  const BlastBackendOps *B;  // backend under test
  const char *bname;         // its name in the report lines
  Problem *P;
  int np;
  Bk *cpu, *cpum;     // [np] CPU contexts on hd and hdm
  Bk *dev, *devm;     // [np] contexts of the backend under test on hd and hdm
  const char *entry;  // the entry whose case is running
  int lines;          // report lines of this entry
  int passes, failures;
} Env;

typedef void (*CaseFn)(Env *E);

/// The cases of each group (one function per entry of BLAST_BACKEND_OPERATIONS).
void CaseCtxCreate(Env *E);
void CaseCtxDestroy(Env *E);
void CaseCtxRebuild(Env *E);
void CaseCtxSync(Env *E);
void CaseVecAlloc(Env *E);
void CaseVecFree(Env *E);
void CaseVecHostAlloc(Env *E);
void CaseVecHostFree(Env *E);
void CaseVecToHost(Env *E);
void CaseVecFromHost(Env *E);
void CaseVecCopy(Env *E);
void CaseVecSet(Env *E);
void CaseVecAxpby(Env *E);
void CaseVecWaxpby(Env *E);
void CaseVecDot(Env *E);
void CaseZoneQDataForce(Env *E);
void CaseZoneMomentumRhs(Env *E);
void CaseZoneEnergyRate(Env *E);
void CaseZoneEnergies(Env *E);
void CaseMassMult(Env *E);
void CaseMassJacobi(Env *E);
void CaseMassZeroEssential(Env *E);
void CaseMassProject(Env *E);      // cases_project.c
void CaseMassWallNormals(Env *E);  // cases_project.c
void CaseMassAxpbyMulti(Env *E);
void CaseMassDotMulti(Env *E);
void CaseMassMultDot(Env *E);
void CaseMassCgUpdate(Env *E);
void CaseMassCgAdvance(Env *E);
void CaseMassPcg(Env *E);  // cases_pcg.c
void CaseHaloPack(Env *E);
void CaseHaloUnpack(Env *E);
void CaseHaloUnpackDD(Env *E);
void CaseHaloPeerExport(Env *E);
void CaseHaloPeerImport(Env *E);
void CaseHaloPeerSend(Env *E);
void CaseHaloPeerSent(Env *E);
void CaseHaloPeerRecv(Env *E);
void CaseHaloNcclProbe(Env *E);  // cases_halo_device.c
void CaseHaloNcclInit(Env *E);
void CaseHaloNcclBegin(Env *E);
void CaseHaloNcclEnd(Env *E);
void CaseSplitQDataBegin(Env *E);
void CaseSplitQDataEnd(Env *E);
void CaseSplitGather(Env *E);
void CaseSplitMomentumRhs(Env *E);
void CaseSplitEnergyRate(Env *E);
void CaseSplitHostZones(Env *E);

// ---- helpers (conformance_main.c) ----

/// Abort the test (exit 1) when a backend call fails: prints the entry and the error.
void Fatal(const Env *E, const char *call, int err);
#define CK(E, call)                  \
  do {                               \
    int ck_ = (call);                \
    if (ck_) Fatal((E), #call, ck_); \
  } while (0)

/// Deterministic random numbers (xorshift64*): uniform in [-1, 1), and the same times
/// 2^k with k uniform in [-lo, hi] (mixed magnitudes).
typedef struct {
  unsigned long long s;
} Rng;
Rng RngSeed(unsigned long long seed);
double RandU(Rng *r);
double RandMixed(Rng *r, int lo, int hi);
int RandInt(Rng *r, int n);  ///< uniform in [0, n)
void FillU(Rng *r, double *a, size_t n);
void FillMixed(Rng *r, double *a, size_t n);
/// Host buffer of n doubles (abort on failure); HostFree releases it.
double *HostNew(size_t n);
void HostFree(double **p);

/// Backend memory with the host contents `src` (n doubles; NULL: alloc only), and its
/// contents back in host memory.
double *Up(const Env *E, Bk b, size_t n, const double *src);
void Down(const Env *E, Bk b, size_t n, const double *dev, double *host);
void Drop(const Env *E, Bk b, double **p);

/// The OpenMP threads of the CPU backend for the next calls (1 or 2; the contexts were
/// created with 2, so that their workspaces hold both).
void Threads(int n);

/// Entries of out and ref that differ in any bit (a NaN matches any NaN: payloads are not
/// arithmetic), and the largest
/// relative difference |out - ref| / max(|ref|, DBL_MIN) among them.
typedef struct {
  size_t n, ndiff, first;
  double maxrel;
} Diff;
Diff CompareBits(const double *out, const double *ref, size_t n);

/// One problem's data for a case (cases_mass_halo.c): the solver's own (syn = 0) or the
/// synthetic copy hdm (syn = 1), with the contexts of both backends on it.
typedef struct {
  const BlastHydroData *hd;
  Bk dev, cpu;
  char label[96];
} Data;
Data DataOf(const Env *E, int p, int syn);
/// The halo operations and their reference from the index lists (cases_mass_halo.c): the
/// x of a halo call (ncomp or 2 ndd components `stride` apart) and the buffer.
typedef enum { H_PACK, H_UNPACK, H_UNPACK_DD } HaloOp;
size_t StrideOf(const BlastHydroData *hd, int which);
void RefHalo(const BlastHaloIndex *hi, HaloOp op, int rev, int nc, size_t stride, size_t nx,
             size_t nbuf, const double *x, const double *buf, double *out);
/// Double-double pairs (hi at stride 0, lo at `lo_off`), n of them: hi bit for bit, lo
/// within `tol` absolute (the contract is the pair's rounded value; the low parts of two
/// correct implementations differ by their summation errors).
Diff CompareDD(const double *out, const double *ref, size_t n, size_t lo_off, const double *tol,
               int *lo_ok);

/// The double-double dot reference (one chain in index order, rounded once) and the bound
/// on the difference of two such pairs' low parts, 4 n^2 u^2 sum |x_i y_i| (cases_vec.c).
void DotReference(size_t n, const double *x, const double *y, double *pair, double *tol);

/// Outputs of the zone entries on one state: qdata_force, momentum_rhs (2 nx), energy_rate
/// (ne), energies (cases_zone.c). ZoneRun allocates rhs and de; ZoneFree releases them.
typedef struct {
  BlastQDataResult res;
  double *rhs, *de;
  double ie, ke;
  int queued_same;       // ten more updates on the same state, results by ctx.sync: = res
  BlastQDataResult odd;  // the first that is not
} ZoneOut;
void ZoneRun(Env *E, Bk b, const Problem *P, const double *x, const double *v, const double *e,
             ZoneOut *o);
void ZoneFree(ZoneOut *o);
/// The result as 3 doubles (dt_est, tangled zone, det) for CompareBits.
void ResultBits(const BlastQDataResult *r, double *out3);
/// E-vectors of the H1 field u for zones [z0, z1) (index loops over h1_edof).
void GatherE(const BlastHydroData *hd, int z0, int z1, const double *u, double *uE);

/// Free the runs the zone cases and the split cases share (cases_zone.c, cases_split.c).
void ZoneCacheFree(void);
void SplitCacheFree(void);

/// One report line: "<PASS|FAIL> <backend> <entry> <what> maxdiff ..."; exceptions of the
/// GPU part (a named entry with a bound) are applied and printed here. Returns 1 if pass.
int Report(Env *E, const char *what, Diff d);
/// A check without a numerical difference.
int ReportOk(Env *E, const char *what, int ok, const char *detail);

/// The perturbed state every zone case uses: x near the mesh (or with one node thrown far
/// for `tangled`), random v, positive random e (host arrays [nx], [nx], [ne]).
void ProblemState(const Problem *p, int variant, double *x, double *v, double *e);
enum { STATE_SMOOTH = 0, STATE_TANGLED = 1, STATE_VARIANTS = 2 };
const char *StateName(int variant);

#endif  // BLAST_TEST_BACKEND_CONFORMANCE_H
