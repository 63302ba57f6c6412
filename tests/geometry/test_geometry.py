#!/usr/bin/env python3
"""Hostile geometry and deck values through the executable.

  test_geometry.py BLAST MPIEXEC WORK SQUARE_MESH GEOMETRY_MESH_DIR

WORK is recreated and gets a deck, meshes and the output folder of an earlier (good) run.
Every bad input below runs on 1, 2 and 3 MPI ranks and must end with exit code 2, one
'blast_gpu: error' line (printed once, by rank 0) naming the file, key or zone, no MPI
error or abort, no new file or folder anywhere in WORK, and every file of WORK unchanged
(md5). Classes:
  * coordinates too large or not finite: 1e308 / -1e308 in a 2D mesh (one vertex
    moved to 1e308, with refine_serial = 1), 1e300 in a 3D mesh, coordinates that overflow only
    in the Jacobian (a cube of side 2e120: det J = 1e360, from a file and generated),
    a generated box of size 1e200;
  * non-conforming meshes: a hanging node, a duplicated zone, a face of three zones, in
    2D and 3D;
  * [fem] order_quadrature too low for the mass matrices (three order combinations, one
    of them with the default order), and the smallest accepted value runs;
  * overflowing problem data: [problem] blast_energy = 1e308 and 1e200 (Sedov), initial
    data that are not finite or negative on coordinates far outside the problem's domain
    (riemann6, rayleigh_taylor).
Python 3 standard library only.
"""
import hashlib, os, shutil, subprocess, sys

failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)
    return cond


def run(cmd, cwd):
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=120)
    errors = [l for l in p.stderr.splitlines() if l.startswith("blast_gpu: error")]
    print("run:  %s\n      exit %d; %s" % (" ".join(cmd[1:]), p.returncode,
                                          errors[0][:300] if errors else "(no error line)"))
    return p, errors


def snapshot(folder):
    """Every path under folder, with the md5 of each file."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for d in dirs:
            out[os.path.join(root, d)] = "dir"
        for f in files:
            path = os.path.join(root, f)
            with open(path, "rb") as fh:
                out[path] = hashlib.md5(fh.read()).hexdigest()
    return out


def mutate(src, dst, old_line, new_line):
    """Copy mesh src to dst with the vertex line old_line replaced (exactly one match)."""
    with open(src) as f:
        lines = f.read().split("\n")
    hits = [i for i, l in enumerate(lines) if l.strip() == old_line]
    assert len(hits) == 1, (src, old_line, hits)
    lines[hits[0]] = new_line
    with open(dst, "w") as f:
        f.write("\n".join(lines))


def main():
    blast, mpiexec, work, square, meshes = sys.argv[1:6]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    deck = os.path.join(work, "deck.ini")
    with open(deck, "w") as f:
        f.write("[problem]\nname = sedov\n\n[mesh]\nfile = square.mesh\nrefine_serial = 1\n\n"
                "[fem]\norder_kinematic = 2\n\n[time]\nt_final = 0.01\nmax_steps = 2\n\n"
                "[output]\ndir = out_bad\nprint_every = 1000\n")
    box = os.path.join(work, "box.ini")  # the generator instead of a file
    with open(box, "w") as f:
        f.write("[problem]\nname = sedov\n\n[mesh]\ndim = 2\nelements = 4 4\n\n[time]\n"
                "t_final = 0.01\n\n[output]\ndir = out_bad\n")
    shutil.copy(square, os.path.join(work, "square.mesh"))
    for name in sorted(os.listdir(meshes)):
        if name.endswith(".mesh"):
            shutil.copy(os.path.join(meshes, name), os.path.join(work, name))
    # One coordinate 1 -> 1e308 (the case the file name keeps) and its negative.
    mutate(square, os.path.join(work, "issue1e308.mesh"), "1 1", "1e308 1")
    mutate(square, os.path.join(work, "minus1e308.mesh"), "1 0.5", "-1e308 0.5")
    # Far outside the domains of riemann6 ([0,1]^2) and rayleigh_taylor (e = 6 - rho y > 0).
    mutate(square, os.path.join(work, "far.mesh"), "1 1", "1 1e30")
    # The earlier run: its output folder must survive every refused run below.
    p, _ = run([mpiexec, "-n", "1", blast, deck, "output.dir=earlier"], work)
    check(p.returncode == 0 and os.path.isfile(os.path.join(work, "earlier", "summary.json")),
          "earlier run: exit 0, summary.json written")
    # The smallest accepted quadrature orders run (Q2-Q1: 4; Q1-Q3: 6; Q3-Q2: 6).
    for extra in (["fem.order_quadrature=4"],
                  ["fem.order_kinematic=1", "fem.order_thermo=3", "fem.order_quadrature=6"],
                  ["fem.order_kinematic=3", "fem.order_quadrature=6"]):
        p, errors = run([mpiexec, "-n", "2", blast, deck, "output.dir=ok_quad"] + extra, work)
        check(p.returncode == 0 and not errors, "%s: accepted, runs (exit 0)" % " ".join(extra))
        shutil.rmtree(os.path.join(work, "ok_quad"), ignore_errors=True)
    before = snapshot(work)

    geo = "coordinates too large or not finite"
    conform = "every interior face is shared by exactly two zones"
    cases = [
        # (name, overrides, substrings every message must hold)
        ("issue example 1e308, refine_serial=1", ["mesh.file=issue1e308.mesh"],
         ["issue1e308.mesh:", "zone", geo]),
        ("-1e308 in 2D", ["mesh.file=minus1e308.mesh", "mesh.refine_serial=0"],
         ["minus1e308.mesh:", "zone", geo]),
        ("-1e308 in 2D (Gauss point of the file's check)", ["mesh.file=huge2d.mesh"],
         ["huge2d.mesh:", "zone", geo]),
        ("1e300 in 3D", ["mesh.file=huge3d.mesh", "mesh.refine_serial=0"],
         ["huge3d.mesh:", "element 7: zone 7", geo]),
        ("overflow in the 3D Jacobian only", ["mesh.file=jacobian3d.mesh", "mesh.refine_serial=0"],
         ["jacobian3d.mesh:", "element 0: zone 0", geo, "det J = "]),
        ("box mesh of size 1e200", [box, "mesh.size=1e200 1"], None),
        ("box mesh of size 1e120 in 3D (det J overflows)",
         [box, "mesh.dim=3", "mesh.elements=2 2 2", "mesh.size=1e120 1e120 1e120"], None),
        ("hanging node 2D", ["mesh.file=hanging2d.mesh"],
         ["hanging2d.mesh:", "element 0: zone 0", "hanging node", conform]),
        ("hanging node 3D", ["mesh.file=hanging3d.mesh"],
         ["hanging3d.mesh:", "element 0: zone 0", "hanging node", conform]),
        ("no boundary section 2D", ["mesh.file=no_boundary2d.mesh"],
         ["no_boundary2d.mesh:", "8 face(s) on the boundary of the domain are missing from the "
          "'boundary' section (it lists 0)", "zone 0's face with vertices", "does not add them"]),
        ("boundary side missing 2D", ["mesh.file=missing_side2d.mesh"],
         ["missing_side2d.mesh:", "2 face(s) on the boundary of the domain are missing",
          "(it lists 6)", "(side x = 1)"]),
        ("boundary side missing 3D", ["mesh.file=missing_side3d.mesh"],
         ["missing_side3d.mesh:", "4 face(s) on the boundary of the domain are missing",
          "(it lists 20)", "(side y = 0)"]),
        ("duplicated zone 2D", ["mesh.file=duplicate2d.mesh"],
         ["duplicate2d.mesh:", "zone 4 has the same 4 vertices as zone 1", "duplicated"]),
        ("duplicated zone 3D (rotated)", ["mesh.file=duplicate3d.mesh"],
         ["duplicate3d.mesh:", "zone 8 has the same 8 vertices as zone 6", "duplicated"]),
        ("face of three zones 2D", ["mesh.file=three_zones2d.mesh"],
         ["three_zones2d.mesh:", "shared by 3 zones (0, 1 and 2)", "at most two zones"]),
        ("face of three zones 3D", ["mesh.file=three_zones3d.mesh"],
         ["three_zones3d.mesh:", "shared by 3 zones (0, 1 and 2)", "at most two zones"]),
        ("order_quadrature=1 (Q2-Q1)", ["fem.order_quadrature=1"],
         ["[fem] order_quadrature = 1 is too low", "use order_quadrature >= 4"]),
        ("order_quadrature=3 (Q2-Q1, largest refused)", ["fem.order_quadrature=3"],
         ["[fem] order_quadrature = 3 is too low", "kinematic mass matrix", ">= 4"]),
        ("order_quadrature=5 (Q3-Q2)", ["fem.order_kinematic=3", "fem.order_quadrature=5"],
         ["[fem] order_quadrature = 5 is too low", ">= 6"]),
        ("default order_quadrature, Q1-Q3", ["fem.order_kinematic=1", "fem.order_thermo=3"],
         ["[fem] order_thermo = 3 is too high", "order_quadrature >= 6"]),
        ("blast_energy=1e308", ["problem.blast_energy=1e308"],
         ["[problem] blast_energy = 1e+308 is too large", "use blast_energy <="]),
        ("blast_energy=1e200", ["problem.blast_energy=1e200"],
         ["[problem] blast_energy = 1e+200 is too large"]),
        ("riemann6 far outside its domain", ["problem.name=riemann6", "mesh.file=far.mesh"],
         ["[problem] name = riemann6", "initial velocity", "far.mesh"]),
        ("rayleigh_taylor far outside its domain",
         ["problem.name=rayleigh_taylor", "mesh.file=far.mesh"],
         ["[problem] name = rayleigh_taylor", "initial specific internal energy", "far.mesh"]),
    ]
    for name, overrides, expect in cases:
        if expect is None:  # the box: the generator's keys replace the file
            expect = ["generated box mesh", geo]
        for n in (1, 2, 3):
            args = overrides if overrides[0] == box else [deck] + overrides
            p, errors = run([mpiexec, "-n", str(n), blast] + args, work)
            what = "%s, %d rank%s" % (name, n, "s" if n > 1 else "")
            check(p.returncode == 2, "%s: exit 2 (got %d)" % (what, p.returncode))
            check(len(errors) == 1, "%s: one error line (got %d)" % (what, len(errors)))
            msg = errors[0] if errors else ""
            missing = [s for s in expect if s not in msg]
            check(not missing, "%s: the message names %s" % (what, missing or expect))
            check("(rank " not in msg, "%s: printed by rank 0 for every rank" % what)
            bad = [w for w in ("MPI_ERR", "MPI_ABORT", "MPI_Abort", "Segmentation", "core dumped")
                   if w in p.stdout + p.stderr]
            check(not bad, "%s: no MPI error, abort or crash %s" % (what, bad or ""))
            after = snapshot(work)
            check(after == before, "%s: nothing written, every file unchanged" % what)
            if after != before:
                print("      new or changed: %s" % sorted(
                    k for k in set(after) | set(before) if after.get(k) != before.get(k)))
                before = after
    print("test_geometry: %s" % ("PASS" if not failures else "FAIL (%d)" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
