#!/usr/bin/env python3
"""The files of a visualization time series, as a reader sees them (io/viz.h).

    test_viz_files.py XMLLINT VIZ_DIR...

For each folder (left by test_viz on 3 ranks):
  1. blast.xdmf is well-formed XML (xmllint --noout) and a temporal collection of one
     uniform grid per dump, with increasing times;
  2. every DataItem "file.h5:/dataset" names an existing file and dataset whose shape,
     number type and precision are those declared; topology type, NumberOfElements and
     the vertices per cell match the dimension; attribute centering matches the sizes;
  3. each dump opens with h5py: coordinates [nvert][3] (unused components 0), topology
     [ncell][2^dim] with ids in range and every vertex used, cell fields [ncell], vertex
     fields [nvert] (velocity [nvert][3]), finite values, density > 0, 3 ranks in /rank;
     attributes time and step equal the XDMF's.
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

failures = []


def check(cond, what):
    if not cond:
        print("FAIL  " + what)
        failures.append(what)
    return cond


def data_item(folder, item):
    """The h5py dataset of an XDMF DataItem, after checking its declaration."""
    ref = item.text.strip()
    fname, _, dset = ref.partition(":")
    path = os.path.join(folder, fname)
    if not check(item.get("Format") == "HDF" and os.path.isfile(path) and dset.startswith("/"),
                 "%s: DataItem %s names no HDF5 file" % (folder, ref)):
        return None, None
    dims = tuple(int(d) for d in item.get("Dimensions").split())
    f = h5py.File(path, "r")
    if not check(dset in f, "%s: %s has no dataset %s" % (folder, fname, dset)):
        return None, None
    d = f[dset]
    check(d.shape == dims, "%s: %s shape %s, declared %s" % (folder, ref, d.shape, dims))
    kind = {"Float": "f", "Int": "i"}[item.get("NumberType")]
    prec = int(item.get("Precision"))
    check(d.dtype.kind == kind and d.dtype.itemsize == prec,
          "%s: %s is %s, declared %s%d" % (folder, ref, d.dtype, kind, prec))
    return f, d


def check_folder(xmllint, folder):
    xdmf = os.path.join(folder, "blast.xdmf")
    p = subprocess.run([xmllint, "--noout", xdmf], capture_output=True, text=True)
    check(p.returncode == 0, "xmllint %s: %s" % (xdmf, p.stderr.strip()))
    root = ET.parse(xdmf).getroot()
    check(root.tag == "Xdmf", "root element %s" % root.tag)
    info = root.find("Domain/Information")
    check(info is not None and info.get("Name") == "materials" and
          info.get("Value") == "0: gas (ideal_gas, gamma = 1.4, p_inf = 0)", "XDMF materials %r" %
          (None if info is None else info.attrib))
    series = root.find("Domain/Grid")
    check(series is not None and series.get("GridType") == "Collection"
          and series.get("CollectionType") == "Temporal", "%s: no temporal collection" % xdmf)
    grids = series.findall("Grid")
    check(len(grids) == 2, "%s: %d grids, want 2" % (xdmf, len(grids)))
    times = []
    for g in grids:
        t = float(g.find("Time").get("Value"))
        times.append(t)
        topo, geom = g.find("Topology"), g.find("Geometry")
        check(geom.get("GeometryType") == "XYZ", "geometry type")
        f, X = data_item(folder, geom.find("DataItem"))
        _, T = data_item(folder, topo.find("DataItem"))
        if f is None or X is None or T is None:
            continue
        dim = int(f.attrs["dim"])
        nvert, ncell = X.shape[0], T.shape[0]
        ttype = {1: "Polyline", 2: "Quadrilateral", 3: "Hexahedron"}[dim]
        check(topo.get("TopologyType") == ttype, "%s: topology %s in %dD" %
              (folder, topo.get("TopologyType"), dim))
        if dim == 1:
            check(topo.get("NodesPerElement") == "2", "1D polyline: NodesPerElement")
        check(int(topo.get("NumberOfElements")) == ncell, "NumberOfElements")
        check(X.shape[1] == 3 and T.shape[1] == 2 ** dim, "coordinates/topology widths")
        check(abs(float(f.attrs["time"]) - t) <= 1e-15 * max(1.0, abs(t)), "time attribute")
        check(g.get("Name") == "step_%d" % int(f.attrs["step"]), "grid name / step attribute")
        Xv, Tv = X[...], T[...]
        check(np.all(Xv[:, dim:] == 0.0) and np.all(np.isfinite(Xv)), "coordinates padded with 0")
        check(Tv.min() == 0 and Tv.max() == nvert - 1, "topology ids within [0, nvert)")
        check(len(np.unique(Tv)) == nvert, "every vertex belongs to a cell")
        names = set()
        for a in g.findall("Attribute"):
            name = a.get("Name")
            names.add(name)
            _, d = data_item(folder, a.find("DataItem"))
            if d is None:
                continue
            n = ncell if a.get("Center") == "Cell" else nvert
            check(a.get("Center") in ("Node", "Cell") and d.shape[0] == n,
                  "%s: %s centering %s with %d rows" % (folder, name, a.get("Center"), d.shape[0]))
            vec = a.get("AttributeType") == "Vector"
            check((d.ndim == 2 and d.shape[1] == 3) if vec else d.ndim == 1,
                  "%s: %s shape %s for a %s" % (folder, name, d.shape, a.get("AttributeType")))
            v = d[...]
            check(np.all(np.isfinite(v)), "%s: %s not finite" % (folder, name))
            if name == "density":
                check(v.min() > 0, "%s: density min %g" % (folder, v.min()))
            if name == "rank":
                check(sorted(np.unique(v)) == [0, 1, 2], "%s: ranks %s" % (folder, np.unique(v)))
            if name == "attribute":
                check(set(np.unique(v)) <= {1, 2, 3}, "%s: attributes %s" % (folder, np.unique(v)))
            if name == "material":  # Sedov: one material, index 0, named gas
                check(set(np.unique(v)) == {0}, "%s: materials %s" % (folder, np.unique(v)))
                text = f.attrs["materials"]
                text = text.decode() if isinstance(text, bytes) else str(text)
                check(text == "0: gas (ideal_gas, gamma = 1.4, p_inf = 0)",
                      "%s: materials attribute %r" % (folder, text))
        want = {"density", "velocity", "specific_internal_energy", "pressure", "sound_speed",
                "material", "attribute", "rank", "zone"}
        check(names == want, "%s: attributes %s" % (folder, sorted(names)))
        print("ok    %s %s: t = %g, %dD, %d vertices, %d cells, %d fields" %
              (folder, g.get("Name"), t, dim, nvert, ncell, len(names)))
    check(times == sorted(times) and len(set(times)) == len(times), "increasing times %s" % times)


def main():
    xmllint, folders = sys.argv[1], sys.argv[2:]
    for folder in folders:
        check_folder(xmllint, folder)
    print("test_viz_files: %s" % ("FAIL (%d)" % len(failures) if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
