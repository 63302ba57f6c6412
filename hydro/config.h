/// @file config.h
/// @brief The resolved run configuration: every deck key as a plain C value.
///
/// Plain old data (no pointers) so that it can be broadcast and checkpointed as bytes.
/// io/deck.c fills it from an INI deck through one schema table (io/deck_schema.c), which
/// is the single place that lists keys, types, defaults, ranges and help texts.
#ifndef BLAST_CONFIG_H
#define BLAST_CONFIG_H

#include "fe.h"  // BlastQuadratureOrder

#ifdef __cplusplus
extern "C" {
#endif

enum { BLAST_PATH_MAX = 1024 };

/// Test problems of the method spec, numbered as the reference's `-p`.
typedef enum {
  BLAST_PROBLEM_TAYLOR_GREEN = 0,
  BLAST_PROBLEM_SEDOV = 1,
  BLAST_PROBLEM_SOD = 2,
  BLAST_PROBLEM_TRIPLE_POINT = 3,
  BLAST_PROBLEM_GRESHO = 4,
  BLAST_PROBLEM_RIEMANN12 = 5,
  BLAST_PROBLEM_RIEMANN6 = 6,
  BLAST_PROBLEM_RAYLEIGH_TAYLOR = 7
} BlastProblemId;

typedef enum { BLAST_MESH_GEN_BOX = 0, BLAST_MESH_GEN_BOX_SIMPLEX = 1 } BlastMeshGenerator;
typedef enum { BLAST_PARTITION_METIS = 0, BLAST_PARTITION_BLOCK = 1 } BlastPartitioner;
/// [gpu] halo_transport: how halo messages travel between ranks (hydro/halo_peer.h).
typedef enum {
  BLAST_HALO_TRANSPORT_AUTO = 0,    ///< device-to-device where possible, else host buffers
  BLAST_HALO_TRANSPORT_HOST = 1,    ///< staged through host buffers and MPI
  BLAST_HALO_TRANSPORT_DEVICE = 2,  ///< device-to-device (CUDA IPC), an error where impossible
  BLAST_HALO_TRANSPORT_NCCL = 3,    ///< device-to-device (NCCL), an error where impossible
} BlastHaloTransport;

/// Time integrators; values follow the reference's `-s` where it has one.
typedef enum {
  BLAST_ODE_EULER = 1,
  BLAST_ODE_RK2 = 2,
  BLAST_ODE_RK3SSP = 3,
  BLAST_ODE_RK4 = 4,
  BLAST_ODE_RK6 = 6,
  BLAST_ODE_RK2AVG = 7
} BlastOdeSolver;

/// The deck name of a time integrator.
static inline const char *BlastOdeName(int ode_solver) {
  switch (ode_solver) {
    case BLAST_ODE_EULER:
      return "euler";
    case BLAST_ODE_RK2:
      return "rk2";
    case BLAST_ODE_RK3SSP:
      return "rk3ssp";
    case BLAST_ODE_RK4:
      return "rk4";
    case BLAST_ODE_RK6:
      return "rk6";
    case BLAST_ODE_RK2AVG:
      return "rk2avg";
    default:
      return "?";
  }
}

/// The largest [time] cfl at which the integrator ran the Sedov problem to its end in 2D
/// and 3D with the total energy within 5 % (bench/time/cfl_range.py; docs/robustness.md):
/// above it a run is warned at start-up, and an unstable one is stopped by the energy
/// check ([time] max_energy_change).
static inline double BlastCflStableMax(int ode_solver) {
  switch (ode_solver) {
    case BLAST_ODE_EULER:
      return 0.5;
    case BLAST_ODE_RK4:
      return 1.5;
    case BLAST_ODE_RK2AVG:
      return 2.0;
    default:  // rk2, rk3ssp, rk6
      return 1.0;
  }
}

typedef enum { BLAST_VISC_AUTO = 0, BLAST_VISC_ON = 1, BLAST_VISC_OFF = 2 } BlastViscosity;

/// How M_E^{-1} is applied (method spec 6.1): E1 exact zone inverses (E2 global CG is
/// not implemented).
typedef enum { BLAST_ENERGY_INVERSE = 0 } BlastEnergySolve;

/// How the momentum mass operator and the forces are applied: `full` is the paper's path
/// (assembled sparse mass matrix, zone force matrices F_z = A_z B^T); `partial` stores
/// quadrature data only and applies both by sum-factorised 1D contractions (matrix-free).
/// DEFAULT resolves per dimension and order (BlastAssemblyResolve), never at run time.
typedef enum {
  BLAST_ASSEMBLY_DEFAULT = -1,
  BLAST_ASSEMBLY_FULL = 0,
  BLAST_ASSEMBLY_PARTIAL = 1
} BlastAssembly;

/// The mode a run uses: `requested` unless it is BLAST_ASSEMBLY_DEFAULT, else the faster
/// one for (dim, k) as measured by bench/peer/vs_laghos.py and bench/gpu (docs/performance.md):
/// partial everywhere but 1D, where the operators are tiny and full assembly is as fast.
static inline int BlastAssemblyResolve(int requested, int dim, int k) {
  (void)k;
  if (requested != BLAST_ASSEMBLY_DEFAULT) return requested;
  return dim >= 2 ? BLAST_ASSEMBLY_PARTIAL : BLAST_ASSEMBLY_FULL;
}
/// The mode on a mesh with (simplices = 1) or without triangles and tetrahedra: default
/// resolves to full on simplices (the partial path's sum-factorised kernels need tensor
/// zones; `partial` there is refused by the setup), else as BlastAssemblyResolve.
static inline int BlastAssemblyResolveMesh(int requested, int dim, int k, int simplices) {
  if (simplices && requested == BLAST_ASSEMBLY_DEFAULT) return BLAST_ASSEMBLY_FULL;
  return BlastAssemblyResolve(requested, dim, k);
}

typedef enum { BLAST_GPU_AUTO = 0, BLAST_GPU_CUDA = 1, BLAST_GPU_CPU = 2 } BlastGpuBackend;
typedef enum {
  BLAST_AUTOTUNE_OFF = 0,
  BLAST_AUTOTUNE_ONLINE = 1,
  BLAST_AUTOTUNE_CACHED = 2
} BlastAutotune;
/// CPU+GPU sharing of the zones (hydro/hybrid.h).
typedef enum {
  BLAST_BALANCE_OFF = 0,
  BLAST_BALANCE_FIXED = 1,
  BLAST_BALANCE_AUTO = 2
} BlastBalanceMode;

// ---------------------------------------------------------------------------------------
// Problems from the deck: the named section families [material.NAME], [region.NAME],
// [source.NAME], [boundary.NAME], [probe.NAME] and [exact] (docs/problem-setup.md).
// Expressions are kept as text with where they were given; base/expr.h compiles them.

enum {
  BLAST_NAME_MAX = 48,    ///< a section's own name, the part after the dot
  BLAST_EXPR_MAX = 512,   ///< an expression's text
  BLAST_WHERE_MAX = 160,  ///< "deck:line" or "command line argument N ('...')"
  BLAST_MAX_MATERIALS = 16,
  BLAST_MAX_REGIONS = 24,
  BLAST_MAX_SOURCES = 8,
  BLAST_MAX_BOUNDARIES = 16,
  BLAST_MAX_PROBES = 16,
  BLAST_MAX_SELECT_ATTRS = 32,  ///< attribute numbers of one selector or boundary section
  /// An attribute's name in a selector or boundary section, with its NUL (the mesh's names,
  /// BLAST_MESH_NAME_MAX of fem/mesh.h, have the same limit)
  BLAST_ATTR_NAME_MAX = 64
};

/// The problem name of a deck that defines its own problem (`[problem] name = custom`).
enum { BLAST_PROBLEM_CUSTOM = 100 };

/// An expression (or a plain number) as the user wrote it: text "" = not given.
typedef struct {
  char text[BLAST_EXPR_MAX];
  char where[BLAST_WHERE_MAX];  ///< where it was set, for messages ("deck.ini:12")
} BlastExprText;

/// [material.NAME]: an equation of state and its parameters (hydro/eos.h).
typedef struct {
  char name[BLAST_NAME_MAX];
  int eos;                      ///< BlastEosKind
  double gamma;                 ///< > 1
  double p_inf;                 ///< stiffened gas: >= 0
  char where[BLAST_WHERE_MAX];  ///< the section's first line
} BlastMaterialSpec;

/// Selector words of [region.NAME] select.
typedef enum {
  BLAST_SELECT_ALL = 0,
  BLAST_SELECT_ATTRIBUTES = 1,  ///< zone attributes attr[0..n)
  BLAST_SELECT_BOX = 2,         ///< v = lower corner, upper corner (2 dim numbers)
  BLAST_SELECT_SPHERE = 3,      ///< v = centre, radius (dim + 1 numbers)
  BLAST_SELECT_HALFSPACE = 4    ///< v = n, d (dim + 1 numbers): n.x <= d
} BlastSelectKind;

/// A region's selector: its word and its numbers (n of them, as given; setup checks the
/// count against the mesh's dimension).
typedef struct {
  int kind;  ///< BlastSelectKind
  int n;
  int attr[BLAST_MAX_SELECT_ATTRS];
  double v[6];
  char where[BLAST_WHERE_MAX];  ///< the select key's line ("" = the section's)
  /// attributes: the name given for attr[i] ("" = given as a number). A named attribute
  /// has attr[i] = 0 until the setup resolves it with the mesh's names.
  char attr_name[BLAST_MAX_SELECT_ATTRS][BLAST_ATTR_NAME_MAX];
} BlastSelector;

/// [region.NAME]: a material and initial data over the zones its selector holds.
typedef struct {
  char name[BLAST_NAME_MAX];
  char material[BLAST_NAME_MAX];  ///< a [material.NAME]
  int material_index;             ///< resolved index into BlastConfig::materials
  BlastSelector select;
  BlastExprText density, pressure, specific_energy;  ///< pressure xor specific_energy
  int nvelocity;                                     ///< velocity components given (0: at rest)
  BlastExprText velocity[3];
  char where[BLAST_WHERE_MAX];
} BlastRegionSpec;

/// [source.NAME]: a point deposit of energy, or a power density expression.
typedef enum { BLAST_SOURCE_POINT = 0, BLAST_SOURCE_POWER = 1 } BlastSourceKind;
typedef struct {
  char name[BLAST_NAME_MAX];
  int kind;       ///< BlastSourceKind
  double energy;  ///< point: energy deposited in this mesh
  int npoint;     ///< point: coordinates given
  double point[3];
  BlastExprText power;  ///< power: energy per unit volume and time, of x, y, z, t
  char where[BLAST_WHERE_MAX];
} BlastSourceSpec;

/// Boundary types of [boundary.NAME] type.
typedef enum {
  BLAST_BOUNDARY_WALL = 0,     ///< zero normal velocity
  BLAST_BOUNDARY_FREE = 1,     ///< no constraint
  BLAST_BOUNDARY_VELOCITY = 2  ///< prescribed velocity (a piston), of t
} BlastBoundaryType;
typedef struct {
  char name[BLAST_NAME_MAX];
  int type;  ///< BlastBoundaryType
  int nattr;
  int attr[BLAST_MAX_SELECT_ATTRS];
  /// The name given for attr[i] ("" = given as a number); attr[i] = 0 until the setup
  /// resolves it with the mesh's boundary names.
  char attr_name[BLAST_MAX_SELECT_ATTRS][BLAST_ATTR_NAME_MAX];
  int nvelocity;  ///< type = velocity: components given
  BlastExprText velocity[3];
  char where[BLAST_WHERE_MAX];
} BlastBoundarySpec;

/// [probe.NAME]: a point whose values history.csv records.
typedef struct {
  char name[BLAST_NAME_MAX];
  int npoint;
  double point[3];
  char where[BLAST_WHERE_MAX];
} BlastProbeSpec;

/// [exact]: the exact solution, expressions of x, y, z, t (text "" = not given).
typedef struct {
  BlastExprText density, pressure;
  int nvelocity;
  BlastExprText velocity[3];
} BlastExactSpec;

typedef struct {
  // [problem]
  int problem;          ///< BlastProblemId
  double blast_energy;  ///< Sedov E0 (full, symmetric blast)
  double blast_tol;     ///< Sedov: max distance of the blast point from a mesh vertex
  int ngravity;         ///< components of [problem] gravity given (0: none)
  double gravity[3];    ///< body force per unit mass
  char gravity_where[BLAST_WHERE_MAX];  ///< where [problem] gravity was given ("" = not)
  // [mesh]
  char mesh_file[BLAST_PATH_MAX];  ///< resolved path ("" = use the generator)
  int generator;                   ///< BlastMeshGenerator
  int dim;                         ///< generator: dimension 1..3
  int elements[3];                 ///< generator: zones per direction
  double size[3];                  ///< generator: box extents
  int refine_serial, refine_parallel;
  int partitioner;  ///< BlastPartitioner
  // [fem]
  int order_kinematic;   ///< k >= 1
  int order_thermo;      ///< m >= 0 (deck default -1 resolves to k-1)
  int order_quadrature;  ///< -1: 3k+m-1 (method spec section 4)
  int assembly;          ///< BlastAssembly ([fem] assembly; -1: BlastAssemblyResolve)
  int mesh_dim;          ///< not a deck key: the mesh's dimension once known (0: not yet)
  // [time]
  double t_final, cfl;
  int ode_solver;            ///< BlastOdeSolver
  int max_steps;             ///< -1: unlimited (counts step attempts, as the reference)
  double dt_min;             ///< stop when dt falls below this (default: machine epsilon)
  double max_energy_change;  ///< stop when |E - E0| > this * |E0| (0: never)
  // [solver]
  double cg_tol;
  int cg_max_iter;
  int viscosity;     ///< BlastViscosity
  int vorticity;     ///< BlastViscosity: the vorticity factor of the viscosity (auto: RT only)
  int energy_solve;  ///< BlastEnergySolve
  // [gpu]
  int gpu_backend;   ///< BlastGpuBackend
  int gpu_autotune;  ///< BlastAutotune
  int gpu_spmv;      ///< 0: double-double kernel, 1: cuSPARSE
  int gpu_graphs;    ///< 0: auto (resident momentum solve where possible), 1: off
  int gpu_halo;      ///< BlastHaloTransport
  // [balance]
  int balance_mode;             ///< BlastBalanceMode
  double balance_gpu_fraction;  ///< fixed: the GPU's share of the zones; auto: the first guess
  int balance_period;           ///< auto: steps per sampling period
  // [output]
  char output_dir[BLAST_PATH_MAX];
  int output_overwrite;  ///< replace an earlier run's results in output_dir (else refuse)
  int print_every;
  int exact_error;    ///< compute errors against the exact solution at the end
  int viz_steps;      ///< visualization dump every N accepted steps (0 = off)
  double viz_dt;      ///< visualization dump every viz_dt of simulated time (0 = off)
  int viz_refine;     ///< sub-cells per direction and zone (0 = no dumps)
  int viz_format;     ///< BLAST_VIZ_XDMF | BLAST_VIZ_VTU (io/viz.h): 1 xdmf, 2 vtu, 3 both
  int history_steps;  ///< a line of history.csv every N accepted steps (0 = none)
  // [checkpoint]
  char checkpoint_dir[BLAST_PATH_MAX];      ///< resolved ("" never: <output_dir>/checkpoints)
  int checkpoint_steps;                     ///< every N accepted steps (0 = off)
  double checkpoint_wall_interval;          ///< every so many seconds of wall time (0 = off)
  int checkpoint_keep;                      ///< checkpoints kept in checkpoint_dir
  int checkpoint_at_end;                    ///< write one when the run ends (also on a fault)
  char checkpoint_restart[BLAST_PATH_MAX];  ///< checkpoint to continue from ("" = none)
  // the named sections, in the order of their first line in the deck
  int nmaterials, nregions, nsources, nboundaries, nprobes;
  BlastMaterialSpec materials[BLAST_MAX_MATERIALS];
  BlastRegionSpec regions[BLAST_MAX_REGIONS];
  BlastSourceSpec sources[BLAST_MAX_SOURCES];
  BlastBoundarySpec boundaries[BLAST_MAX_BOUNDARIES];
  BlastProbeSpec probes[BLAST_MAX_PROBES];
  BlastExactSpec exact;
  // bookkeeping
  char deck_path[BLAST_PATH_MAX];  ///< the deck as given ("" = none)
  // run-time options: not deck keys (never parsed, echoed or checkpointed); app/main.c
  // sets them from the environment after the command line is parsed
  int balance_trace;  ///< BLAST_BALANCE_TRACE=N > 0: the balancer traces each period (BlastLog)
} BlastConfig;

#ifdef __cplusplus
}
#endif

#endif  // BLAST_CONFIG_H
