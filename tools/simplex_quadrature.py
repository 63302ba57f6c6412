#!/usr/bin/env python3
"""Fully symmetric quadrature rules on the reference triangle and tetrahedron with all
weights positive and all points strictly inside, and the C tables made from them.

    python3 tools/simplex_quadrature.py search GEOM Q [--points N] [--starts S] [--seed K]
        [--slack U] [--max-points M] [--reduce KIND:COUNT,...]
    python3 tools/simplex_quadrature.py generate [--check] [--table]

GEOM is tri or tet. A rule is a list of orbits of the symmetry group of the simplex in
barycentric coordinates (triangle: centroid, (a,a,b), (a,b,c); tetrahedron: centroid,
(a,a,a,b), (a,a,b,b), (a,a,b,c), (a,b,c,d)), each with the total weight of its points.
The moment equations are those of the invariant polynomials (products of the power sums
p_k = sum_i lambda_i^k, k = 2..d+1, of weighted degree <= Q), orthogonalised exactly
(rational Gram matrix, LDL^T) so that the least-squares problem is well conditioned.

`search` solves them with Levenberg-Marquardt (minimum-norm damped steps) from seeded
random starts, in variables that keep every iterate valid (weights e^u, orbit parameters
through a softmax, so the points stay strictly inside), over the orbit compositions of N
points whose unknowns number between the equations and that plus --slack (from N upwards;
by default N starts at the lower bound dim P_floor(Q/2)). It stores the first rule found
(distinct orbits, polished below) in fem/simplex_rules_orbits.txt, replacing a
stored rule of the same degree only if it has fewer points. The search is slow (minutes
for the larger tetrahedral degrees) and depends on floating-point details; the stored
orbits are the record.

With --reduce, the search starts instead from a larger composition (an underdetermined
system, easily solved) and drops orbits one at a time, smallest weight first, re-solving
after each, while the rule stays positive and interior; the smallest rule over the starts
is stored.

`generate` reads the stored orbits, polishes every rule with Newton's method in 50-digit
decimal arithmetic, checks it (degree, positivity, interiority) and writes
fem/simplex_rules.c and fem/simplex_rules.h. It is deterministic and uses the standard
library only; --check compares with the committed files instead of writing them (exit 1 if
they differ); --table prints the table of docs/verification.md.
"""
import decimal
import math
import os
import random
import sys
from fractions import Fraction
from itertools import permutations
from operator import mul

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ORBIT_FILE = os.path.join(HERE, "..", "fem", "simplex_rules_orbits.txt")
DIM = {"tri": 2, "tet": 3}

# Orbit types: name -> (number of parameters, number of points, label pattern). The
# barycentric representative is built from the parameters by rep().
ORBITS = {
    "tri": {"S3": (0, 1, (0, 0, 0)), "S21": (1, 3, (0, 0, 1)), "S111": (2, 6, (0, 1, 2))},
    "tet": {
        "S4": (0, 1, (0, 0, 0, 0)),
        "S31": (1, 4, (0, 0, 0, 1)),
        "S22": (1, 6, (0, 0, 1, 1)),
        "S211": (2, 12, (0, 0, 1, 2)),
        "S1111": (3, 24, (0, 1, 2, 3)),
    },
}


def rep(kind, t, one):
    """Barycentric representative of an orbit and its derivatives d lambda / d t_j."""
    if kind == "S3":
        c = one / 3
        return [c, c, c], []
    if kind == "S4":
        c = one / 4
        return [c, c, c, c], []
    if kind == "S21":
        a = t[0]
        return [a, a, one - 2 * a], [[1, 1, -2]]
    if kind == "S111":
        a, b = t
        return [a, b, one - a - b], [[1, 0, -1], [0, 1, -1]]
    if kind == "S31":
        a = t[0]
        return [a, a, a, one - 3 * a], [[1, 1, 1, -3]]
    if kind == "S22":
        a = t[0]
        h = one / 2
        return [a, a, h - a, h - a], [[1, 1, -1, -1]]
    if kind == "S211":
        a, b = t
        return [a, a, b, one - 2 * a - b], [[1, 1, 0, -2], [0, 0, 1, -1]]
    if kind == "S1111":
        a, b, c = t
        return [a, b, c, one - a - b - c], [[1, 0, 0, -1], [0, 1, 0, -1], [0, 0, 1, -1]]
    raise ValueError(kind)


class Moments:
    """Invariant monomials prod_k p_k^e_k of weighted degree <= q, their exact mean values
    over the simplex, and the exact LDL^T orthogonalisation of their Gram matrix."""

    def __init__(self, geom, q):
        d = DIM[geom]
        self.d, self.q = d, q
        degs = list(range(2, d + 2))
        self.degs = degs

        def exps(maxdeg):
            out = [()]
            for k in degs:
                out = [e + (i,) for e in out for i in range(maxdeg // k + 1)]
            return sorted(
                [e for e in out if sum(i * k for i, k in zip(e, degs)) <= maxdeg],
                key=lambda e: (sum(i * k for i, k in zip(e, degs)), e),
            )

        self.exps = exps(q)
        mean = self._means(exps(2 * q))
        n = len(self.exps)
        gram = [[mean[tuple(a + b for a, b in zip(ea, eb))] for eb in self.exps] for ea in self.exps]
        # LDL^T: g = L^-1 P are orthogonal with norms D; T = D^-1/2 L^-1 (rational L^-1).
        L = [[Fraction(0)] * n for _ in range(n)]
        D = [Fraction(0)] * n
        for i in range(n):
            for j in range(i + 1):
                s = gram[i][j] - sum(L[i][k] * L[j][k] * D[k] for k in range(j))
                if i == j:
                    D[i] = s
                    L[i][i] = Fraction(1)
                else:
                    L[i][j] = s / D[j]
        Linv = [[Fraction(0)] * n for _ in range(n)]
        for i in range(n):
            Linv[i][i] = Fraction(1)
            for j in range(i):
                Linv[i][j] = -sum(L[i][k] * Linv[k][j] for k in range(j, i))
        self.Linv, self.D = Linv, D
        self.mean = [mean[e] for e in self.exps]
        # target of the orthogonal moments: mean of g_i = (L^-1 mean(P))_i = delta_i0
        self.n = n

    def _means(self, elist):
        """Exact mean over the simplex of prod p_k^e_k (barycentric monomial integrals)."""
        d = self.d
        nv = d + 1
        powsum = {}
        for k in self.degs:
            p = {}
            for i in range(nv):
                e = [0] * nv
                e[i] = k
                p[tuple(e)] = 1
            powsum[k] = p

        def mul(a, b):
            out = {}
            for ea, ca in a.items():
                for eb, cb in b.items():
                    e = tuple(x + y for x, y in zip(ea, eb))
                    out[e] = out.get(e, 0) + ca * cb
            return out

        fact = [math.factorial(i) for i in range(80)]
        polys = {tuple([0] * len(self.degs)): {tuple([0] * nv): 1}}
        res = {}
        for e in elist:
            if e not in polys:
                # build from a predecessor with one exponent lowered
                for j in range(len(e) - 1, -1, -1):
                    if e[j] > 0:
                        prev = list(e)
                        prev[j] -= 1
                        polys[e] = mul(polys[tuple(prev)], powsum[self.degs[j]])
                        break
            poly = polys[e]
            deg = sum(i * k for i, k in zip(e, self.degs))
            s = 0
            for a, c in poly.items():
                t = c
                for ai in a:
                    t *= fact[ai]
                s += t
            # mean of lambda^a over the simplex = d! a! / (|a| + d)!
            res[e] = Fraction(s * fact[d], fact[deg + d])
        return res


def ei_any(e):
    return any(e)


class System:
    """Residuals and Jacobian of the orthonormal invariant moment equations for an orbit
    composition, in a given number type (float or Decimal)."""

    def __init__(self, mom, geom, comp, num):
        self.mom, self.geom, self.comp = mom, geom, comp
        self.num = num
        if num is float:
            conv = float
            self.sqrt = math.sqrt
        else:

            def conv(f):
                return decimal.Decimal(f.numerator) / decimal.Decimal(f.denominator)

            self.sqrt = lambda x: x.sqrt()
        n = mom.n
        self.one = conv(Fraction(1))
        self.T = [[conv(mom.Linv[i][j]) / self.sqrt(conv(mom.D[i])) for j in range(i + 1)] for i in range(n)]
        self.target = [self.one / self.sqrt(conv(mom.D[0]))] + [conv(Fraction(0))] * (n - 1)
        self.npar = [ORBITS[geom][k][0] for k in comp]
        self.nunk = len(comp) + sum(self.npar)

    def unpack(self, x):
        out, i = [], 0
        for k, npar in zip(self.comp, self.npar):
            out.append((x[i], x[i + 1 : i + 1 + npar]))
            i += 1 + npar
        return out

    def evaluate(self, x, jac=True):
        mom, one = self.mom, self.one
        n = mom.n
        zero = one - one
        r = [-t for t in self.target]
        J = [[] for _ in range(n)]
        for k, (W, t) in zip(self.comp, self.unpack(x)):
            lam, dlam = rep(k, t, one)
            # power sums and their derivatives
            p = {kk: sum(l**kk for l in lam) for kk in mom.degs}
            dp = {kk: [sum(kk * l ** (kk - 1) * dl for l, dl in zip(lam, dv)) for dv in dlam] for kk in mom.degs}
            P, dP = [], []
            for e in mom.exps:
                v = one
                for kk, ei in zip(mom.degs, e):
                    if ei:
                        v = v * p[kk] ** ei
                P.append(v)
                if jac:
                    # d prod p_k^e_k / dt = prod * sum_k e_k (dp_k / dt) / p_k
                    dP.append([v * sum(ei * dp[kk][j] / p[kk] for kk, ei in zip(mom.degs, e) if ei) if ei_any(e) else zero for j in range(len(dlam))])
            g = [sum(map(mul, Ti, P)) for Ti in self.T]
            for i in range(n):
                r[i] += W * g[i]
            if jac:
                dPt = list(zip(*dP)) if dlam else []
                for i in range(n):
                    J[i].append(g[i])
                    for dPj in dPt:
                        J[i].append(W * sum(map(mul, self.T[i], dPj)))
        return r, J


def solve_spd(A, b):
    """Cholesky solve; None if not positive definite."""
    n = len(A)
    L = [[0] * n for _ in range(n)]
    for i in range(n):
        Li = L[i]
        for j in range(i + 1):
            Lj = L[j]
            s = A[i][j] - sum(map(mul, Li[:j], Lj[:j]))
            if i == j:
                if s <= 0:
                    return None
                Li[i] = s.sqrt() if hasattr(s, "sqrt") else math.sqrt(s)
            else:
                Li[j] = s / Lj[j]
    y = [0] * n
    for i in range(n):
        y[i] = (b[i] - sum(map(mul, L[i][:i], y[:i]))) / L[i][i]
    x = [0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - sum(L[k][i] * x[k] for k in range(i + 1, n))) / L[i][i]
    return x


def lm_step(r, J, mu):
    """Minimum-norm damped Gauss-Newton step: dx = -J^T (J J^T + mu I)^-1 r."""
    m = len(r)
    A = [[0] * m for _ in range(m)]
    for i in range(m):
        Ji = J[i]
        for j in range(i + 1):
            A[i][j] = A[j][i] = sum(map(mul, Ji, J[j]))
    for i in range(m):
        A[i][i] += mu * (1 + A[i][i])
    y = solve_spd(A, r)
    if y is None:
        return None
    return [-sum(map(mul, col, y)) for col in zip(*J)]


def norm2(r):
    return sum(v * v for v in r)


STAG = 0.7


def levenberg_marquardt(sys_, x, maxit=300, tol=1e-22):
    r, J = sys_.evaluate(x)
    f = norm2(r)
    mu = 1e-2
    fcheck = f
    for it in range(maxit):
        if f < tol:
            return x, f
        if it % 30 == 29:
            # stagnation: less than a factor 2 in 30 iterations far from a solution
            if f > 1e-10 and f > STAG * fcheck:
                break
            fcheck = f
        dx = lm_step(r, J, mu)
        if dx is None:
            mu *= 10
            if mu > 1e8:
                break
            continue
        xn = [a + b for a, b in zip(x, dx)]
        rn, _ = sys_.evaluate(xn, jac=False)
        fn = norm2(rn)
        if fn < f:
            x, f = xn, fn
            r, J = sys_.evaluate(x)
            mu = max(mu * 0.2, 1e-14)
        else:
            mu *= 8
            if mu > 1e8:
                break
        if any(abs(v) > 60 for v in x):
            break
    return x, f


# Orbit parameters through a softmax: t_i = e^{s_i} / Z, Z = c0 + sum_j m_j e^{s_j}, so
# that every point is strictly inside whatever s; the weights are W = e^u > 0.
SOFTMAX = {"S21": ([2], 1), "S111": ([1, 1], 1), "S31": ([3], 1), "S22": ([2], 2), "S211": ([2, 1], 1), "S1111": ([1, 1, 1], 1)}


class PositiveSystem:
    """The moment equations in the unconstrained variables (u, s) of each orbit."""

    def __init__(self, base):
        self.base, self.comp = base, base.comp

    def to_x(self, y):
        x, blocks, i = [], [], 0
        for k in self.comp:
            npar = ORBITS[self.base.geom][k][0]
            W = math.exp(min(y[i], 50.0))
            sv = y[i + 1 : i + 1 + npar]
            x.append(W)
            if npar:
                m, c0 = SOFTMAX[k]
                e = [math.exp(max(min(v, 50.0), -50.0)) for v in sv]
                Z = c0 + sum(mj * ej for mj, ej in zip(m, e))
                t = [ej / Z for ej in e]
                x.extend(t)
                dt = [[(t[a] if a == b else 0.0) - t[a] * m[b] * t[b] for b in range(npar)] for a in range(npar)]
            else:
                dt = []
            blocks.append((W, dt))
            i += 1 + npar
        return x, blocks

    def evaluate(self, y, jac=True):
        x, blocks = self.to_x(y)
        r, J = self.base.evaluate(x, jac)
        if not jac:
            return r, J
        out = []
        for row in J:
            nr, c = [], 0
            for W, dt in blocks:
                nr.append(row[c] * W)
                npar = len(dt)
                for b in range(npar):
                    nr.append(sum(row[c + 1 + a] * dt[a][b] for a in range(npar)))
                c += 1 + npar
            out.append(nr)
        return r, out

    def from_x(self, x):
        y, i = [], 0
        for k in self.comp:
            npar = ORBITS[self.base.geom][k][0]
            y.append(math.log(max(x[i], 1e-300)))
            if npar:
                m, c0 = SOFTMAX[k]
                t = x[i + 1 : i + 1 + npar]
                ref = (1 - sum(mj * tj for mj, tj in zip(m, t))) / c0
                y.extend(math.log(max(tj, 1e-300) / max(ref, 1e-300)) for tj in t)
            i += 1 + npar
        return y


def solve_positive(base, x):
    """LM in the positive variables from a start x (weights and parameters valid)."""
    ps = PositiveSystem(base)
    y, f = levenberg_marquardt(ps, ps.from_x(x))
    return ps.to_x(y)[0], f


def random_params(kind, rng):
    u = lambda: rng.random()
    if kind in ("S3", "S4"):
        return []
    if kind == "S21":
        return [0.5 * u()]
    if kind == "S111":
        a, b = u(), u()
        if a + b > 1:
            a, b = 1 - a, 1 - b
        return [a, b]
    if kind == "S31":
        return [u() / 3]
    if kind == "S22":
        return [0.25 * u()]
    if kind == "S211":
        lam = dirichlet(4, rng)
        return [lam[0], lam[2]] if 2 * lam[0] + lam[2] < 1 else [lam[0] / 2, lam[2] / 2]
    if kind == "S1111":
        lam = dirichlet(4, rng)
        return lam[:3]
    raise ValueError(kind)


def dirichlet(n, rng):
    e = [-math.log(1 - rng.random()) for _ in range(n)]
    s = sum(e)
    return [v / s for v in e]


def check_rule(geom, comp, x, one, tol_inside=1e-10, tol_distinct=1e-7):
    """Positive weights, points strictly inside, orbits not degenerate or repeated."""
    sysx = list(zip(comp, unpack_generic(geom, comp, x)))
    reps = []
    for k, (W, t) in sysx:
        if not W > 0:
            return "weight"
        lam, _ = rep(k, t, one)
        if min(lam) < tol_inside:
            return "outside"
        vals = sorted(lam)
        pattern = ORBITS[geom][k][2]
        # values that must differ (different labels) must differ
        for i in range(len(lam)):
            for j in range(len(lam)):
                if pattern[i] != pattern[j] and abs(lam[i] - lam[j]) < tol_distinct:
                    return "degenerate"
        reps.append(tuple(vals))
    for i in range(len(reps)):
        for j in range(i):
            if max(abs(a - b) for a, b in zip(reps[i], reps[j])) < tol_distinct:
                return "repeated"
    return None


def unpack_generic(geom, comp, x):
    out, i = [], 0
    for k in comp:
        npar = ORBITS[geom][k][0]
        out.append((x[i], x[i + 1 : i + 1 + npar]))
        i += 1 + npar
    return out


def compositions(geom, npts, nequ, slack):
    """Orbit compositions with npts points and between nequ and nequ + slack unknowns."""
    kinds = list(ORBITS[geom])
    out = []

    def rec(i, left, comp):
        if i == len(kinds):
            if left == 0:
                nunk = sum(1 + ORBITS[geom][k][0] for k in comp)
                if nequ <= nunk <= nequ + slack:
                    out.append(list(comp))
            return
        k = kinds[i]
        size = ORBITS[geom][k][1]
        maxc = 1 if k in ("S3", "S4") else left // size
        for c in range(maxc + 1):
            if c * size <= left:
                rec(i + 1, left - c * size, comp + [k] * c)

    rec(0, npts, [])
    # fewest unknowns first, then more general orbits first
    out.sort(key=lambda c: (sum(1 + ORBITS[geom][k][0] for k in c), -len(c)))
    return out


def search(geom, q, npts0, starts, seed, maxpts, slack=2):
    mom = Moments(geom, q)
    d = DIM[geom]
    lower = math.comb(q // 2 + d, d)
    npts = max(npts0 or lower, lower)
    while npts <= maxpts:
        for comp in compositions(geom, npts, mom.n, slack):
            sys_ = System(mom, geom, comp, float)
            rng = random.Random("%s-%d-%d-%s-%d" % (geom, q, npts, ",".join(comp), seed))
            for s in range(starts):
                x = []
                nor = len(comp)
                for k in comp:
                    size = ORBITS[geom][k][1]
                    x.append((0.5 + rng.random()) / nor)
                    x.extend(random_params(k, rng))
                x, f = solve_positive(sys_, x)
                if f < accept_level(q):
                    why = check_rule(geom, comp, x, 1.0)
                    if why is None:
                        print("found %s q=%d %d points %s (start %d)" % (geom, q, npts, comp, s), flush=True)
                        return comp, x
        print("  %s q=%d: none with %d points" % (geom, q, npts), flush=True)
        npts += 1
    return None


def accept_level(q):
    """Squared residual below which a double-precision solution is taken (and then polished
    in decimals): the evaluation of the orthogonal invariants loses digits as q grows."""
    return 1e-12 if q <= 14 else 1e-9


def reduce_rule(geom, q, start, starts, seed, tries=6):
    """Orbit elimination: solve an underdetermined composition (easy), then repeatedly drop
    the orbit of smallest total weight (or the next ones, up to `tries`) and re-solve from
    the remaining orbits, while the rule stays positive and interior."""
    mom = Moments(geom, q)
    rng = random.Random("reduce-%s-%d-%s-%d" % (geom, q, ",".join(start), seed))
    best = None
    for s in range(starts):
        comp = list(start)
        sys_ = System(mom, geom, comp, float)
        x = []
        for k in comp:
            x.append((0.5 + rng.random()) / len(comp))
            x.extend(random_params(k, rng))
        x, f = solve_positive(sys_, x)
        if f > accept_level(q) or check_rule(geom, comp, x, 1.0):
            print("  start %d: no positive interior solution (f %.1e)" % (s, f), flush=True)
            continue
        while True:
            orbs = unpack_generic(geom, comp, x)
            order = sorted(range(len(comp)), key=lambda i: orbs[i][0])
            done = False
            for i in order[:tries]:
                c2 = comp[:i] + comp[i + 1 :]
                if sum(1 + ORBITS[geom][k][0] for k in c2) < mom.n:
                    continue
                x2 = []
                for j, (W, t) in enumerate(orbs):
                    if j != i:
                        x2.append(W / (1 - orbs[i][0]))
                        x2.extend(t)
                sys2 = System(mom, geom, c2, float)
                x2, f2 = solve_positive(sys2, x2)
                if f2 < accept_level(q) and check_rule(geom, c2, x2, 1.0) is None:
                    comp, x, done = c2, x2, True
                    break
            if not done:
                break
        n = sum(ORBITS[geom][k][1] for k in comp)
        print("  start %d: %d points %s" % (s, n, comp), flush=True)
        if best is None or n < best[0]:
            best = (n, comp, x)
    return best


# ---------------------------------------------------------------------------------------
# Stored orbits and the C tables


def read_orbits():
    rules = {}
    if not os.path.exists(ORBIT_FILE):
        return rules
    with open(ORBIT_FILE) as fh:
        for line in fh:
            line = line.split("#")[0].strip()
            if not line:
                continue
            f = line.split()
            geom, q, kind = f[0], int(f[1]), f[2]
            rules.setdefault((geom, q), []).append((kind, [decimal.Decimal(v) for v in f[3:]]))
    return rules


def write_orbits(rules):
    with open(ORBIT_FILE, "w") as fh:
        fh.write(
            "# Fully symmetric positive interior simplex rules found by tools/simplex_quadrature.py\n"
            "# search: geom degree orbit total-weight parameters (barycentric, see rep()).\n"
        )
        for geom in ("tri", "tet"):
            for q in sorted(k[1] for k in rules if k[0] == geom):
                for kind, vals in rules[(geom, q)]:
                    fh.write("%s %d %s %s\n" % (geom, q, kind, " ".join("%.25g" % v for v in vals)))


def npoints(geom, orbs):
    return sum(ORBITS[geom][k][1] for k, _ in orbs)


def polish(geom, q, orbs):
    """Newton's method in 50-digit decimals on the stored orbits; returns the polished
    unknowns, the residual norm and the composition."""
    decimal.getcontext().prec = 50
    mom = Moments(geom, q)
    comp = [k for k, _ in orbs]
    x = []
    for _, vals in orbs:
        x.extend(vals)
    sys_ = System(mom, geom, comp, decimal.Decimal)
    for _ in range(12):
        r, J = sys_.evaluate(x)
        f = norm2(r)
        if f < decimal.Decimal("1e-80"):
            break
        dx = lm_step(r, J, decimal.Decimal(0))
        if dx is None:
            raise SystemExit("%s q=%d: singular Jacobian in polishing" % (geom, q))
        x = [a + b for a, b in zip(x, dx)]
    r, _ = sys_.evaluate(x, jac=False)
    return comp, x, norm2(r).sqrt()


def expand(geom, lam):
    """Distinct permutations of a barycentric tuple, in lexicographic permutation order."""
    out = []
    for perm in permutations(range(len(lam))):
        mu = tuple(lam[i] for i in perm)
        if mu not in out:
            out.append(mu)
    return out


def exact_monomial(a):
    d = len(a)
    num = 1
    for ai in a:
        num *= math.factorial(ai)
    return Fraction(num, math.factorial(sum(a) + d))


HEADER = """// Fully symmetric quadrature rules on the reference triangle and tetrahedron with
// positive weights and every point strictly inside the element.
#ifndef BLAST_FEM_SIMPLEX_RULES_H
#define BLAST_FEM_SIMPLEX_RULES_H

// The stored rule with the fewest points among those of degree >= q (exact for every
// polynomial of total degree <= q) on geometry geom (BLAST_GEOM_TRIANGLE or
// BLAST_GEOM_TETRAHEDRON; ties: the lower degree, q <= 0 counts as 0): returns 1
// and its points xi[p*dim + g] (reference coordinates, vertex 0 at the origin) and weights
// w[p] (summing to the reference volume 1/2 or 1/6); 0 if no stored rule reaches degree q
// (see BlastSimplexSymmetricMaxDegree) or geom is no simplex. The tables are static;
// the first call for a rule expands its orbits (under an OpenMP critical section).
int BlastSimplexSymmetricRule(int geom, int q, int *npts, const double **xi, const double **w);

// The highest degree stored for geom (0 for a geometry that is no simplex).
int BlastSimplexSymmetricMaxDegree(int geom);

#endif
"""


def generate(check):
    rules = read_orbits()
    decimal.getcontext().prec = 50
    rows, table, report, report_rows = [], [], [], []
    first = 0
    totpts = 0
    for geom in ("tri", "tet"):
        d = DIM[geom]
        vol = Fraction(1, math.factorial(d))
        for q in sorted(k[1] for k in rules if k[0] == geom):
            comp, x, res = polish(geom, q, rules[(geom, q)])
            if res > decimal.Decimal("1e-35"):
                raise SystemExit("%s q=%d: polishing left a residual %s" % (geom, q, res))
            one = decimal.Decimal(1)
            why = check_rule(geom, comp, x, one)
            if why:
                raise SystemExit("%s q=%d: rule rejected (%s)" % (geom, q, why))
            orbs = unpack_generic(geom, comp, x)
            pts = []
            minw, minlam = None, None
            for k, (W, t) in zip(comp, orbs):
                lam, _ = rep(k, t, one)
                size = ORBITS[geom][k][1]
                wpt = W / size * (one * vol.numerator / vol.denominator)
                lamf = [float(v) for v in lam]
                rows.append("  {%s}," % ", ".join("%.17g" % v for v in [float(wpt)] + lamf + [0.0] * (3 - d)))
                for mu in expand(geom, lamf):
                    pts.append((float(wpt), mu))
                minw = float(wpt) if minw is None else min(minw, float(wpt))
                minlam = min(lamf) if minlam is None else min(minlam, min(lamf))
            n = len(pts)
            if n != npoints(geom, rules[(geom, q)]):
                raise SystemExit("%s q=%d: %d points expanded" % (geom, q, n))
            # every monomial of degree <= q, in exact rational arithmetic on the doubles
            worst = 0.0
            for a in monomials(d, q):
                s = Fraction(0)
                for wp, mu in pts:
                    t = Fraction(wp)
                    for g in range(d):
                        t *= Fraction(mu[g + 1]) ** a[g]
                    s += t
                ex = exact_monomial(a)
                worst = max(worst, float(abs(s - ex) / ex))
            if worst > 1e-14:
                raise SystemExit("%s q=%d: monomial error %g" % (geom, q, worst))
            table.append("  {%d, %d, %d, %d, %d}," % (2 if d == 2 else 4, q, len(comp), first, n))
            report_rows.append((geom, q, n, minw, minlam))
            report.append("%s q=%2d: %4d points, %3d orbits, min weight %.3e, min barycentric %.3e, max rel. monomial error %.1e" % (geom, q, n, len(comp), minw, minlam, worst))
            first += len(comp)
            totpts += n
    src = [
        "// Fully symmetric quadrature rules on the reference triangle and tetrahedron: positive",
        "// weights, every point strictly inside. GENERATED by tools/simplex_quadrature.py from",
        "// fem/simplex_rules_orbits.txt; do not edit. Regenerate with",
        "//   python3 tools/simplex_quadrature.py generate",
        "// Each orbit row: the weight of each of its points, then its barycentric coordinates",
        "// (lambda_0..lambda_d, padded with 0); its points are the distinct permutations, in",
        "// lexicographic order of the permutations, with reference coordinates xi_g = lambda_{g+1}.",
        "#include \"simplex_rules.h\"",
        "",
        "#include \"geom.h\"",
        "",
        "enum { kNumOrbits = %d, kNumRules = %d, kTotalPoints = %d };" % (first, len(table), totpts),
        "",
        "// clang-format off",
        "static const double kOrbits[kNumOrbits][5] = {",
    ] + rows + [
        "};",
        "",
        "// geom, degree, number of orbits, first orbit, number of points",
        "static const int kRules[kNumRules][5] = {",
    ] + table + [
        "};",
        "// clang-format on",
        "",
        C_TAIL.strip("\n"),
        "",
    ]
    text_c = "\n".join(src)
    out = {os.path.join(ROOT, "fem", "simplex_rules.c"): text_c, os.path.join(ROOT, "fem", "simplex_rules.h"): HEADER}
    print("\n".join(report))
    if "--table" in sys.argv:
        print_table(report_rows)
    if check:
        bad = 0
        for path, text in out.items():
            old = open(path).read() if os.path.exists(path) else None
            if old != text:
                print("DIFFERS: %s" % path)
                bad = 1
        return bad
    for path, text in out.items():
        with open(path, "w") as fh:
            fh.write(text)
    return 0


def print_table(rows):
    """The docs' table (docs/verification.md, "Quadrature on simplices")."""
    by = {(g, q): (n, w, l) for g, q, n, w, l in rows}
    print("| degree | triangle points | min weight | min barycentric | tetrahedron points | min weight | min barycentric |")
    print("|---|---|---|---|---|---|---|")
    for q in sorted({q for _, q, _, _, _ in rows}):
        cells = []
        for g in ("tri", "tet"):
            if (g, q) in by:
                n, w, l = by[(g, q)]
                cells += ["%d" % n, "%.2e" % w, "%.2e" % l]
            else:
                cells += ["–", "", ""]
        print("| %d | %s |" % (q, " | ".join(cells)))


def monomials(d, q):
    out = []
    for a in range(q + 1):
        for b in range(q + 1 - a):
            if d == 2:
                out.append((a, b))
            else:
                for c in range(q + 1 - a - b):
                    out.append((a, b, c))
    return out


C_TAIL = """
static double xi_store[3 * kTotalPoints], w_store[kTotalPoints];
static int expanded[kNumRules];

// The points of rule r into the stores, from its orbits.
static void Expand(int r) {
  int dim = kRules[r][0] == BLAST_GEOM_TRIANGLE ? 2 : 3, nv = dim + 1;
  int offset = 0;
  for (int s = 0; s < r; s++) offset += kRules[s][4];
  int n = 0;
  for (int o = kRules[r][3]; o < kRules[r][3] + kRules[r][2]; o++) {
    const double *lam = &kOrbits[o][1];
    int first = n;
    int perm[4] = {0, 1, 2, 3};
    // all permutations of nv indices in lexicographic order (next_permutation)
    for (;;) {
      double mu[4];
      for (int i = 0; i < nv; i++) mu[i] = lam[perm[i]];
      int seen = 0;
      for (int p = first; p < n && !seen; p++) {
        int same = 1;
        for (int g = 0; g < dim; g++) same &= xi_store[3 * offset + p * dim + g] == mu[g + 1];
        seen = same;
      }
      if (!seen) {
        for (int g = 0; g < dim; g++) xi_store[3 * offset + n * dim + g] = mu[g + 1];
        w_store[offset + n] = kOrbits[o][0];
        n++;
      }
      int i = nv - 2;
      while (i >= 0 && perm[i] >= perm[i + 1]) i--;
      if (i < 0) break;
      int j = nv - 1;
      while (perm[j] <= perm[i]) j--;
      int t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
      for (int a = i + 1, b = nv - 1; a < b; a++, b--) {
        t = perm[a];
        perm[a] = perm[b];
        perm[b] = t;
      }
    }
  }
  (void)n;  // equals kRules[r][4] (the generator checks the count)
}

int BlastSimplexSymmetricRule(int geom, int q, int *npts, const double **xi, const double **w) {
  int best = -1;
  for (int r = 0; r < kNumRules; r++)
    if (kRules[r][0] == geom && kRules[r][1] >= (q > 0 ? q : 0) &&
        (best < 0 || kRules[r][4] < kRules[best][4]))
      best = r;
  if (best < 0) return 0;
  int offset = 0;
  for (int s = 0; s < best; s++) offset += kRules[s][4];
#pragma omp critical(blast_simplex_rules)
  {
    if (!expanded[best]) Expand(best);
    expanded[best] = 1;
  }
  *npts = kRules[best][4];
  *xi = &xi_store[3 * offset];
  *w = &w_store[offset];
  return 1;
}

int BlastSimplexSymmetricMaxDegree(int geom) {
  int m = 0;
  for (int r = 0; r < kNumRules; r++)
    if (kRules[r][0] == geom && kRules[r][1] > m) m = kRules[r][1];
  return m;
}
"""


def main():
    args = sys.argv[1:]
    if not args or args[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if args else 2
    if args[0] == "search":
        geom, q = args[1], int(args[2])
        opts = dict(zip(args[3::2], args[4::2]))
        npts0 = int(opts.get("--points", 0))
        starts = int(opts.get("--starts", 20))
        seed = int(opts.get("--seed", 0))
        maxpts = int(opts.get("--max-points", 100000))
        slack = int(opts.get("--slack", 2))
        if "--reduce" in opts:
            # --reduce S31:4,S22:3,... the starting composition
            start = []
            for item in opts["--reduce"].split(","):
                k, c = item.split(":")
                start += [k] * int(c)
            best = reduce_rule(geom, q, start, starts, seed)
            res = best[1:] if best else None
        else:
            res = search(geom, q, npts0, starts, seed, maxpts, slack)
        if res is None:
            print("no rule found")
            return 1
        comp, x = res
        rules = read_orbits()
        old = rules.get((geom, q))
        newn = sum(ORBITS[geom][k][1] for k in comp)
        if old is None or npoints(geom, old) > newn:
            rules[(geom, q)] = [(k, [decimal.Decimal(repr(v)) for v in [W] + list(t)]) for k, (W, t) in zip(comp, unpack_generic(geom, comp, x))]
            write_orbits(rules)
            print("stored")
        return 0
    if args[0] == "generate":
        bad = [a for a in args[1:] if a not in ("--check", "--table")]
        if not bad:
            return generate("--check" in args)
        args = bad
    print("simplex_quadrature.py: unknown argument '%s' (see simplex_quadrature.py --help)"
          % args[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
