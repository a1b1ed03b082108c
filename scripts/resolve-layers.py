#!/usr/bin/env python3
"""What resolves did with the undecided samples, layer by layer.

    scripts/resolve-layers.py OUT

OUT is a directory of scripts/resolve-catalogued.sh: per estimate ID,
OUT/ID/from/ID.json (the document resolved) and OUT/ID/estimate-*.json
(the resolve's documents, whole or partial; the newest is read). Prints,
per seed, what its resolve searched, decided and left untried, then per
layer over the seeds: the undecided samples listed, those searched,
found reachable, proven unreachable and still undecided.
"""
import collections
import glob
import json
import os
import sys

out = sys.argv[1]
rows = collections.defaultdict(collections.Counter)
for d in sorted(glob.glob(os.path.join(out, "*", "from"))):
    sid = os.path.basename(os.path.dirname(d))
    docs = sorted(glob.glob(os.path.join(out, sid, "estimate-*.json")))
    if not docs:
        continue
    doc = json.load(open(docs[-1]))
    src = json.load(open(os.path.join(d, sid + ".json")))
    r = doc["resolved"]
    print(f"seed {doc['seed']}: {os.path.basename(docs[-1])}: searched {r['retried']}, decided {r['decided']}, "
          f"untried {r.get('untried', 0)}, {r['seconds']:.0f} s of searching in its last run, {doc['threads']} threads")
    before = {layer["discs"]: layer["tally"] for layer in src["layers"]}
    for layer in doc["layers"]:
        k, t, b = layer["discs"], layer["tally"], before[layer["discs"]]
        untried = sum(1 for u in doc["undecided_samples"] if u["discs"] == k and u.get("untried"))
        c = rows[k]
        c["listed"] += b["undecided"]
        c["untried"] += untried
        c["reachable"] += t["reachable"] - b["reachable"]
        c["unreachable"] += t["unreachable"] - b["unreachable"]
        c["still"] += t["undecided"] - untried
print("discs listed  tried reachable unreachable  still")
total = collections.Counter()
for k in sorted(rows):
    c = rows[k]
    if c["listed"] == 0:
        continue
    print(f"{k:5} {c['listed']:6} {c['listed'] - c['untried']:6} {c['reachable']:9} {c['unreachable']:11} {c['still']:6}")
    total.update(c)
print(f"total {total['listed']:6} {total['listed'] - total['untried']:6} {total['reachable']:9} "
      f"{total['unreachable']:11} {total['still']:6}")
