#!/usr/bin/env bash
# ctest report.mpi_equality (registered when fedverify is built with MPI): the same report from
# one process and from NP MPI ranks on this machine — same exit code, same results.json (wall
# times aside), same REPORT.md (times aside), same figures byte for byte (compare_reports.py).
# The single process runs with all its threads, the ranks share the machine's threads, so this
# also compares thread counts. Then it checks that the comparison can fail: one changed number
# in results.json and one changed byte of a figure are each reported.
#   report_ranks_equal.sh <fedverify> <mpiexec> <np> [report options, e.g. --quick --only 'maps.*']
set -u
fedverify=${1:?usage: report_ranks_equal.sh <fedverify> <mpiexec> <np> [report options]}
mpiexec=${2:?mpiexec}
np=${3:?np}
shift 3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Open MPI: allowed as root (containers, CI), more ranks than cores when the machine is small,
# and no cross-memory attach between ranks (containers without ptrace refuse it; copies instead).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none

start=$(date +%s%N)
"$fedverify" report "$@" --out "$work/one" 2> "$work/one.err"
rc_one=$?
middle=$(date +%s%N)
"$mpiexec" -n "$np" "$fedverify" report "$@" --out "$work/ranks" 2> "$work/ranks.err"
rc_ranks=$?
end=$(date +%s%N)
echo "one process: exit $rc_one, $(((middle - start) / 1000000)) ms; $np ranks: exit $rc_ranks, $(((end - middle) / 1000000)) ms"
cat "$work/one.err" "$work/ranks.err"

failures=0
if [ "$rc_one" -gt 1 ] || [ "$rc_ranks" != "$rc_one" ]; then
  echo "FAIL: exit codes differ or an error (one process $rc_one, $np ranks $rc_ranks)"
  failures=$((failures + 1))
fi
if [ "$(grep -c "fedverify report:" "$work/ranks.err")" != 1 ]; then
  echo "FAIL: the ranks printed the summary line $(grep -c "fedverify report:" "$work/ranks.err") times (expected once: rank 0)"
  failures=$((failures + 1))
fi
if ! python3 "$here/compare_reports.py" "$work/one" "$work/ranks"; then
  echo "FAIL: the report of $np ranks differs from the single process's"
  failures=$((failures + 1))
fi

# The comparison can fail: a number changed by one unit in the last place, a figure's byte.
cp -r "$work/one" "$work/planted"
python3 - "$work/planted/results.json" <<'PY'
import json, math, sys
path = sys.argv[1]
r = json.load(open(path))
def bump(x):
    if isinstance(x, dict):
        for k, v in x.items():
            if k != "seconds" and isinstance(v, float) and math.isfinite(v) and v != 0:
                x[k] = math.nextafter(v, math.inf)
                return True
            if bump(v):
                return True
    elif isinstance(x, list):
        return any(bump(v) for v in x)
    return False
assert bump(r["claims"]), "no number to perturb"
json.dump(r, open(path, "w"), indent=1)
PY
if python3 "$here/compare_reports.py" "$work/one" "$work/planted" > /dev/null; then
  echo "FAIL: a number changed in its last bit was not reported"
  failures=$((failures + 1))
fi
rm -rf "$work/planted" && cp -r "$work/one" "$work/planted"
svg=$(find "$work/planted" -name '*.svg' | sort | head -1)
if [ -n "$svg" ]; then
  printf ' ' >> "$svg"
  if python3 "$here/compare_reports.py" "$work/one" "$work/planted" > /dev/null; then
    echo "FAIL: a changed figure was not reported"
    failures=$((failures + 1))
  fi
fi
[ "$failures" -eq 0 ] && echo "PASS: $np ranks give the single process's report"
exit $((failures > 0))
