#!/usr/bin/env python3
"""A region selected by zone attribute ([region.NAME] select = attributes 1) on a mesh whose
zones all have attribute 1 is the same problem as select = all: Sedov with its point
source (inputs/sedov2d_custom.ini), 20 steps, both selectors give the same bits (|e|,
energies, dt). The point deposit takes each zone's density from the zone's region.

    test_region_attributes.py BLAST_GPU WORKDIR INPUTS
"""
import json, os, shutil, subprocess, sys

blast, work, inputs = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
res = {}
for tag, sel in (("all", "all"), ("attr", "attributes 1")):
    out = os.path.join(work, tag)
    p = subprocess.run([blast, os.path.join(inputs, "sedov2d_custom.ini"), "region.gas.select=" + sel,
                        "time.max_steps=20", "output.dir=" + out, "checkpoint.at_end=false"],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        print("FAIL select = %s: exit %d\n%s" % (sel, p.returncode, (p.stdout + p.stderr)[-800:]))
        sys.exit(1)
    res[tag] = json.load(open(os.path.join(out, "summary.json")))
keys = ["steps", "t", "dt", "e_norm", "energy_internal", "energy_kinetic", "energy_total"]
bad = [k for k in keys if res["all"].get(k) != res["attr"].get(k)]
print("select = all: |e| = %r; select = attributes 1: |e| = %r" % (res["all"]["e_norm"], res["attr"]["e_norm"]))
print("FAIL: differ in %s" % bad if bad else "PASS: same bits")
sys.exit(1 if bad else 0)
