// Banner, progress lines, final summary and the JSON run summary (see report.h).
#define _POSIX_C_SOURCE 200809L  // fileno, fsync
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blast_git.h"  // BLAST_GIT, generated at build time (cmake/git_version.cmake)
#include "blast_mpi.h"
#include "probe.h"
#include "problems/problems.h"
#include "safefile.h"

// One material: "gas: ideal_gas, gamma 1.4" (", p_inf 6e+08" for a stiffened gas).
static void PrintMaterial(FILE *out, const BlastProblem *prob, const BlastMaterial *m, int i) {
  fprintf(out, "%d %s: %s, gamma %.10g", i, BlastProblemMaterialName(prob, i),
          BlastEosKindName(m->kind), m->gamma);
  if (m->kind == BLAST_EOS_STIFFENED_GAS) fprintf(out, ", p_inf %.10g", m->p_inf);
  fprintf(out, "\n");
}

void BlastReportBanner(FILE *out, const BlastConfig *cfg, BlastHydro h, const BlastHydroShape *s,
                       const char *backend, double dt0, double e_norm0, double energy0) {
  fprintf(out, "\n");
  fprintf(out, "  problem        %s (%dD)%s\n", BlastProblemName(cfg->problem), s->dim,
          cfg->deck_path[0] ? "" : "");
  fprintf(out, "  deck           %s\n", cfg->deck_path[0] ? cfg->deck_path : "(none)");
  int nmat;
  const BlastMaterial *mats = BlastHydroGetMaterials(h, &nmat);
  for (int i = 0; i < nmat; i++) {
    fprintf(out, "  %s", i ? "               " : "materials      ");
    PrintMaterial(out, BlastHydroGetProblem(h), &mats[i], i);
  }
  fprintf(out, "  mesh           %s, refined %d serial + %d parallel\n",
          cfg->mesh_file[0] ? cfg->mesh_file : "generated box", cfg->refine_serial,
          cfg->refine_parallel);
  fprintf(out, "  discretization Q%d-Q%d, %d quadrature points per zone, %s assembly, %s, cfl %g\n",
          s->k, s->m, s->nqp, s->assembly == BLAST_ASSEMBLY_PARTIAL ? "partial" : "full",
          BlastOdeName(cfg->ode_solver), cfg->cfl);
  fprintf(out, "  size           %lld zones, %lld H1 dofs, %lld L2 dofs\n", (long long)s->zones,
          (long long)s->h1_dofs, (long long)s->l2_dofs);
  fprintf(out, "  parallel       %d MPI ranks x %d OpenMP threads, backend %s\n", s->ranks,
          s->threads, backend);
  if (s->ranks > 1)
    fprintf(out,
            "  partition      %s: %lld-%lld zones per rank (imbalance %.3f), edge cut %lld, "
            "%lld shared dofs, %d-%d neighbours per rank, halos %s\n",
            s->partitioner == BLAST_PARTITION_BLOCK ? "block" : "METIS", (long long)s->zones_min,
            (long long)s->zones_max, s->imbalance, (long long)s->edge_cut,
            (long long)s->shared_dofs, s->neighbors_min, s->neighbors_max,
            s->halo_transport == BLAST_HALO_TRANSPORT_DEVICE ? "device-to-device (CUDA IPC)"
            : s->halo_transport == BLAST_HALO_TRANSPORT_NCCL ? "device-to-device (NCCL)"
                                                             : "through the host");
  if (cfg->balance_mode == BLAST_BALANCE_FIXED)
    fprintf(out,
            "  CPU+GPU split  fixed: the GPU computes %.1f%% of each rank's zones, OpenMP threads "
            "the rest\n",
            100.0 * cfg->balance_gpu_fraction);
  else if (cfg->balance_mode == BLAST_BALANCE_AUTO)
    fprintf(out,
            "  CPU+GPU split  auto: first share %.1f%% on the GPU, rebalanced every %d steps\n",
            100.0 * cfg->balance_gpu_fraction, cfg->balance_period);
  fprintf(out, "  run            t_final %g, cg_tol %g, cg_max_iter %d\n", cfg->t_final,
          cfg->cg_tol, cfg->cg_max_iter);
  fprintf(out, "  initial        dt %.6e, |e| %.10e, total energy %.10e\n\n", dt0, e_norm0,
          energy0);
  fflush(out);
}

int BlastReportStep(void *progress, const BlastStepInfo *info) {
  BlastProgress *p = progress;
  if (info->rejected) {
    p->rejected++;
    if (!p->rank)
      fprintf(p->out, "Repeating step %d (attempt %d): dt_est %.6e < dt %.6e, new dt %.6e\n",
              info->step, info->attempts, info->dt_est, info->dt_used, info->dt);
    return 0;
  }
  if (!info->report) return 0;
  double en, ie, ke;
  BlastCall(BlastHydroNorms(p->hydro, &en, &ie, &ke));
  BlastHydroHistory hv;
  BlastCall(BlastHydroHistoryValues(p->hydro, NULL, NULL, &hv));
  if (p->rank) return 0;
  const double wall = MPI_Wtime() - p->wall0;
  // The time advanced by this run (a restart starts at its checkpoint's t).
  const double done = info->t - p->t_start;
  const double left = done > 0 ? wall * (p->t_final - info->t) / done : 0.0;
  const double dE = (ie + ke - p->energy0) / (p->energy0 != 0.0 ? fabs(p->energy0) : 1.0);
  fprintf(p->out,
          "step %5d, t = %.4f, dt = %.6f, |e| = %.10e, dE/E0 = %+.2e, min |J|/|J0| = %.3e, "
          "wall %.2f s, left ~%.1f s",
          info->step, info->t, info->dt, info->e_norm, dE, hv.min_jratio, wall, left);
  BlastBalanceInfo bal;
  BlastHydroGetBalance(p->hydro, &bal);
  if (bal.active)
    fprintf(p->out, ", gpu %.1f%% (%s)", 100.0 * bal.gpu_fraction,
            BlastBalancePhaseName(bal.phase));
  fprintf(p->out, "\n");
  fflush(p->out);
  return 0;
}

int BlastReportCollect(MPI_Comm comm, BlastHydro h, double wall, double setup_wall,
                       const char *backend, BlastRunSummary *sum) {
  memset(sum, 0, sizeof *sum);
  const BlastHydroTimers *tm = BlastHydroGetTimers(h);
  sum->shape = BlastHydroGetShape(h);
  sum->prob = BlastHydroGetProblem(h);
  sum->mats = BlastHydroGetMaterials(h, &sum->nmat);
  sum->backend = backend;
  sum->wall = wall, sum->setup_wall = setup_wall;
  BlastHydroGetProgress(h, &sum->t, &sum->dt, &sum->steps, &sum->attempts);
  sum->rejected = sum->attempts - sum->steps;
  {  // the setup's phases, max over ranks (the slowest rank sets the pace)
    enum { kMax = (int)(sizeof sum->setup_phase / sizeof *sum->setup_phase) };
    const int n = BlastHydroSetupPhaseCount();
    sum->setup_phases = n < kMax ? n : kMax;
    double loc[3 * kMax], mx[3 * kMax];
    const int n3 = 3 * sum->setup_phases;
    for (int p = 0; p < sum->setup_phases; p++) {
      loc[3 * p] = BlastHydroSetupPhaseSeconds(h, p);
      loc[3 * p + 1] = BlastHydroSetupPhaseCpuSeconds(h, p);
      loc[3 * p + 2] = BlastHydroSetupPhasePeakRss(h, p);
    }
    BlastCallMPI(MPI_Allreduce(loc, mx, n3, MPI_DOUBLE, MPI_MAX, comm));
    for (int p = 0; p < sum->setup_phases; p++) {
      sum->setup_phase[p] = mx[3 * p];
      sum->setup_phase_cpu[p] = mx[3 * p + 1];
      sum->setup_phase_rss[p] = mx[3 * p + 2];
    }
  }
  BlastCall(BlastHydroNorms(h, &sum->e_norm, &sum->ie, &sum->ke));
  sum->energy = sum->ie + sum->ke;
  BlastHydroGetInitial(h, NULL, &sum->energy0);
  double loc[5] = {tm->qdata, tm->force, tm->cg, tm->step, tm->cg_wait}, mx[5], mn[5];
  BlastCallMPI(MPI_Allreduce(loc, mx, 5, MPI_DOUBLE, MPI_MAX, comm));
  BlastCallMPI(MPI_Allreduce(loc, mn, 5, MPI_DOUBLE, MPI_MIN, comm));
  sum->t_qdata = mx[0], sum->t_force = mx[1], sum->t_cg = mx[2], sum->t_step = mx[3];
  sum->t_qdata_min = mn[0], sum->t_force_min = mn[1], sum->t_cg_min = mn[2],
  sum->t_step_min = mn[3];
  sum->t_cg_wait = mx[4], sum->t_cg_wait_min = mn[4];
  // Every rank takes part in each CG iteration: the counts agree; updates are summed.
  long long cnt[2] = {(long long)tm->qdata_zone_updates, (long long)tm->cg_unconverged}, tot[2];
  BlastCallMPI(MPI_Allreduce(cnt, tot, 2, MPI_LONG_LONG, MPI_SUM, comm));
  sum->qdata_zone_updates = tot[0];
  sum->cg_unconverged = (long long)tm->cg_unconverged;
  sum->cg_iter = (long long)tm->cg_iter;
  sum->cg_solves = (long long)tm->cg_solves, sum->cg_solves_resident = (long long)tm->cg_resident;
  // Figures of merit exactly as the reference defines them: CG iterations of the
  // per-component solves divided by dim, "steps" = step attempts.
  const double h1 = (double)sum->shape.h1_dofs, l2 = (double)sum->shape.l2_dofs;
  const double iters = (double)sum->cg_iter / sum->shape.dim;
  const double T1 = sum->t_cg, T2 = sum->t_force, T3 = sum->t_qdata, T4 = T1 + T2 + T3;
  sum->fom_cg = T1 > 0 ? 1e-6 * h1 * iters / T1 : 0.0;
  sum->fom_force = T2 > 0 ? 1e-6 * sum->attempts * (h1 + l2) / T2 : 0.0;
  sum->fom_qdata = T3 > 0 ? 1e-6 * (double)sum->qdata_zone_updates * sum->shape.nqp / T3 : 0.0;
  sum->fom_total =
      T4 > 0 ? (sum->fom_cg * T1 + sum->fom_force * T2 + sum->fom_qdata * T3) / T4 : 0.0;
  sum->fom0 = T4 > 0 ? 1e-6 * sum->attempts * (h1 + l2) / T4 : 0.0;
  sum->sedov_density_l2 = NAN;
  sum->vel_err_linf = sum->vel_err_l1 = sum->vel_err_l2 = NAN;
  sum->rho_err_l2 = sum->p_err_l2 = NAN;
  BlastHydroGetBalance(h, &sum->balance);
  {
    const BlastBalanceInfo *b = &sum->balance;
    double fr[2] = {b->active ? b->gpu_fraction : 1.0, b->active ? -b->gpu_fraction : -1.0}, frr[2];
    BlastCallMPI(MPI_Allreduce(fr, frr, 2, MPI_DOUBLE, MPI_MIN, comm));
    sum->gpu_fraction_min = frr[0], sum->gpu_fraction_max = -frr[1];
    int cp[2] = {b->converged_period, -b->converged_period}, cpr[2];
    BlastCallMPI(MPI_Allreduce(cp, cpr, 2, MPI_INT, MPI_MAX, comm));
    sum->converged_period_max = -cpr[1] < 0 ? -1 : cpr[0];  // -1 if any rank has not converged
  }
  BlastEnergyReport *en = &sum->hw_energy;  // not measured unless main sets it
  en->seconds = en->gpu_joules = en->cpu_package_joules = en->dram_joules = NAN;
  en->total_joules = en->average_watts = NAN;
  return 0;
}

static void Row(FILE *out, const char *name, double tmax, double tmin, double total) {
  fprintf(out, "  %-34s %10.3f %10.3f %6.1f%%\n", name, tmax, tmin,
          total > 0 ? 100.0 * tmax / total : 0.0);
}

// One line: the energy of the time steps and its parts, or why it was not measured.
static void ReportEnergy(FILE *out, const BlastRunSummary *s) {
  const BlastEnergyReport *e = &s->hw_energy;
  if (isnan(e->total_joules)) {
    fprintf(out, "  energy (time steps): not measured");
    for (int i = 0; i < e->nunavailable; i++)
      fprintf(out, "%s%s", i ? "; " : " (", e->unavailable[i]);
    fprintf(out, "%s\n", e->nunavailable ? ")" : "");
    return;
  }
  fprintf(out, "  energy (time steps): %.4g J", e->total_joules);
  const char *sep = " =";
  if (!isnan(e->gpu_joules)) fprintf(out, "%s GPU %.4g J", sep, e->gpu_joules), sep = " +";
  if (!isnan(e->cpu_package_joules))
    fprintf(out, "%s CPU packages %.4g J", sep, e->cpu_package_joules), sep = " +";
  if (!isnan(e->dram_joules)) fprintf(out, "%s DRAM %.4g J", sep, e->dram_joules);
  fprintf(out, " in %.3f s, %.4g W, %.4g J per zone-step%s\n", e->seconds, e->average_watts,
          BlastEnergyPerZoneStep(e, (long long)s->shape.zones, s->attempts),
          e->nunavailable ? " (partial: see summary.json)" : "");
}

void BlastReportSummary(FILE *out, const BlastRunSummary *s) {
  fprintf(out, "\n== Summary ==\n");
  fprintf(out, "  steps %d (attempts %d, repeated %d), t = %.6g, dt = %.6f\n", s->steps,
          s->attempts, s->rejected, s->t, s->dt);
  if (!s->completed)
    fprintf(out, "  STOPPED EARLY by %s at t = %.9g (t_final not reached)\n",
            s->stopped_by && s->stopped_by[0] ? s->stopped_by : "request", s->t);
  if (s->restart_from && s->restart_from[0])
    fprintf(out, "  continued from %s (after step %d)\n", s->restart_from, s->restart_steps);
  if (s->checkpoint && s->checkpoint[0])
    fprintf(out, "  checkpoints: %d written (%.3f s), newest %s\n", s->checkpoints,
            s->checkpoint_seconds, s->checkpoint);
  if (s->viz && s->viz[0]) fprintf(out, "  visualization: %d dumps in %s\n", s->viz_dumps, s->viz);
  fprintf(out, "  |e| = %.10e\n", s->e_norm);
  fprintf(out, "  energy: internal %.10e, kinetic %.10e, total %.10e\n", s->ie, s->ke, s->energy);
  fprintf(out, "  energy change: %.3e (relative %.3e) from %.10e\n", s->energy - s->energy0,
          s->energy0 != 0 ? (s->energy - s->energy0) / fabs(s->energy0) : 0.0, s->energy0);
  if (!isnan(s->sedov_density_l2))
    fprintf(out, "  Sedov density L2 error vs exact solution: %.6e\n", s->sedov_density_l2);
  if (!isnan(s->vel_err_l2))
    fprintf(out, "  velocity error vs exact solution: Linf %.6e, L1 %.6e, L2 %.6e\n",
            s->vel_err_linf, s->vel_err_l1, s->vel_err_l2);
  if (!isnan(s->rho_err_l2)) fprintf(out, "  density L2 error vs [exact]: %.6e\n", s->rho_err_l2);
  if (!isnan(s->p_err_l2)) fprintf(out, "  pressure L2 error vs [exact]: %.6e\n", s->p_err_l2);
  fprintf(out, "\n  %-34s %10s %10s %7s\n", "timing (seconds)", "max rank", "min rank", "% wall");
  Row(out, "quadrature data + corner forces F_z", s->t_qdata, s->t_qdata_min, s->wall);
  Row(out, "force actions -F.1, F^T v, M_E^-1", s->t_force, s->t_force_min, s->wall);
  char cg[64];
  snprintf(cg, sizeof cg, "CG (H1), %lld iterations", s->cg_iter);
  Row(out, cg, s->t_cg, s->t_cg_min, s->wall);
  if (s->shape.ranks > 1)
    Row(out, "  of which halo waits + dot reductions", s->t_cg_wait, s->t_cg_wait_min, s->wall);
  Row(out, "time steps (all of the above + RK)", s->t_step, s->t_step_min, s->wall);
  Row(out, "setup", s->setup_wall, s->setup_wall, s->wall);
  {  // its largest parts (every phase is in summary.json)
    char name[64];
    if (s->mesh_seconds >= 0.05 * s->setup_wall && s->mesh_seconds >= 0.01)
      Row(out, "  of which mesh", s->mesh_seconds, s->mesh_seconds, s->wall);
    for (int p = 0; p < s->setup_phases; p++) {
      if (!(s->setup_phase[p] >= 0.05 * s->setup_wall && s->setup_phase[p] >= 0.01)) continue;
      snprintf(name, sizeof name, "  of which %s", BlastHydroSetupPhaseName(p));
      Row(out, name, s->setup_phase[p], s->setup_phase[p], s->wall);
    }
  }
  fprintf(out, "  %-34s %10.3f\n", "wall", s->wall);
  ReportEnergy(out, s);
  if (s->balance.active) {
    const BlastBalanceInfo *b = &s->balance;
    fprintf(out, "  CPU+GPU split (%s): GPU share %.1f%%",
            b->mode == BLAST_BALANCE_AUTO ? "auto" : "fixed", 100.0 * s->gpu_fraction_min);
    if (s->gpu_fraction_max != s->gpu_fraction_min)
      fprintf(out, "-%.1f%% over ranks", 100.0 * s->gpu_fraction_max);
    fprintf(out, ", %s", BlastBalancePhaseName(b->phase));
    if (b->mode == BLAST_BALANCE_AUTO)
      fprintf(out,
              s->converged_period_max >= 0 ? ", converged in %d periods"
                                           : ", not converged (%d periods)",
              s->converged_period_max >= 0 ? s->converged_period_max : b->periods);
    fprintf(out, "; rank 0 compute GPU %.3f s, CPU threads %.3f s\n", b->dev_seconds,
            b->host_seconds);
  }
  if (s->cg_unconverged)
    fprintf(out, "  warning: %lld PCG solves stopped at cg_max_iter without converging\n",
            s->cg_unconverged);
  fprintf(out, "\n  figures of merit (as defined by the reference implementation):\n");
  fprintf(out, "  CG (H1) rate (megadofs x cg_iterations / second):        %.4f\n", s->fom_cg);
  fprintf(out, "  Forces rate (megadofs x timesteps / second):             %.4f\n", s->fom_force);
  fprintf(out, "  UpdateQuadData rate (megaquads x timesteps / second):    %.4f\n", s->fom_qdata);
  fprintf(out, "  Major kernels total rate (megadofs x time steps / second): %.4f\n", s->fom_total);
  fflush(out);
}

// The length of the well-formed UTF-8 sequence at p (1-4), or 0 if the bytes there are
// not one (a stray continuation byte, a truncated or overlong sequence, a surrogate).
static int Utf8Length(const unsigned char *p) {
  const unsigned c = p[0];
  int n = c < 0x80             ? 1
          : (c & 0xE0) == 0xC0 ? 2
          : (c & 0xF0) == 0xE0 ? 3
          : (c & 0xF8) == 0xF0 ? 4
                               : 0;
  if (n == 0 || (n == 2 && c < 0xC2) || (n == 4 && c > 0xF4)) return 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  if (n == 3 && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0))) return 0;
  if (n == 4 && ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))) return 0;
  return n;
}

// A JSON string literal: quotes, backslashes and control characters escaped, UTF-8 as it
// is, and each byte that is not UTF-8 (file names are bytes) as the lone surrogate
// \udcXX, which Python's json and os.fsencode turn back into that byte.
static void JsonString(FILE *f, const char *v) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(v ? v : ""); *p;) {
    const int n = Utf8Length(p);
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || *p == 0x7F)
      fprintf(f, "\\u%04x", *p);
    else if (n == 0)
      fprintf(f, "\\udc%02x", *p);
    else
      fwrite(p, 1, (size_t)n, f);
    p += n > 0 ? n : 1;
  }
  fputc('"', f);
}

// "key": "value" (escaped) and a comma, on a line of its own.
static void JsonKeyString(FILE *f, const char *key, const char *v) {
  fprintf(f, "  ");
  JsonString(f, key);
  fprintf(f, ": ");
  JsonString(f, v);
  fprintf(f, ",\n");
}

static void JsonStrings(FILE *f, const char *key, int n, const char (*v)[BLAST_ENERGY_NOTE_LEN]) {
  fprintf(f, "\"%s\": [", key);
  for (int i = 0; i < n; i++) {
    if (i) fprintf(f, ", ");
    JsonString(f, v[i]);
  }
  fprintf(f, "]");
}

// "energy": {...} of the time-stepping loop; null where not measured.
static void JsonEnergy(FILE *f, const BlastRunSummary *s) {
  const BlastEnergyReport *e = &s->hw_energy;
  const struct {
    const char *key;
    double v;
  } num[] = {
      {"gpu_joules", e->gpu_joules},
      {"cpu_package_joules", e->cpu_package_joules},
      {"dram_joules", e->dram_joules},
      {"total_joules", e->total_joules},
      {"average_watts", e->average_watts},
      {"joules_per_zone_step", BlastEnergyPerZoneStep(e, (long long)s->shape.zones, s->attempts)},
      {"seconds", e->seconds}};
  fprintf(f, "  \"energy\": {");
  for (size_t i = 0; i < sizeof num / sizeof num[0]; i++) {
    if (isfinite(num[i].v))
      fprintf(f, "\"%s\": %.9g, ", num[i].key, num[i].v);
    else
      fprintf(f, "\"%s\": null, ", num[i].key);
  }
  fprintf(f, "\"gpus\": %d, \"cpu_packages\": %d, \"dram_domains\": %d, \"nodes\": %d,\n    ",
          e->gpus, e->cpu_packages, e->dram_domains, e->nodes);
  JsonStrings(f, "sources", e->nsources, e->sources);
  fprintf(f, ",\n    ");
  JsonStrings(f, "unavailable", e->nunavailable, e->unavailable);
  fprintf(f, "}\n");
}

// "key": {"mesh": v0, "<phase>": v[p], ...} (values times scale; -1 where not measured).
static void JsonPhases(FILE *f, const char *key, double v0, const double *v, double scale, int n) {
  fprintf(f, "  ");
  JsonString(f, key);
  fprintf(f, ": {\"mesh\": %.6g", isfinite(v0) ? v0 * scale : -1.0);
  for (int p = 0; p < n; p++) {
    fprintf(f, ", ");
    JsonString(f, BlastHydroSetupPhaseName(p));
    fprintf(f, ": %.6g", isfinite(v[p]) ? v[p] * scale : -1.0);
  }
  fprintf(f, "},\n");
}

static void JsonNumber(FILE *f, const char *key, double v, int comma) {
  if (isfinite(v))
    fprintf(f, "  \"%s\": %.17g%s\n", key, v, comma ? "," : "");
  else
    fprintf(f, "  \"%s\": null%s\n", key, comma ? "," : "");
}

// "materials": [{"name": ..., "eos": ..., "gamma": ..., "p_inf": ...}, ...], the index of
// each the value of the dumps' `material` field.
static void JsonMaterials(FILE *f, const BlastRunSummary *s) {
  fprintf(f, "  \"materials\": [");
  for (int i = 0; i < s->nmat; i++) {
    fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
    JsonString(f, BlastProblemMaterialName(s->prob, i));
    fprintf(f, ", \"eos\": ");
    JsonString(f, BlastEosKindName(s->mats[i].kind));
    fprintf(f, ", \"gamma\": %.17g, \"p_inf\": %.17g}", s->mats[i].gamma, s->mats[i].p_inf);
  }
  fprintf(f, "%s],\n", s->nmat ? "\n  " : "");
}

// "balance": the CPU+GPU split ({"mode": "off"} without one).
static void JsonBalance(FILE *f, const BlastRunSummary *s) {
  const BlastBalanceInfo *b = &s->balance;
  if (!b->active) {
    fprintf(f, "  \"balance\": {\"mode\": \"off\"},\n");
    return;
  }
  fprintf(f,
          "  \"balance\": {\"mode\": \"%s\", \"phase\": \"%s\", \"gpu_fraction_min\": %.6g, "
          "\"gpu_fraction_max\": %.6g, \"periods\": %d, \"converged_period\": %d, "
          "\"gpu_seconds_rank0\": %.6g, \"cpu_seconds_rank0\": %.6g},\n",
          b->mode == BLAST_BALANCE_AUTO ? "auto" : "fixed", BlastBalancePhaseName(b->phase),
          s->gpu_fraction_min, s->gpu_fraction_max, b->periods, s->converged_period_max,
          b->dev_seconds, b->host_seconds);
}

// Where the mesh came from: the file, or the generator's parameters.
static void MeshSource(const BlastConfig *cfg, char *buf, size_t n) {
  if (cfg->mesh_file[0]) {
    snprintf(buf, n, "%s", cfg->mesh_file);
    return;
  }
  int len = snprintf(buf, n, "generated %s:",
                     cfg->generator == BLAST_MESH_GEN_BOX_SIMPLEX ? "box_simplex" : "box");
  for (int d = 0; d < cfg->dim && len > 0 && (size_t)len < n; d++)
    len += snprintf(buf + len, n - (size_t)len, " %d", cfg->elements[d]);
  for (int d = 0; d < cfg->dim && len > 0 && (size_t)len < n; d++)
    len +=
        snprintf(buf + len, n - (size_t)len, "%s%.17g", d ? " x " : " zones, size ", cfg->size[d]);
}

int BlastReportWriteJson(const char *dir, const BlastConfig *cfg, const BlastRunSummary *s) {
  char path[BLAST_PATH_MAX + 32], tmp[BLAST_PATH_MAX + 48];
  BlastCheck(snprintf(path, sizeof path, "%s/summary.json", dir) < (int)sizeof path &&
                 snprintf(tmp, sizeof tmp, "%s/.summary.json.tmp", dir) < (int)sizeof tmp,
             BLAST_ERR_INPUT, "[output] dir '%s' is too long for its summary file", dir);
  FILE *f;
  BlastCall(BlastCreateNewFile(tmp, &f));
  char mesh[BLAST_PATH_MAX + 128];
  MeshSource(cfg, mesh, sizeof mesh);
  fprintf(f, "{\n");
  JsonKeyString(f, "version", BLAST_VERSION);
  JsonKeyString(f, "git", BLAST_GIT);
  JsonKeyString(f, "problem", BlastProblemName(cfg->problem));
  JsonKeyString(f, "deck", cfg->deck_path);
  JsonMaterials(f, s);
  JsonKeyString(f, "mesh", mesh);
  JsonKeyString(f, "ode_solver", BlastOdeName(cfg->ode_solver));
  JsonNumber(f, "cfl", cfg->cfl, 1);
  JsonNumber(f, "t_final", cfg->t_final, 1);
  JsonKeyString(f, "units", "those of the deck and mesh (blast_gpu has no units of its own)");
  JsonKeyString(f, "deck_resolved", s->deck_text ? s->deck_text : "");
  fprintf(f, "  \"dim\": %d,\n  \"order_kinematic\": %d,\n  \"order_thermo\": %d,\n", s->shape.dim,
          s->shape.k, s->shape.m);
  fprintf(f, "  \"completed\": %s,\n  \"stopped_by\": ", s->completed ? "true" : "false");
  JsonString(f, s->stopped_by ? s->stopped_by : "");
  fprintf(f, ",\n  \"run_id\": ");
  JsonString(f, s->run_id ? s->run_id : "");
  fprintf(f, ",\n  \"restart_from\": ");
  JsonString(f, s->restart_from ? s->restart_from : "");
  fprintf(f, ",\n  \"restart_steps\": %d,\n  \"checkpoint\": ", s->restart_steps);
  JsonString(f, s->checkpoint ? s->checkpoint : "");
  fprintf(f, ",\n  \"checkpoints_written\": %d,\n", s->checkpoints);
  JsonNumber(f, "checkpoint_seconds", s->checkpoint_seconds, 1);
  fprintf(f, "  \"viz\": ");
  JsonString(f, s->viz ? s->viz : "");
  fprintf(f, ",\n  \"viz_dumps\": %d,\n", s->viz_dumps);
  fprintf(f, "  \"steps\": %d,\n  \"step_attempts\": %d,\n  \"steps_repeated\": %d,\n", s->steps,
          s->attempts, s->rejected);
  JsonNumber(f, "t", s->t, 1);
  JsonNumber(f, "dt", s->dt, 1);
  JsonNumber(f, "e_norm", s->e_norm, 1);
  JsonNumber(f, "energy_internal", s->ie, 1);
  JsonNumber(f, "energy_kinetic", s->ke, 1);
  JsonNumber(f, "energy_total", s->energy, 1);
  JsonNumber(f, "energy_total_initial", s->energy0, 1);
  JsonNumber(f, "dt_initial", s->dt0, 1);
  JsonNumber(f, "e_norm_initial", s->e_norm0, 1);
  fprintf(f, "  \"zones\": %lld,\n  \"h1_dofs\": %lld,\n  \"l2_dofs\": %lld,\n",
          (long long)s->shape.zones, (long long)s->shape.h1_dofs, (long long)s->shape.l2_dofs);
  fprintf(f, "  \"quadrature_points_per_zone\": %d,\n", s->shape.nqp);
  fprintf(f, "  \"ranks\": %d,\n  \"threads\": %d,\n", s->shape.ranks, s->shape.threads);
  JsonKeyString(f, "backend", s->backend);
  JsonNumber(f, "wall_seconds", s->wall, 1);
  JsonNumber(f, "setup_seconds", s->setup_wall, 1);
  // The three maps of the setup's phases have the same keys: the mesh, then the phases.
  JsonPhases(f, "setup_phases_max", s->mesh_seconds, s->setup_phase, 1.0, s->setup_phases);
  JsonPhases(f, "setup_phases_cpu_max", s->mesh_cpu_seconds, s->setup_phase_cpu, 1.0,
             s->setup_phases);
  JsonPhases(f, "setup_phases_peak_rss_mb_max", s->mesh_peak_rss, s->setup_phase_rss,
             1.0 / 1048576.0, s->setup_phases);
  fprintf(f,
          "  \"timing\": {\"qdata_force_max\": %.6g, \"force_actions_max\": %.6g, "
          "\"cg_max\": %.6g, \"steps_max\": %.6g, \"qdata_force_min\": %.6g, "
          "\"force_actions_min\": %.6g, \"cg_min\": %.6g, \"steps_min\": %.6g, "
          "\"cg_wait_max\": %.6g, \"cg_wait_min\": %.6g},\n",
          s->t_qdata, s->t_force, s->t_cg, s->t_step, s->t_qdata_min, s->t_force_min, s->t_cg_min,
          s->t_step_min, s->t_cg_wait, s->t_cg_wait_min);
  fprintf(f, "  \"cg_iterations\": %lld,\n  \"cg_unconverged\": %lld,\n", s->cg_iter,
          s->cg_unconverged);
  fprintf(f, "  \"cg_solves\": %lld,\n  \"cg_solves_resident\": %lld,\n", s->cg_solves,
          s->cg_solves_resident);
  JsonNumber(f, "sedov_density_l2_error", s->sedov_density_l2, 1);
  JsonNumber(f, "velocity_error_l2", s->vel_err_l2, 1);
  JsonNumber(f, "velocity_error_l1", s->vel_err_l1, 1);
  JsonNumber(f, "velocity_error_linf", s->vel_err_linf, 1);
  if (!isnan(s->rho_err_l2)) JsonNumber(f, "density_error_l2", s->rho_err_l2, 1);
  if (!isnan(s->p_err_l2)) JsonNumber(f, "pressure_error_l2", s->p_err_l2, 1);
  fprintf(f,
          "  \"fom\": {\"cg_h1\": %.6g, \"forces\": %.6g, \"update_quad_data\": %.6g, "
          "\"major_kernels\": %.6g, \"fom0\": %.6g},\n",
          s->fom_cg, s->fom_force, s->fom_qdata, s->fom_total, s->fom0);
  JsonBalance(f, s);
  JsonEnergy(f, s);
  fprintf(f, "}\n");
  const int werr = ferror(f) ? (errno ? errno : EIO) : 0;
  const int cerr = fflush(f) != 0 ? errno : 0;
  const int ferr = fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS ? errno : 0;
  const int clerr = fclose(f) != 0 ? errno : 0;
  const int err = werr ? werr : cerr ? cerr : ferr ? ferr : clerr;
  if (err) {
    remove(tmp);
    BlastError(BLAST_ERR_IO, "writing the run summary %s failed: %s (the temporary is removed)",
               tmp, strerror(err));
  }
  if (rename(tmp, path) != 0) {
    const int e = errno;
    remove(tmp);
    BlastError(BLAST_ERR_IO, "cannot rename %s to %s: %s", tmp, path, strerror(e));
  }
  return 0;
}

#ifdef BLAST_HAVE_CUDA
void BlastReportAutotune(FILE *out, const BlastGpuAutotune *tune) {
  for (int i = 0; i < tune->n; i++) {
    const BlastGpuTuneDecision *d = &tune->decision[i];
    if (d->kernel == BLAST_GPU_TUNED_QDATA)
      fprintf(out,
              "  autotune: k_qdata_force %d zones/block x %d threads/zone (registers <= %d%s), "
              "k_force_gemm %d threads/block: %.3f ms\n",
              d->zones_per_block, d->threads_per_zone, d->registers,
              d->sizes_compiled ? ", zone sizes compiled in" : "", d->gemm_threads, d->ms);
    else
      fprintf(out,
              "  autotune: mass-matrix kernel %d threads/block, >= %d blocks/SM, unroll %d: "
              "%.3f ms\n",
              d->threads, d->min_blocks, d->unroll, d->ms);
  }
  fflush(out);
}

void BlastReportGpuProfile(FILE *out, const BlastGpuProfile *p, int nranks) {
  if (!p->on) return;
  if (nranks == 1 && p->mem_in_use)  // one rank only: others' allocations would count
    fprintf(out,
            "\n  GPU memory: %.3f GiB taken by the backend's data and the front end's vectors "
            "(at the first update), %.3f GiB estimated before allocating\n",
            p->mem_in_use / 1073741824.0, p->mem_estimate / 1073741824.0);
  fprintf(out, "\n  GPU kernel profile (modeled bytes and flops):\n");
  fprintf(out, "  %-24s %8s %10s %10s %10s %10s\n", "kernel", "calls", "total ms", "ms/call",
          "GB/s", "GFLOP/s");
  for (int k = 0; k < p->n; k++) {
    const double ms = p->kernel[k].ms;
    const long long calls = p->kernel[k].calls;
    if (!calls) continue;
    const double s = ms * 1e-3;
    fprintf(out, "  %-24s %8lld %10.2f %10.4f %10.1f %10.1f\n", p->kernel[k].name, calls, ms,
            ms / calls, p->kernel[k].bytes / s * 1e-9, p->kernel[k].flops / s * 1e-9);
  }
  fflush(out);
}
#endif
