// The schema of blast_gpu input decks: the one table of sections, keys, types, defaults,
// ranges, choices and help texts, and the hooks that resolve keys depending on others.
// Adding a key = adding a row here (and a field to BlastConfig); nothing else.
#define _POSIX_C_SOURCE 200809L  // getcwd()

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blast.h"
#include "deck.h"

// ---------------------------------------------------------------------------------------
// Choices of the enum keys

static const BlastDeckChoice kProblems[] = {{"taylor_green", BLAST_PROBLEM_TAYLOR_GREEN},
                                            {"sedov", BLAST_PROBLEM_SEDOV},
                                            {"sod", BLAST_PROBLEM_SOD},
                                            {"triple_point", BLAST_PROBLEM_TRIPLE_POINT},
                                            {"gresho", BLAST_PROBLEM_GRESHO},
                                            {"riemann12", BLAST_PROBLEM_RIEMANN12},
                                            {"riemann6", BLAST_PROBLEM_RIEMANN6},
                                            {"rayleigh_taylor", BLAST_PROBLEM_RAYLEIGH_TAYLOR},
                                            {"custom", BLAST_PROBLEM_CUSTOM},
                                            {NULL, 0}};
static const BlastDeckChoice kGenerators[] = {
    {"box", BLAST_MESH_GEN_BOX}, {"box_simplex", BLAST_MESH_GEN_BOX_SIMPLEX}, {NULL, 0}};
static const BlastDeckChoice kPartitioners[] = {
    {"metis", BLAST_PARTITION_METIS}, {"block", BLAST_PARTITION_BLOCK}, {NULL, 0}};
static const BlastDeckChoice kOdeSolvers[] = {{"euler", BLAST_ODE_EULER},
                                              {"rk2", BLAST_ODE_RK2},
                                              {"rk3ssp", BLAST_ODE_RK3SSP},
                                              {"rk4", BLAST_ODE_RK4},
                                              {"rk6", BLAST_ODE_RK6},
                                              {"rk2avg", BLAST_ODE_RK2AVG},
                                              {NULL, 0}};
static const BlastDeckChoice kViscosity[] = {
    {"auto", BLAST_VISC_AUTO}, {"on", BLAST_VISC_ON}, {"off", BLAST_VISC_OFF}, {NULL, 0}};
// E2 (global CG on M_E, method spec 6.1) is not implemented: only exact zone inverses.
static const BlastDeckChoice kEnergySolves[] = {{"inverse", BLAST_ENERGY_INVERSE}, {NULL, 0}};
// BLAST_VIZ_XDMF = 1, BLAST_VIZ_VTU = 2 (io/viz.h).
static const BlastDeckChoice kVizFormats[] = {{"xdmf", 1}, {"vtu", 2}, {"both", 3}, {NULL, 0}};
static const BlastDeckChoice kAssembly[] = {{"default", BLAST_ASSEMBLY_DEFAULT},
                                            {"full", BLAST_ASSEMBLY_FULL},
                                            {"partial", BLAST_ASSEMBLY_PARTIAL},
                                            {NULL, 0}};
static const BlastDeckChoice kGpuBackends[] = {
    {"auto", BLAST_GPU_AUTO}, {"cuda", BLAST_GPU_CUDA}, {"cpu", BLAST_GPU_CPU}, {NULL, 0}};
static const BlastDeckChoice kSpmv[] = {{"dd", 0}, {"cusparse", 1}, {NULL, 0}};
static const BlastDeckChoice kGraphs[] = {{"auto", 0}, {"off", 1}, {NULL, 0}};
static const BlastDeckChoice kHaloTransport[] = {{"auto", BLAST_HALO_TRANSPORT_AUTO},
                                                 {"host", BLAST_HALO_TRANSPORT_HOST},
                                                 {"device", BLAST_HALO_TRANSPORT_DEVICE},
                                                 {"nccl", BLAST_HALO_TRANSPORT_NCCL},
                                                 {NULL, 0}};
static const BlastDeckChoice kBalance[] = {{"off", BLAST_BALANCE_OFF},
                                           {"fixed", BLAST_BALANCE_FIXED},
                                           {"auto", BLAST_BALANCE_AUTO},
                                           {NULL, 0}};
static const BlastDeckChoice kAutotune[] = {{"off", BLAST_AUTOTUNE_OFF},
                                            {"online", BLAST_AUTOTUNE_ONLINE},
                                            {"cached", BLAST_AUTOTUNE_CACHED},
                                            {NULL, 0}};

// ---------------------------------------------------------------------------------------
// Resolve hooks

// order_thermo = -1 means one order below the kinematic space.
static int ResolveOrderThermo(BlastConfig *cfg, const BlastDeckResolveInfo *info) {
  if (cfg->order_thermo == -1) cfg->order_thermo = cfg->order_kinematic - 1;
  return 0;
}

// Append `s` to `buf` (capacity n); 0 if it did not fit.
static int Append(char *buf, size_t n, const char *s) {
  size_t len = strlen(buf), add = strlen(s);
  if (len + add + 1 > n) return 0;
  memcpy(buf + len, s, add + 1);
  return 1;
}

static const char *SkipDotSlash(const char *s) {
  while (s[0] == '.' && s[1] == '/') {
    s += 2;
    while (*s == '/') s++;
  }
  return s;
}

// The mesh file is relative to the deck's directory; make it absolute so that it works
// from the current directory and from an echo of the deck saved anywhere. A mesh file
// replaces the generator, whose fields are then zero.
static int ResolveMeshFile(BlastConfig *cfg, const BlastDeckResolveInfo *info) {
  if (!info->is_set) return 0;
  char path[BLAST_PATH_MAX] = "";
  const char *file = cfg->mesh_file;
  int ok = 1;
  if (file[0] != '/') {
    const char *dir = info->deck_dir ? SkipDotSlash(info->deck_dir) : "";
    if (dir[0] != '/') {
      char cwd[BLAST_PATH_MAX];
      BlastCheck(getcwd(cwd, sizeof cwd), BLAST_ERR_IO,
                 "%s: cannot resolve [mesh] file '%s': getcwd failed: %s", info->where, file,
                 strerror(errno));
      ok = Append(path, sizeof path, cwd);
    }
    if (dir[0] && strcmp(dir, ".") != 0) {
      if (path[0] && path[strlen(path) - 1] != '/') ok = ok && Append(path, sizeof path, "/");
      ok = ok && Append(path, sizeof path, dir);
    }
    if (path[0] && path[strlen(path) - 1] != '/') ok = ok && Append(path, sizeof path, "/");
    file = SkipDotSlash(file);
  }
  ok = ok && Append(path, sizeof path, file);
  BlastCheck(ok, BLAST_ERR_INPUT,
             "%s: [mesh] file '%s' taken from directory '%s' gives a path longer than %d "
             "characters",
             info->where, cfg->mesh_file, info->deck_dir ? info->deck_dir : "", BLAST_PATH_MAX - 1);
  memset(cfg->mesh_file, 0, sizeof cfg->mesh_file);
  memcpy(cfg->mesh_file, path, strlen(path));
  cfg->dim = 0;
  memset(cfg->elements, 0, sizeof cfg->elements);
  memset(cfg->size, 0, sizeof cfg->size);
  return 0;
}

// Default output directory: out/<deck file name without extension>.
static int ResolveOutputDir(BlastConfig *cfg, const BlastDeckResolveInfo *info) {
  if (info->is_set) return 0;
  const char *name = info->deck_name ? info->deck_name : "";
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  size_t len = strlen(base);
  const char *dot = strrchr(base, '.');
  if (dot && dot != base) len = (size_t)(dot - base);
  if (len == 0) {
    base = "deck";
    len = 4;
  }
  BlastCheck(len + 5 <= sizeof cfg->output_dir, BLAST_ERR_INPUT,
             "%s: default [output] dir: the deck name '%s' is too long", info->where, name);
  memset(cfg->output_dir, 0, sizeof cfg->output_dir);
  memcpy(cfg->output_dir, "out/", 4);
  memcpy(cfg->output_dir + 4, base, len);
  return 0;
}

// Default checkpoint directory: <output dir>/checkpoints ([output] dir is resolved first:
// it comes earlier in the table).
static int ResolveCheckpointDir(BlastConfig *cfg, const BlastDeckResolveInfo *info) {
  if (cfg->checkpoint_dir[0]) return 0;
  const int n =
      snprintf(cfg->checkpoint_dir, sizeof cfg->checkpoint_dir, "%s/checkpoints", cfg->output_dir);
  BlastCheck(n > 0 && (size_t)n < sizeof cfg->checkpoint_dir, BLAST_ERR_INPUT,
             "%s: [output] dir '%.80s...' (%zu characters) is too long for the default "
             "[checkpoint] dir, <[output] dir>/checkpoints (at most %d characters): shorten "
             "[output] dir, or set [checkpoint] dir",
             info->where, cfg->output_dir, strlen(cfg->output_dir), BLAST_PATH_MAX - 1);
  return 0;
}

// viz_refine = -1 means the kinematic order k.
static int ResolveVizRefine(BlastConfig *cfg, const BlastDeckResolveInfo *info) {
  (void)info;
  if (cfg->viz_refine == -1) cfg->viz_refine = cfg->order_kinematic;
  return 0;
}

// ---------------------------------------------------------------------------------------
// The table

#define F(field)         offsetof(BlastConfig, field)
#define STR_SIZE(field)  sizeof(((BlastConfig *)0)->field)
#define LIST_SIZE(field) (sizeof(((BlastConfig *)0)->field) / sizeof(((BlastConfig *)0)->field[0]))

static const BlastDeckKey kSchema[] = {
    // [problem]
    {.section = "problem",
     .key = "name",
     .type = BLAST_DECK_ENUM,
     .offset = F(problem),
     .required = 1,
     .choices = kProblems,
     .help = "test problem; custom: the problem of the deck's [material.NAME], "
             "[region.NAME], [source.NAME] and [exact] sections"},
    {.section = "problem",
     .key = "blast_energy",
     .type = BLAST_DECK_REAL,
     .offset = F(blast_energy),
     .def = "1.0",
     .bounds = BLAST_DECK_MIN_OPEN,
     .min = 0,
     .help = "Sedov: blast energy E0 (full, symmetric blast)"},
    {.section = "problem",
     .key = "blast_tol",
     .type = BLAST_DECK_REAL,
     .offset = F(blast_tol),
     .def = "1e-12",
     .bounds = BLAST_DECK_MIN_OPEN,
     .min = 0,
     .help = "Sedov: largest allowed distance between the blast point and its nearest vertex"},
    {.section = "problem",
     .key = "gravity",
     .type = BLAST_DECK_REAL_LIST,
     .offset = F(gravity),
     .size = LIST_SIZE(gravity),
     .count_offset = F(ngravity),
     .def_help = "none",
     .help = "custom: body force per unit mass (one value per direction, e.g. 0 -1)"},
    // [mesh]
    {.section = "mesh",
     .key = "file",
     .type = BLAST_DECK_STRING,
     .offset = F(mesh_file),
     .size = STR_SIZE(mesh_file),
     .def_help = "none (use the generator)",
     .conflicts = "generator dim elements size",
     .resolve = ResolveMeshFile,
     .help = "mesh file (MFEM format), relative to the deck's directory"},
    {.section = "mesh",
     .key = "generator",
     .type = BLAST_DECK_ENUM,
     .offset = F(generator),
     .def = "box",
     .choices = kGenerators,
     .help = "mesh generator, used when no file is given: box (quadrilaterals, hexahedra) or "
             "box_simplex (the box split into triangles, tetrahedra)"},
    {.section = "mesh",
     .key = "dim",
     .type = BLAST_DECK_INT,
     .offset = F(dim),
     .def = "2",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 1,
     .max = 3,
     .help = "generator: space dimension"},
    {.section = "mesh",
     .key = "elements",
     .type = BLAST_DECK_INT_LIST,
     .offset = F(elements),
     .size = LIST_SIZE(elements),
     .def = "2",
     .def_help = "2 per direction",
     .bounds = BLAST_DECK_MIN,
     .min = 1,
     .count_key = "dim",
     .help = "generator: zones per direction (dim values)"},
    {.section = "mesh",
     .key = "size",
     .type = BLAST_DECK_REAL_LIST,
     .offset = F(size),
     .size = LIST_SIZE(size),
     .def = "1",
     .def_help = "1 per direction",
     .bounds = BLAST_DECK_MIN_OPEN,
     .min = 0,
     .count_key = "dim",
     .help = "generator: box extents (dim values)"},
    {.section = "mesh",
     .key = "refine_serial",
     .type = BLAST_DECK_INT,
     .offset = F(refine_serial),
     .def = "0",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 0,
     .max = 12,
     .help = "uniform refinements before partitioning"},
    {.section = "mesh",
     .key = "refine_parallel",
     .type = BLAST_DECK_INT,
     .offset = F(refine_parallel),
     .def = "0",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 0,
     .max = 12,
     .help = "uniform refinements after partitioning"},
    {.section = "mesh",
     .key = "partitioner",
     .type = BLAST_DECK_ENUM,
     .offset = F(partitioner),
     .def = "metis",
     .choices = kPartitioners,
     .help = "how zones are distributed over ranks"},
    // [fem]
    {.section = "fem",
     .key = "order_kinematic",
     .type = BLAST_DECK_INT,
     .offset = F(order_kinematic),
     .def = "2",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 1,
     .max = 8,
     .help = "order k of the kinematic (H1, Qk) space"},
    {.section = "fem",
     .key = "order_thermo",
     .type = BLAST_DECK_INT,
     .offset = F(order_thermo),
     .def = "-1",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 0,
     .max = 7,
     .has_special = 1,
     .special = -1,
     .special_help = "order_kinematic-1",
     .resolve = ResolveOrderThermo,
     .help = "order m of the thermodynamic (L2, Qm) space"},
    {.section = "fem",
     .key = "order_quadrature",
     .type = BLAST_DECK_INT,
     .offset = F(order_quadrature),
     .def = "-1",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 1,
     .max = 47,
     .has_special = 1,
     .special = -1,
     .special_help = "the method's default 3k+m-1",
     .help = "order of the zone quadrature rule: order/2+1 Gauss points per direction; at "
             "least 2 max(order_kinematic, order_thermo), or the mass matrices are singular"},
    {.section = "fem",
     .key = "assembly",
     .type = BLAST_DECK_ENUM,
     .offset = F(assembly),
     .def = "default",
     .def_help = "'default': partial in 2D and 3D, full in 1D",
     .choices = kAssembly,
     .help = "how the mass and force operators are applied: full (assembled sparse mass matrix, "
             "zone force matrices F_z = A_z B^T: the paper's path) or partial (matrix-free: "
             "quadrature data only, sum-factorised kernels); recorded in checkpoints, a restart "
             "in the other mode is refused"},
    // [time]
    {.section = "time",
     .key = "t_final",
     .type = BLAST_DECK_REAL,
     .offset = F(t_final),
     .def = "0.6",
     .bounds = BLAST_DECK_MIN_OPEN,
     .min = 0,
     .help = "final time"},
    {.section = "time",
     .key = "cfl",
     .type = BLAST_DECK_REAL,
     .offset = F(cfl),
     .def = "0.5",
     .bounds = BLAST_DECK_MIN_OPEN | BLAST_DECK_MAX,
     .min = 0,
     .max = 10,
     .help = "CFL number of the time step estimate; stable (Sedov 2D and 3D run to the end "
             "with the energy within 5 %, bench/time/cfl_range.py): up to 0.5 with euler, 1 "
             "with rk2, rk3ssp and rk6, 1.5 with rk4, 2 with rk2avg; above that a run is "
             "warned at start-up"},
    {.section = "time",
     .key = "ode_solver",
     .type = BLAST_DECK_ENUM,
     .offset = F(ode_solver),
     .def = "rk4",
     .choices = kOdeSolvers,
     .help = "time integrator"},
    {.section = "time",
     .key = "max_steps",
     .type = BLAST_DECK_INT,
     .offset = F(max_steps),
     .def = "-1",
     .bounds = BLAST_DECK_MIN,
     .min = 0,
     .has_special = 1,
     .special = -1,
     .special_help = "unlimited",
     .help = "step attempts before the last one: the run ends with attempt max_steps + 1 "
             "(as the reference's -ms) or at t_final, whichever comes first; a restart "
             "counts the checkpoint's attempts and is refused if they exceed max_steps"},
    {.section = "time",
     .key = "dt_min",
     .type = BLAST_DECK_REAL,
     .offset = F(dt_min),
     .def = "2.220446049250313e-16",
     .bounds = BLAST_DECK_MIN_OPEN,
     .min = 0,
     .help = "stop with an error (exit 3) when repeated rejections shrink dt below this"},
    {.section = "time",
     .key = "max_energy_change",
     .type = BLAST_DECK_REAL,
     .offset = F(max_energy_change),
     .def = "0.5",
     .bounds = BLAST_DECK_MIN,
     .min = 0,
     .help = "stop with an error (exit 3) when the total energy (internal + kinetic) has "
             "changed by more than this fraction of its initial value, checked on the steps "
             "that print a progress line, every 64 steps and after the last: far above what a "
             "correct run reaches (the method conserves it exactly with rk2avg, to its time "
             "error otherwise; the built-in sources and gravity change it by under 1 %); 0: "
             "never"},
    // [solver]
    {.section = "solver",
     .key = "cg_tol",
     .type = BLAST_DECK_REAL,
     .offset = F(cg_tol),
     .def = "1e-8",
     .bounds = BLAST_DECK_MIN_OPEN | BLAST_DECK_MAX_OPEN,
     .min = 0,
     .max = 1,
     .help = "relative tolerance of the CG solves"},
    {.section = "solver",
     .key = "cg_max_iter",
     .type = BLAST_DECK_INT,
     .offset = F(cg_max_iter),
     .def = "300",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 1,
     .max = 1000000,
     .help = "most CG iterations per solve"},
    {.section = "solver",
     .key = "viscosity",
     .type = BLAST_DECK_ENUM,
     .offset = F(viscosity),
     .def = "auto",
     .choices = kViscosity,
     .help = "artificial viscosity (auto: as the problem needs; custom problems: on)"},
    {.section = "solver",
     .key = "vorticity",
     .type = BLAST_DECK_ENUM,
     .offset = F(vorticity),
     .def = "auto",
     .choices = kViscosity,
     .help = "the vorticity factor |div v| / |grad v| on the linear viscosity term (auto: "
             "rayleigh_taylor only; custom problems: off)"},
    {.section = "solver",
     .key = "energy_solve",
     .type = BLAST_DECK_ENUM,
     .offset = F(energy_solve),
     .def = "inverse",
     .choices = kEnergySolves,
     .help = "energy update: the exact inverses of the zone blocks of the energy mass matrix "
             "(block-diagonal in the L2 space: the only choice)"},
    // [gpu]
    {.section = "gpu",
     .key = "backend",
     .type = BLAST_DECK_ENUM,
     .offset = F(gpu_backend),
     .def = "auto",
     .choices = kGpuBackends,
     .help = "where the kernels run: auto (CUDA when this build has it and a GPU is visible, "
             "else the CPU), cuda (error without a GPU), cpu"},
    {.section = "gpu",
     .key = "spmv",
     .type = BLAST_DECK_ENUM,
     .offset = F(gpu_spmv),
     .def = "dd",
     .choices = kSpmv,
     .help = "sparse products on the GPU: dd (full assembly: the momentum mass matrix in sliced "
             "ELLPACK with double-double rows rounded once, as the CPU backend sums them, and "
             "M_E^{-1} as dense zone blocks) or cusparse (cuSPARSE SpMV with plain double sums "
             "for the assembled mass matrix and M_E^{-1}; with partial assembly, M_E^{-1} only)"},
    {.section = "gpu",
     .key = "graphs",
     .type = BLAST_DECK_ENUM,
     .offset = F(gpu_graphs),
     .def = "auto",
     .choices = kGraphs,
     .help = "CUDA graphs: auto (on one rank the momentum solve runs on the GPU as one graph "
             "with a device-side loop, no host round trip per CG iteration, once the launch "
             "tuning is done; ranks on GPUs of their own whose halos go through CUDA IPC, every "
             "other rank a neighbour, run it resident across the GPUs; the same bits and "
             "iterations as off) or off (the CG loop on the host)"},
    {.section = "gpu",
     .key = "halo_transport",
     .type = BLAST_DECK_ENUM,
     .offset = F(gpu_halo),
     .def = "auto",
     .choices = kHaloTransport,
     .help = "how halo messages travel between ranks: auto (device-to-device through CUDA IPC "
             "when every rank is on one node and each reaches its neighbours' GPU memory: "
             "ranks sharing a GPU, or GPUs with peer access; else through NCCL when every "
             "rank has a GPU of its own and libnccl.so.2 loads; else host), host (copied to "
             "host buffers and sent by MPI), device (CUDA IPC), nccl (NCCL; device and nccl "
             "are an error where impossible); the same bits on every transport"},
    {.section = "gpu",
     .key = "autotune",
     .type = BLAST_DECK_ENUM,
     .offset = F(gpu_autotune),
     .def = "online",
     .choices = kAutotune,
     .help = "launch parameters of the full-assembly kernels (quadrature kernel, force GEMM, "
             "sliced-ELLPACK mass matrix; partial assembly launches fixed shapes): off "
             "(defaults), online (time the candidates during the first steps, keep the fastest, "
             "save them), cached (reuse saved choices, tune if none)"},
    // [balance]
    {.section = "balance",
     .key = "mode",
     .type = BLAST_DECK_ENUM,
     .offset = F(balance_mode),
     .def = "off",
     .choices = kBalance,
     .help = "CPU+GPU hybrid: off (the GPU computes every zone), fixed (the GPU takes "
             "gpu_fraction of each rank's zones, OpenMP threads the rest), auto (the split moves "
             "until both finish together); ignored with the CPU backend"},
    {.section = "balance",
     .key = "gpu_fraction",
     .type = BLAST_DECK_REAL,
     .offset = F(balance_gpu_fraction),
     .def = "0.98",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 0,
     .max = 1,
     .help = "fixed: the GPU's share of the zones; auto: the first split tried (a small CPU "
             "share first is safe: the GPU's part only gets shorter)"},
    {.section = "balance",
     .key = "period",
     .type = BLAST_DECK_INT,
     .offset = F(balance_period),
     .def = "2",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 1,
     .max = 100000,
     .help = "auto: time steps per sampling period (the split changes between periods)"},
    // [output]
    {.section = "output",
     .key = "dir",
     .type = BLAST_DECK_STRING,
     .offset = F(output_dir),
     .size = STR_SIZE(output_dir),
     .def_help = "out/<deck file name without extension>",
     .resolve = ResolveOutputDir,
     .help = "output directory, relative to the current directory"},
    {.section = "output",
     .key = "overwrite",
     .type = BLAST_DECK_BOOL,
     .offset = F(output_overwrite),
     .def = "false",
     .help = "replace the results of an earlier run in [output] dir (false: a directory "
             "holding a summary.json stops the run at start-up, exit code 2)"},
    {.section = "output",
     .key = "print_every",
     .type = BLAST_DECK_INT,
     .offset = F(print_every),
     .def = "5",
     .bounds = BLAST_DECK_MIN,
     .min = 1,
     .help = "print a progress line every N steps"},
    {.section = "output",
     .key = "exact_error",
     .type = BLAST_DECK_BOOL,
     .offset = F(exact_error),
     .def = "false",
     .help = "compute the error against the exact solution at the end"},
    {.section = "output",
     .key = "viz_steps",
     .type = BLAST_DECK_INT,
     .offset = F(viz_steps),
     .def = "0",
     .bounds = BLAST_DECK_MIN,
     .min = 0,
     .help = "visualization dump (in <dir>/viz, viz_format) every N accepted steps, and at the "
             "start and the end (0: not by steps)"},
    {.section = "output",
     .key = "viz_dt",
     .type = BLAST_DECK_REAL,
     .offset = F(viz_dt),
     .def = "0",
     .bounds = BLAST_DECK_MIN,
     .min = 0,
     .help = "visualization dump each time t passes a multiple of viz_dt, and at the start and "
             "the end (0: not by time; else at least t_final * 2^-48)"},
    {.section = "output",
     .key = "viz_refine",
     .type = BLAST_DECK_INT,
     .offset = F(viz_refine),
     .def = "-1",
     .bounds = BLAST_DECK_MIN | BLAST_DECK_MAX,
     .min = 0,
     .max = 64,
     .has_special = 1,
     .special = -1,
     .special_help = "order_kinematic",
     .resolve = ResolveVizRefine,
     .help = "linear sub-cells per direction of each zone in the dumps (0: no dumps)"},
    {.section = "output",
     .key = "viz_format",
     .type = BLAST_DECK_ENUM,
     .offset = F(viz_format),
     .def = "both",
     .choices = kVizFormats,
     .help = "files of the dumps: xdmf (blast.xdmf + viz_NNNNNN.h5: linear sub-cells, for "
             "ParaView and VisIt), vtu (blast.pvd + viz_NNNNNN.pvtu: every zone one VTK "
             "Lagrange cell of order order_kinematic, curved as it is, for ParaView), or both"},
    {.section = "output",
     .key = "history_steps",
     .type = BLAST_DECK_INT,
     .offset = F(history_steps),
     .def = "0",
     .bounds = BLAST_DECK_MIN,
     .min = 0,
     .help = "a line of <dir>/history.csv (time, conserved quantities, smallest |J|, largest "
             "aspect ratio, the [probe.NAME] values) every N accepted steps and at the start "
             "and the end (0: none)"},
    // [checkpoint]
    {.section = "checkpoint",
     .key = "dir",
     .type = BLAST_DECK_STRING,
     .offset = F(checkpoint_dir),
     .size = STR_SIZE(checkpoint_dir),
     .def_help = "<[output] dir>/checkpoints",
     .resolve = ResolveCheckpointDir,
     .help = "checkpoint directory (files chk_<step>.h5), relative to the current directory"},
    {.section = "checkpoint",
     .key = "steps",
     .type = BLAST_DECK_INT,
     .offset = F(checkpoint_steps),
     .def = "0",
     .bounds = BLAST_DECK_MIN,
     .min = 0,
     .help = "write a checkpoint every N accepted steps (0: not by steps)"},
    {.section = "checkpoint",
     .key = "wall_interval",
     .type = BLAST_DECK_REAL,
     .offset = F(checkpoint_wall_interval),
     .def = "0",
     .bounds = BLAST_DECK_MIN,
     .min = 0,
     .help = "write a checkpoint when this many seconds of wall time have passed since the last "
             "one (0: not by time)"},
    {.section = "checkpoint",
     .key = "keep",
     .type = BLAST_DECK_INT,
     .offset = F(checkpoint_keep),
     .def = "2",
     .bounds = BLAST_DECK_MIN,
     .min = 1,
     .help = "checkpoints kept in dir (older ones are removed after each write)"},
    {.section = "checkpoint",
     .key = "at_end",
     .type = BLAST_DECK_BOOL,
     .offset = F(checkpoint_at_end),
     .def = "true",
     .help = "write a checkpoint when the run ends: at t_final, at max_steps, on SIGTERM, "
             "SIGUSR1, SIGINT or SIGHUP, and of the last good state when a numerical failure "
             "stops the run"},
    {.section = "checkpoint",
     .key = "restart",
     .type = BLAST_DECK_STRING,
     .offset = F(checkpoint_restart),
     .size = STR_SIZE(checkpoint_restart),
     .help = "continue the run from this checkpoint file (same as --restart PATH)"},
};

#undef F
#undef STR_SIZE
#undef LIST_SIZE

const BlastDeckKey *BlastDeckSchema(int *nkeys) {
  *nkeys = (int)(sizeof kSchema / sizeof kSchema[0]);
  return kSchema;
}
