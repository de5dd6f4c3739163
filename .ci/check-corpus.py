#!/usr/bin/env python3
"""Judges a corpus run (run.py --json) against .ci/corpus-known-defects.txt.

Every failing case must be a listed corpus defect; each listed defect is printed with its
evidence whether it failed or not, so nothing is skipped silently. Exit 1 on any other failure.
"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
known = {}
with open(os.path.join(here, "corpus-known-defects.txt")) as f:
    for line in f:
        if line.strip() and not line.startswith("#"):
            case, _, why = line.rstrip("\n").partition("\t")
            known[case.strip()] = why.strip()

results = json.load(open(sys.argv[1]))["results"]
unexpected = [r for r in results if r["status"] == "FAIL" and r["id"] not in known]
for r in results:
    if r["id"] in known:
        state = "fails as documented" if r["status"] == "FAIL" else f"now {r['status']}: remove it from the list"
        print(f"KNOWN CORPUS DEFECT {r['id']} ({state}): {known[r['id']]}")
for r in unexpected:
    print(f"UNEXPECTED FAIL {r['id']}: {r['reason']}")
passed = sum(r["status"] == "PASS" for r in results)
defects = sum(r["status"] == "FAIL" and r["id"] in known for r in results)
skipped = sum(r["status"] == "SKIP" for r in results)
# Documented defects are counted as skipped: the case itself is wrong (evidence printed above).
print(f"corpus: {passed} passed, {len(unexpected)} failed, {skipped + defects} skipped")
sys.exit(1 if unexpected else 0)
