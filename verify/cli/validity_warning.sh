#!/usr/bin/env bash
# `fedverify predict` warns on stderr when its first-order prediction is used far outside its
# validity (issue 31 item 5; reports/runs/validity_warning.hpp): γHL > 1, where the neglected
# O((γHL)²) terms of the local steps' expansion exceed half the kept first-order ones. The
# warning is one stderr line; stdout (the JSON) and the exit code are those of a run without it.
# The example problem's L is the largest Hessian eigenvalue, 3.02 (examples/problems/quadratic.json).
# Usage: bash validity_warning.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
P="$SOURCE_DIR/examples/problems/quadratic.json"
L=$(/usr/bin/python3 -c 'import json, sys, numpy as np; print(max(np.linalg.eigvalsh(np.array(c["hessian"])).max() for c in json.load(open(sys.argv[1]))["clients"]))' "$P")

# run <gamma> <H>: predict; stdout in out.json, stderr in err.txt, exit code in $rc.
run() {
  "$FEDVERIFY" predict --problem "$P" --algo fedavg --gamma "$1" --local-steps "$2" > "$WORK/out.json" 2> "$WORK/err.txt"
  rc=$?
}
for case in "0.05 5" "0.1 3"; do   # γHL = 0.76 and 0.91 (< 1): no warning
  run $case
  if [ "$rc" -ne 0 ] || [ -s "$WORK/err.txt" ]; then
    fail "gamma H = $case (gamma*H*L < 1): exit $rc, stderr: $(cat "$WORK/err.txt")"
  else
    echo "ok: gamma H = $case: no warning"
  fi
done
for case in "0.05 1000000000" "0.2 5" "0.05 20"; do   # γHL = 1.5e8, 3.0, 3.0
  run $case
  expected=$(/usr/bin/python3 -c "import sys; g, h = map(float, sys.argv[1].split()); print(f'{g * h * float(sys.argv[2]):.3g}')" "$case" "$L")
  if [ "$rc" -ne 0 ]; then
    fail "gamma H = $case: exit $rc, expected 0 (a warning is no error): $(cat "$WORK/err.txt")"
  elif [ "$(wc -l < "$WORK/err.txt")" -ne 1 ] || ! grep -q "fedverify: warning: gamma\*H\*L = $expected " "$WORK/err.txt"; then
    fail "gamma H = $case: expected one warning line naming gamma*H*L = $expected: $(cat "$WORK/err.txt")"
  elif ! /usr/bin/python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); assert "mean_first_order" in o and "mean_exact" in o' "$WORK/out.json"; then
    fail "gamma H = $case: stdout is not predict's JSON"
  else
    echo "ok: gamma H = $case: $(cut -c1-110 "$WORK/err.txt")…"
  fi
done
# Linear-sa closed forms are linear in H (theory/closed_forms/linear_sa_moments.hpp): a billion
# local steps is refused at once (exit 2 naming --local-steps and --max-seconds), not run for hours.
for kind in linear-sa-td-d3 least-squares-d2; do
  start=$(date +%s)
  timeout 60 "$FEDVERIFY" predict --problem "$SOURCE_DIR/examples/problems/$kind.json" --algo fedavg \
    --gamma 1e-6 --local-steps 1000000000 > "$WORK/out.json" 2> "$WORK/err.txt"
  rc=$?
  took=$(( $(date +%s) - start ))
  if [ "$rc" -ne 2 ] || ! grep -q -- "--local-steps: .*--max-seconds" "$WORK/err.txt" || [ "$took" -gt 5 ]; then
    fail "$kind, H = 1e9: expected exit 2 at once naming --local-steps and --max-seconds, got exit $rc after $took s: $(cat "$WORK/err.txt")"
  else
    echo "ok: $kind, H = 1e9 refused in $took s: $(cut -c1-100 "$WORK/err.txt")…"
  fi
done
finish "predict validity warning"
