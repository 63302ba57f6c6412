#!/usr/bin/env python3
"""Convert a 2D Gmsh mesh (MSH 2.2 ASCII: gmsh -2 file.geo -format msh2) of straight-sided
quadrilaterals into MFEM's mesh format v1.0, the format blast_gpu reads.

Zones are the 4-node quadrilaterals (Gmsh type 3), their attribute the physical surface
tag; boundary faces are the 2-node segments (type 1), their attribute the physical curve
tag. Vertices no element uses are dropped; zones are made counter-clockwise (MFEM's
orientation, positive Jacobian). Triangles or other elements are an error: recombine them
(Mesh.RecombineAll = 1 in the .geo).

usage: gmsh_to_mfem.py in.msh out.mesh [--comment TEXT]
"""
import argparse
import sys


def read_msh2(path):
    with open(path) as f:
        lines = [ln.strip() for ln in f]
    nodes, elems, i = {}, [], 0
    while i < len(lines):
        tag = lines[i]
        if tag == "$MeshFormat":
            version = lines[i + 1].split()
            if not version[0].startswith("2") or version[1] != "0":
                sys.exit("%s: not an ASCII MSH 2 file (use gmsh -format msh2)" % path)
        elif tag == "$Nodes":
            n = int(lines[i + 1])
            for ln in lines[i + 2:i + 2 + n]:
                p = ln.split()
                nodes[int(p[0])] = (float(p[1]), float(p[2]), float(p[3]))
            i += n + 1
        elif tag == "$Elements":
            n = int(lines[i + 1])
            for ln in lines[i + 2:i + 2 + n]:
                p = [int(v) for v in ln.split()]
                etype, ntags = p[1], p[2]
                tags, verts = p[3:3 + ntags], p[3 + ntags:]
                elems.append((etype, tags[0] if tags else 1, verts))
            i += n + 1
        i += 1
    return nodes, elems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("msh", nargs="?")
    ap.add_argument("mesh", nargs="?")
    ap.add_argument("--comment", default="")
    a, unknown = ap.parse_known_args()
    if unknown:
        ap.error("unknown argument '%s'" % unknown[0])
    if a.mesh is None:
        ap.error("needs the Gmsh file to read and the MFEM mesh file to write")
    nodes, elems = read_msh2(a.msh)
    quads = [(attr, v) for t, attr, v in elems if t == 3]
    segs = [(attr, v) for t, attr, v in elems if t == 1]
    other = sorted({t for t, _, _ in elems if t not in (1, 3, 15)})
    if other:
        sys.exit("%s: element types %s are not straight-sided quadrilaterals or boundary "
                 "segments (set Mesh.RecombineAll = 1)" % (a.msh, other))
    if not quads:
        sys.exit("%s: no quadrilaterals" % a.msh)
    used = sorted({v for _, vs in quads for v in vs})
    index = {g: k for k, g in enumerate(used)}
    for _, vs in segs:
        for v in vs:
            if v not in index:
                sys.exit("%s: boundary node %d belongs to no zone" % (a.msh, v))
    out = ["MFEM mesh v1.0", ""]
    if a.comment:
        out += ["# " + ln for ln in a.comment.splitlines()] + [""]
    out += ["dimension", "2", "", "elements", str(len(quads))]
    for attr, vs in quads:
        x = [nodes[v] for v in vs]
        area2 = sum(x[k][0] * x[(k + 1) % 4][1] - x[(k + 1) % 4][0] * x[k][1] for k in range(4))
        if area2 < 0:
            vs = [vs[0], vs[3], vs[2], vs[1]]
        out.append("%d 3 %s" % (attr, " ".join(str(index[v]) for v in vs)))
    out += ["", "boundary", str(len(segs))]
    for attr, vs in segs:
        out.append("%d 1 %s" % (attr, " ".join(str(index[v]) for v in vs)))
    out += ["", "vertices", str(len(used)), "2"]
    for g in used:
        out.append("%.17g %.17g" % nodes[g][:2])
    with open(a.mesh, "w") as f:
        f.write("\n".join(out) + "\n")
    print("%s: %d zones, %d boundary faces, %d vertices" % (a.mesh, len(quads), len(segs), len(used)))


if __name__ == "__main__":
    main()
