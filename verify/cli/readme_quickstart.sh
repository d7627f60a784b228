#!/usr/bin/env bash
# README.md's quick start runs as written (issue 31): the fenced ```sh blocks between the markers
# <!-- quickstart:begin --> and <!-- quickstart:end --> are extracted and run, in order, as one
# bash script with `set -euo pipefail`, in a scratch directory that holds the repository's
# examples/ (as a symbolic link) with the fedverify under test first on PATH. Then what the
# README says of their output is checked: predict prints x_star, mean_first_order, mean_exact;
# simulate's mean lies within 4.5 MCSE of predict's mean_exact in every coordinate (a
# deterministic run, seed 1; for a correct sampler a coordinate leaves ±4.5 MCSE with probability
# 7e-6); check exits 0 and writes REPORT.md. A quick start that rots (a renamed option, a moved
# example file, a changed output field) fails here.
# Usage: bash readme_quickstart.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
README="$SOURCE_DIR/README.md"
FEDVERIFY_DIR=$(cd "$(dirname "$FEDVERIFY")" && pwd)

/usr/bin/python3 - "$README" > "$WORK/quickstart.sh" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
begin, end = "<!-- quickstart:begin -->", "<!-- quickstart:end -->"
if text.count(begin) != 1 or text.count(end) != 1:
    sys.exit("README.md: expected one quickstart:begin and one quickstart:end marker")
section = text.split(begin)[1].split(end)[0]
blocks = re.findall(r"^```sh\n(.*?)^```$", section, flags=re.M | re.S)
if len(blocks) < 3:
    sys.exit(f"README.md: expected >= 3 sh blocks in the quick start, found {len(blocks)}")
print("set -euo pipefail")
for b in blocks:
    print(b)
PY
[ $? -eq 0 ] || { fail "could not extract the quick start"; finish "README quick start"; }
echo "ok: extracted $(grep -c '' "$WORK/quickstart.sh") lines of the quick start"

mkdir "$WORK/clone"
ln -s "$(cd "$SOURCE_DIR" && pwd)/examples" "$WORK/clone/examples"
start=$(date +%s)
(cd "$WORK/clone" && PATH="$FEDVERIFY_DIR:$PATH" bash "$WORK/quickstart.sh") \
  > "$WORK/stdout.txt" 2> "$WORK/stderr.txt"
rc=$?
elapsed=$(($(date +%s) - start))
if [ "$rc" -ne 0 ]; then
  fail "the quick start exited $rc: $(tail -3 "$WORK/stderr.txt")"
else
  echo "ok: the quick start ran in ${elapsed}s (exit 0)"
fi
/usr/bin/python3 - "$WORK/stdout.txt" "$WORK/clone/quickstart-check/REPORT.md" <<'PY' || fail "the quick start's output is not what README.md says"
import json, sys
objects = []
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.strip()
    if line.startswith("{"):
        objects.append(json.loads(line))
pred = next(o for o in objects if "mean_exact" in o)
for field in ("x_star", "mean_first_order", "bias_heterogeneity", "bias_stochastic", "cov_first_order", "cov_exact"):
    assert field in pred, f"predict: no {field}"
sim = next(o for o in objects if "mean_mcse" in o)
for field in ("mean", "cov", "ess", "rhat"):
    assert field in sim, f"simulate: no {field}"
for m, s, e in zip(sim["mean"], sim["mean_mcse"], pred["mean_exact"]):
    assert abs(m - e) <= 4.5 * s, f"simulate mean {m} is {abs(m - e) / s:.1f} MCSE from mean_exact {e}"
report = open(sys.argv[2], encoding="utf-8").read()
assert "holds" in report, "REPORT.md of check does not say the claim holds"
print("ok: predict and simulate print the fields README.md names; simulate's mean is within 4.5 MCSE of mean_exact; check's claim holds")
PY
finish "README quick start"
