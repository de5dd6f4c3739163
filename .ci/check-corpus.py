#!/usr/bin/env python3
"""Judges a corpus run (run.py --json) against a list of known failures.

Usage: check-corpus.py RESULTS.json [LIST [KIND]]
  LIST defaults to .ci/corpus-known-defects.txt (cases that are themselves wrong); KIND names the
  entries in the report ("corpus defect" by default, "trident bug" for a backend's list of its
  own open bugs).

Every failing case must be listed; each listed case is printed with its evidence whether it
failed or not, so nothing is skipped silently and a fixed case is reported for removal. Exit 1 on
any other failure.
"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
list_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "corpus-known-defects.txt")
kind = sys.argv[3] if len(sys.argv) > 3 else "corpus defect"
known = {}
with open(list_path) as f:
    for line in f:
        if line.strip() and not line.startswith("#"):
            case, _, why = line.rstrip("\n").partition("\t")
            known[case.strip()] = why.strip()

results = json.load(open(sys.argv[1]))["results"]
unexpected = [r for r in results if r["status"] == "FAIL" and r["id"] not in known]
for r in results:
    if r["id"] in known:
        state = "fails as documented" if r["status"] == "FAIL" else f"now {r['status']}: remove it from the list"
        print(f"KNOWN {kind.upper()} {r['id']} ({state}): {known[r['id']]}")
for r in unexpected:
    print(f"UNEXPECTED FAIL {r['id']}: {r['reason']}")
passed = sum(r["status"] == "PASS" for r in results)
listed = sum(r["status"] == "FAIL" and r["id"] in known for r in results)
skipped = sum(r["status"] == "SKIP" for r in results)
print(f"corpus: {passed} passed, {len(unexpected)} failed, {skipped} skipped, {listed} known {kind}(s)")
sys.exit(1 if unexpected else 0)
