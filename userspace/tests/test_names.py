#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""gpsphcd's one table of enum words (lib/names.c, printed by names_dump)
against the source of truth, the family's YAML spec
(Documentation/netlink/specs/gpsphc.yaml), and against the words the
kernel's sysfs files print (kmod/sysfs.c, and kmod/clock_fields.c for
the servo's status), so the three cannot drift:

- every enum of the spec is in the table, each value with the entry's
  name, and "unknown" below and above its values;
- every counter key of --status is the name of its attribute (by number)
  in its set with '_' for '-', and every counter of the stats set is
  shown;
- every "[GPSPHC_<ENUM>_<ENTRY>] = "word"" of those kmod/ files is the
  spec's entry name;
- servo_status.c's decoder of the servo nest names each attribute of
  the servo set as the spec does, and takes exactly the payload length
  of its spec type (u32 4 bytes, u64 and s64 8, flag none; pad any).

TAP output. Needs python3-yaml (tools/testing/vm/deps.sh installs it).
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..")
SPEC = os.path.join(TOP, "Documentation", "netlink", "specs", "gpsphc.yaml")
SYSFS = ("sysfs.c", "clock_fields.c")
DUMP = os.environ.get("NAMES_DUMP", os.path.join(HERE, "..", "build",
                                                 "names_dump"))

n = 0
failed = 0


def ok(good, what, why=""):
    global n, failed
    n += 1
    if good:
        print(f"ok {n} {what}")
    else:
        failed += 1
        print(f"not ok {n} {what}")
        for line in why.splitlines():
            print(f"#   {line}")


try:
    import yaml
except ImportError:
    print("1..0 # SKIP python3-yaml is missing: install it "
          "(apt-get install python3-yaml, or tools/testing/vm/deps.sh)")
    sys.exit(0)

with open(SPEC) as f:
    spec = yaml.safe_load(f)

# The spec's enums: {name: {value: entry name}}, and the uAPI constant
# of each entry: {"GPSPHC_EDGE_RISING": ("edge", "rising")}.
enums, consts = {}, {}
for d in spec.get("definitions", []):
    if d.get("type") != "enum":
        continue
    v = d.get("value-start", 0)
    prefix = d.get("name-prefix", f"{spec['name']}-{d['name']}-")
    vals = {}
    for e in d["entries"]:
        name = e["name"] if isinstance(e, dict) else e
        if isinstance(e, dict) and "value" in e:
            v = e["value"]
        vals[v] = name
        consts[(prefix + name).upper().replace("-", "_")] = (d["name"], name)
        v += 1
    enums[d["name"]] = vals

# The attribute sets: {set: {number: name}}, and {set: {number: type}}.
attrs, types = {}, {}
for aset in spec.get("attribute-sets", []):
    v, names, kinds = 0, {}, {}
    for a in aset["attributes"]:
        v = a.get("value", v)
        names[v] = a["name"]
        kinds[v] = a["type"]
        v += 1
    attrs[aset["name"]] = names
    types[aset["name"]] = kinds

out = subprocess.run([DUMP], capture_output=True, text=True, check=True)
table, keys, policy = {}, {"stats": [], "servo": []}, {}
for line in out.stdout.splitlines():
    w = line.split()
    if w[0] == "enum":
        table.setdefault(w[1], {})[int(w[2])] = w[3]
    elif w[0] == "servo-attr":
        policy[int(w[1])] = (w[2], w[3] if len(w) > 3 else "")
    else:
        keys[w[0]].append((int(w[1]), w[2]))

ok(sorted(table) == sorted(enums), "the table has every enum of the spec",
   f"table: {sorted(table)}\nspec:  {sorted(enums)}")
for name, vals in sorted(enums.items()):
    want = {v: vals.get(v, "unknown")
            for v in range(min(vals) - 1, max(vals) + 2) if v >= 0}
    got = {v: w for v, w in table.get(name, {}).items() if v in want}
    ok(got == want, f"enum {name}: the spec's entry names, \"unknown\" else",
       f"table: {got}\nspec:  {want}")

for s in ("stats", "servo"):
    bad = [f"{a} {k}, the spec's {a} is {attrs[s].get(a)}"
           for a, k in keys[s] if k.replace("_", "-") != attrs[s].get(a)]
    ok(keys[s] and not bad,
       f"{s} counter keys are the spec's {s} attribute names",
       "\n".join(bad))
shown = {a for a, k in keys["stats"]}
missing = [n for a, n in attrs["stats"].items()
           if a not in shown and n not in ("unspec", "pad")]
ok(not missing, "every stats counter of the spec is shown",
   f"not in lib/names.c: {missing}")

# The payload lengths (of 0..16, as names_dump tries) each type takes.
LENS = {"u32": "4", "u64": "8", "s64": "8", "flag": "0",
        "pad": ",".join(str(i) for i in range(17))}
want = {a: (n, LENS.get(types["servo"][a], "?"))
        for a, n in attrs["servo"].items() if types["servo"][a] != "unused"}
bad = [f"{a}: decoder {policy.get(a)}, spec {w}"
       for a, w in sorted(want.items()) if policy.get(a) != w]
bad += [f"{a}: decoder {p}, not in the spec"
        for a, p in sorted(policy.items()) if a not in want]
ok(policy and not bad,
   "servo_status.c's policy: the spec's servo attribute names and types",
   "\n".join(bad))

words = []
for name in SYSFS:
    with open(os.path.join(TOP, "kmod", name)) as f:
        words += re.findall(r'\[(GPSPHC_[A-Z0-9_]+)\]\s*=\s*"([^"]*)"',
                            f.read())
words = [(c, w) for c, w in words if c in consts]
bad = [f"{c} = \"{w}\", the spec says \"{consts[c][1]}\""
       for c, w in words if w != consts[c][1]]
if words:
    ok(not bad, f"kmod/{' and '.join(SYSFS)}'s {len(words)} words are "
       "the spec's",
       "\n".join(bad))
else:
    n += 1
    print(f"ok {n} # SKIP kmod/{' and '.join(SYSFS)} have no "
          "[GPSPHC_*] = \"word\" tables")

print(f"1..{n}")
print(f"# {n - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
