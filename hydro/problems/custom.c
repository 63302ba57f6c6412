// Problems defined by the deck (`[problem] name = custom`): the materials, the regions with
// their selectors and compiled expressions, and the checks of what the deck gives against
// the mesh's dimension. The setup (hydro_custom.c) evaluates the expressions at the points
// where the built-in problems evaluate their functions.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blast.h"
#include "expr.h"
#include "problems.h"

typedef struct {
  char name[BLAST_NAME_MAX];
  char where[BLAST_WHERE_MAX];  // the section's first line
  int mat;                      // index into the materials
  BlastSelector sel;
  BlastExpr rho, pe;  // density; pressure or specific energy (by_pressure)
  int by_pressure;
  int nv;  // 0 (at rest) or dim
  BlastExpr v[3];
} Region;

struct BlastProblemCustom {
  int nmat, nreg;
  BlastMaterial mats[BLAST_MAX_MATERIALS];
  char matname[BLAST_MAX_MATERIALS][BLAST_NAME_MAX];
  Region reg[BLAST_MAX_REGIONS];
};

static const char *SelectWord(int kind) {
  static const char *w[] = {"all", "attributes", "box", "sphere", "halfspace"};
  return kind >= 0 && kind <= BLAST_SELECT_HALFSPACE ? w[kind] : "?";
}

// Where a region's selector was given: its own line if the deck recorded it, else the
// section's.
static const char *SelectWhere(const BlastRegionSpec *r) {
  return r->select.where[0] ? r->select.where : r->where;
}

// The numbers a selector takes in dimension dim, and what they are.
static int SelectCount(int kind, int dim, const char **what) {
  switch (kind) {
    case BLAST_SELECT_BOX:
      *what = dim == 1 ? "x0 x1" : "the lower corner, then the upper corner";
      return 2 * dim;
    case BLAST_SELECT_SPHERE:
      *what = "the centre, then the radius";
      return dim + 1;
    case BLAST_SELECT_HALFSPACE:
      *what = "the normal n, then d: it selects n.x <= d";
      return dim + 1;
    default:
      *what = "no numbers";
      return 0;
  }
}

static int CheckSelector(const BlastRegionSpec *r, int dim) {
  const BlastSelector *s = &r->select;
  const char *what;
  BlastCheck(s->kind >= BLAST_SELECT_ALL && s->kind <= BLAST_SELECT_HALFSPACE, BLAST_ERR_INPUT,
             "%s: [region.%s] select: unknown selector %d (all, attributes, box, sphere or "
             "halfspace)",
             SelectWhere(r), r->name, s->kind);
  if (s->kind == BLAST_SELECT_ATTRIBUTES) {
    BlastCheck(s->n >= 1 && s->n <= BLAST_MAX_SELECT_ATTRS, BLAST_ERR_INPUT,
               "%s: [region.%s] select: attributes takes 1 to %d zone attribute numbers, got %d",
               SelectWhere(r), r->name, BLAST_MAX_SELECT_ATTRS, s->n);
    return 0;
  }
  const int want = SelectCount(s->kind, dim, &what);
  BlastCheck(s->n == want, BLAST_ERR_INPUT,
             "%s: [region.%s] select: %s takes %d number%s on this %dD mesh (%s), got %d",
             SelectWhere(r), r->name, SelectWord(s->kind), want, want == 1 ? "" : "s", dim, what,
             s->n);
  for (int i = 0; i < s->n; i++)
    BlastCheck(isfinite(s->v[i]), BLAST_ERR_INPUT,
               "%s: [region.%s] select: number %d is %g (not finite)", SelectWhere(r), r->name,
               i + 1, s->v[i]);
  if (s->kind == BLAST_SELECT_SPHERE)
    BlastCheck(s->v[dim] > 0.0, BLAST_ERR_INPUT,
               "%s: [region.%s] select: the sphere's radius is %g (must be > 0)", SelectWhere(r),
               r->name, s->v[dim]);
  if (s->kind == BLAST_SELECT_HALFSPACE) {
    double n2 = 0.0;
    for (int c = 0; c < dim; c++) n2 += s->v[c] * s->v[c];
    BlastCheck(n2 > 0.0, BLAST_ERR_INPUT, "%s: [region.%s] select: the halfspace's normal is zero",
               SelectWhere(r), r->name);
  }
  if (s->kind == BLAST_SELECT_BOX)
    for (int c = 0; c < dim; c++)
      BlastCheck(s->v[c] <= s->v[dim + c], BLAST_ERR_INPUT,
                 "%s: [region.%s] select: the box's lower corner is above its upper corner in "
                 "coordinate %d (%g > %g)",
                 SelectWhere(r), r->name, c + 1, s->v[c], s->v[dim + c]);
  return 0;
}

// Whether selector s holds point x (closed sets); attribute selectors hold the zones (and
// the nodes of the zones) whose attribute is listed: attrs[0..nattr).
static int Holds(const BlastSelector *s, int dim, int nattr, const int *attrs, const double *x) {
  switch (s->kind) {
    case BLAST_SELECT_ALL:
      return 1;
    case BLAST_SELECT_ATTRIBUTES:
      for (int a = 0; a < nattr; a++)
        for (int i = 0; i < s->n; i++)
          if (attrs[a] == s->attr[i]) return 1;
      return 0;
    case BLAST_SELECT_BOX:
      for (int c = 0; c < dim; c++)
        if (!(s->v[c] <= x[c] && x[c] <= s->v[dim + c])) return 0;
      return 1;
    case BLAST_SELECT_SPHERE: {
      double d2 = 0.0;
      for (int c = 0; c < dim; c++) d2 += (x[c] - s->v[c]) * (x[c] - s->v[c]);
      return d2 <= s->v[dim] * s->v[dim];
    }
    case BLAST_SELECT_HALFSPACE: {
      double nx = 0.0;
      for (int c = 0; c < dim; c++) nx += s->v[c] * x[c];
      return nx <= s->v[dim];
    }
    default:
      return 0;
  }
}

static int MaterialFromSpec(const BlastMaterialSpec *m, BlastMaterial *out) {
  BlastCheck(m->eos == BLAST_EOS_IDEAL_GAS || m->eos == BLAST_EOS_STIFFENED_GAS, BLAST_ERR_INPUT,
             "%s: [material.%s] eos: unknown equation of state %d (ideal_gas or stiffened_gas)",
             m->where, m->name, m->eos);
  BlastCheck(m->gamma > 1.0 && isfinite(m->gamma), BLAST_ERR_INPUT,
             "%s: [material.%s] gamma = %g: must be a finite number > 1", m->where, m->name,
             m->gamma);
  if (m->eos == BLAST_EOS_STIFFENED_GAS) {
    BlastCheck(m->p_inf >= 0.0 && isfinite(m->p_inf), BLAST_ERR_INPUT,
               "%s: [material.%s] p_inf = %g: must be a finite number >= 0", m->where, m->name,
               m->p_inf);
    *out = BlastMaterialStiffenedGas(m->gamma, m->p_inf);
  } else {
    *out = BlastMaterialIdealGas(m->gamma);
  }
  return 0;
}

static int Compile(const BlastExprText *t, const char *region, const char *key, BlastExpr *e) {
  char what[BLAST_NAME_MAX + 64];
  snprintf(what, sizeof what, "[region.%s] %s", region, key);
  BlastCall(BlastExprCompile(t->text, t->where, what, e));
  return 0;
}

static int CompileRegion(const BlastConfig *cfg, const BlastProblemCustom *c, int i, int dim,
                         Region *g) {
  const BlastRegionSpec *r = &cfg->regions[i];
  snprintf(g->name, sizeof g->name, "%s", r->name);
  snprintf(g->where, sizeof g->where, "%s", r->where);
  g->mat = -1;
  for (int m = 0; m < c->nmat; m++)
    if (!strcmp(r->material, c->matname[m])) g->mat = m;
  BlastCheck(r->material[0], BLAST_ERR_INPUT, "%s: [region.%s]: the key material is missing",
             r->where, r->name);
  BlastCheck(g->mat >= 0, BLAST_ERR_INPUT,
             "%s: [region.%s] material = %s: no section [material.%s] in the deck", r->where,
             r->name, r->material, r->material);
  BlastCall(CheckSelector(r, dim));
  g->sel = r->select;
  snprintf(g->sel.where, sizeof g->sel.where, "%s", SelectWhere(r));
  BlastCheck(r->density.text[0], BLAST_ERR_INPUT, "%s: [region.%s]: the key density is missing",
             r->where, r->name);
  const int has_p = r->pressure.text[0] != 0, has_e = r->specific_energy.text[0] != 0;
  BlastCheck(has_p != has_e, BLAST_ERR_INPUT,
             "%s: [region.%s]: give pressure or specific_energy (one of them), not %s",
             has_p ? r->specific_energy.where : r->where, r->name, has_p ? "both" : "neither");
  BlastCall(Compile(&r->density, r->name, "density", &g->rho));
  g->by_pressure = has_p;
  BlastCall(Compile(has_p ? &r->pressure : &r->specific_energy, r->name,
                    has_p ? "pressure" : "specific_energy", &g->pe));
  BlastCheck(r->nvelocity == 0 || r->nvelocity == dim, BLAST_ERR_INPUT,
             "%s: [region.%s] velocity: %d value%s on a %dD mesh (give %d, separated by spaces)",
             r->velocity[0].where[0] ? r->velocity[0].where : r->where, r->name, r->nvelocity,
             r->nvelocity == 1 ? "" : "s", dim, dim);
  g->nv = r->nvelocity;
  for (int d = 0; d < g->nv; d++)
    BlastCall(Compile(&r->velocity[d], r->name, "velocity", &g->v[d]));
  return 0;
}

static void FreeCustom(BlastProblemCustom *c) {
  for (int i = 0; i < BLAST_MAX_REGIONS; i++) {
    BlastExprDestroy(&c->reg[i].rho);
    BlastExprDestroy(&c->reg[i].pe);
    for (int d = 0; d < 3; d++) BlastExprDestroy(&c->reg[i].v[d]);
  }
  free(c);
}

static int CreateCustom(const BlastConfig *cfg, int dim, BlastProblemCustom *c) {
  const char *deck = cfg->deck_path[0] ? cfg->deck_path : "the deck";
  BlastCheck(cfg->nmaterials >= 1 && cfg->nmaterials <= BLAST_MAX_MATERIALS, BLAST_ERR_INPUT,
             "%s: [problem] name = custom needs at least one [material.NAME] section (at most "
             "%d; got %d)",
             deck, BLAST_MAX_MATERIALS, cfg->nmaterials);
  BlastCheck(cfg->nregions >= 1 && cfg->nregions <= BLAST_MAX_REGIONS, BLAST_ERR_INPUT,
             "%s: [problem] name = custom needs at least one [region.NAME] section (at most %d; "
             "got %d)",
             deck, BLAST_MAX_REGIONS, cfg->nregions);
  c->nmat = cfg->nmaterials;
  for (int m = 0; m < c->nmat; m++) {
    BlastCall(MaterialFromSpec(&cfg->materials[m], &c->mats[m]));
    snprintf(c->matname[m], sizeof c->matname[m], "%s", cfg->materials[m].name);
  }
  c->nreg = cfg->nregions;
  for (int i = 0; i < c->nreg; i++) BlastCall(CompileRegion(cfg, c, i, dim, &c->reg[i]));
  return 0;
}

// Where [problem] gravity was given: its line if the deck recorded it, else the deck.
static const char *GravityWhere(const BlastConfig *cfg) {
  return cfg->gravity_where[0] ? cfg->gravity_where
         : cfg->deck_path[0]   ? cfg->deck_path
                               : "the deck";
}

int BlastProblemCreate(const BlastConfig *cfg, int dim, BlastProblem *p) {
  memset(p, 0, sizeof *p);
  if (cfg->problem != BLAST_PROBLEM_CUSTOM) {
    BlastCall(BlastProblemSetup(cfg->problem, dim, cfg->viscosity, p));
    BlastCheck(cfg->ngravity == 0, BLAST_ERR_INPUT,
               "%s: [problem] gravity is for name = custom only (problem '%s' has its own "
               "forces)",
               GravityWhere(cfg), BlastProblemName(cfg->problem));
  } else {
    BlastCheck(dim >= 1 && dim <= 3, BLAST_ERR_INPUT, "dimension %d", dim);
    p->id = BLAST_PROBLEM_CUSTOM, p->dim = dim;
    p->visc = cfg->viscosity != BLAST_VISC_OFF;
    BlastCheck(cfg->ngravity == 0 || cfg->ngravity == dim, BLAST_ERR_INPUT,
               "%s: [problem] gravity: %d value%s on a %dD mesh (give %d, one per coordinate)",
               GravityWhere(cfg), cfg->ngravity, cfg->ngravity == 1 ? "" : "s", dim, dim);
    for (int c = 0; c < cfg->ngravity; c++) {
      BlastCheck(isfinite(cfg->gravity[c]), BLAST_ERR_INPUT,
                 "%s: [problem] gravity: component %d is %g (not finite)", GravityWhere(cfg), c + 1,
                 cfg->gravity[c]);
      p->g[c] = cfg->gravity[c];
      if (p->g[c] != 0.0) p->gravity = 1;
    }
    BlastProblemCustom *c = calloc(1, sizeof *c);
    BlastCheck(c, BLAST_ERR_MEM, "out of memory (custom problem, %zu bytes)", sizeof *c);
    const int ierr = CreateCustom(cfg, dim, c);
    if (ierr) {
      FreeCustom(c);
      BlastCall(ierr);
    }
    p->custom = c;
  }
  if (cfg->vorticity == BLAST_VISC_ON) p->vort = 1;
  if (cfg->vorticity == BLAST_VISC_OFF) p->vort = 0;
  return 0;
}

void BlastProblemDestroy(BlastProblem *p) {
  if (p && p->custom) FreeCustom(p->custom);
  if (p) p->custom = NULL;
}

int BlastProblemCustomMaterials(const BlastProblem *p, BlastMaterial *mats) {
  memcpy(mats, p->custom->mats, sizeof(BlastMaterial) * p->custom->nmat);
  return p->custom->nmat;
}

const char *BlastProblemCustomMaterialName(const BlastProblem *p, int i) {
  return i >= 0 && i < p->custom->nmat ? p->custom->matname[i] : "unknown";
}

int BlastProblemNumRegions(const BlastProblem *p) {
  return p->custom ? p->custom->nreg : 0;
}

int BlastProblemRegionAt(const BlastProblem *p, int attr, const double *x) {
  return BlastProblemNodeRegion(p, 1, &attr, x);
}

int BlastProblemNodeRegion(const BlastProblem *p, int nattr, const int *attrs, const double *x) {
  if (!p->custom) return -1;
  for (int r = p->custom->nreg - 1; r >= 0; r--)
    if (Holds(&p->custom->reg[r].sel, p->dim, nattr, attrs, x)) return r;
  return -1;
}

int BlastProblemRegionSelects(const BlastProblem *p, int r, int attr, const double *x) {
  return Holds(&p->custom->reg[r].sel, p->dim, 1, &attr, x);
}

const char *BlastProblemRegionSelectWhere(const BlastProblem *p, int r) {
  return p->custom->reg[r].sel.where[0] ? p->custom->reg[r].sel.where : p->custom->reg[r].where;
}

const char *BlastProblemRegionVelocityWhere(const BlastProblem *p, int r, int c, char *buf,
                                            size_t n) {
  const Region *g = &p->custom->reg[r];
  if (c < g->nv)
    snprintf(buf, n, "%s", BlastExprWhere(g->v[c]));
  else
    snprintf(buf, n, "%s", g->where);
  return buf;
}

int BlastProblemRegionMaterial(const BlastProblem *p, int r) {
  return p->custom->reg[r].mat;
}

const char *BlastProblemRegionName(const BlastProblem *p, int r) {
  return p->custom->reg[r].name;
}

int BlastProblemRegionRhoE(const BlastProblem *p, int r, size_t n, const double *x, double *rho,
                           double *e) {
  const Region *g = &p->custom->reg[r];
  BlastCall(BlastExprEvalMany(g->rho, p->dim, n, x, 0.0, rho));
  if (!e) return 0;
  BlastCall(BlastExprEvalMany(g->pe, p->dim, n, x, 0.0, e));
  if (g->by_pressure) {
    const BlastMaterial *m = &p->custom->mats[g->mat];
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) e[i] = BlastEosSpecificEnergy(m, rho[i], e[i]);
  }
  return 0;
}

int BlastProblemRegionV(const BlastProblem *p, int r, size_t n, const double *x, double *v) {
  const Region *g = &p->custom->reg[r];
  for (int c = 0; c < p->dim; c++) {
    if (g->nv)
      BlastCall(BlastExprEvalMany(g->v[c], p->dim, n, x, 0.0, &v[(size_t)c * n]));
    else
      for (size_t i = 0; i < n; i++) v[(size_t)c * n + i] = 0.0;
  }
  return 0;
}

double BlastProblemRegionRho0(const BlastProblem *p, int r, const double *x) {
  if (!p->custom || r < 0 || r >= p->custom->nreg) return NAN;
  double v;
#pragma omp critical(blast_problem_custom_eval)
  v = BlastExprEval(p->custom->reg[r].rho, p->dim, x, 0.0);
  return v;
}

const char *BlastProblemRegionKey(const BlastProblem *p, int r, int energy, char *buf, size_t n) {
  const Region *g = &p->custom->reg[r];
  const BlastExpr e = energy ? g->pe : g->rho;
  snprintf(buf, n, "%s: %s", BlastExprWhere(e), BlastExprWhat(e));
  return buf;
}
