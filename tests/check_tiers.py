#!/usr/bin/env python3
"""Every registered test carries exactly one tier label, tier-fast or tier-full.

usage: check_tiers.py CTEST BUILD_DIR   (prints the count of each tier)
"""
import json, subprocess, sys

ctest, build = sys.argv[1], sys.argv[2]
out = subprocess.run([ctest, "--test-dir", build, "--show-only=json-v1"], capture_output=True,
                     text=True, check=True).stdout
tests = json.loads(out)["tests"]
count, bad = {"tier-fast": 0, "tier-full": 0}, []
for t in tests:
    labels = []
    for p in t.get("properties", []):
        if p["name"] == "LABELS":
            labels = p["value"]
    tiers = [x for x in labels if x.startswith("tier-")]
    if len(tiers) != 1 or tiers[0] not in count:
        bad.append("%s: tier labels %s" % (t["name"], tiers or "none"))
    else:
        count[tiers[0]] += 1
for b in bad:
    print("FAIL", b)
print("%d tests: %d in tier-fast, %d in tier-full%s" % (len(tests), count["tier-fast"], count["tier-full"],
      "" if not bad else ", %d without exactly one tier" % len(bad)))
sys.exit(1 if bad or not count["tier-fast"] else 0)
