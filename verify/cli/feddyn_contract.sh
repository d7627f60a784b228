#!/usr/bin/env bash
# FedDyn on the command line (docs/THEORY-FedDyn.md (FD0)–(FD3); its parameter --dyn-alpha,
# theory/problems/feddyn_setting.hpp):
#  - predict gives the exact fields of x and of the stacked state (x, h_1, …, h_N) on a quadratic
#    problem, echoes the parameter, and its exact mean is the problem's x* (FD2) to 1e-10 relative
#    (x* read from FedAvg's first-order output: the same minimiser, computed independently);
#  - simulate runs and echoes the parameter;
#  - bad input exits 2 with one stderr line naming the flag: --dyn-alpha missing, ≤ 0, given to
#    another algorithm; --gamma beyond stability.
# Usage: bash feddyn_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
PROBLEM="$SOURCE_DIR/examples/problems/quadratic.json"
common=(--problem "$PROBLEM" --gamma 0.05 --local-steps 5)

if "$FEDVERIFY" predict --algo feddyn --dyn-alpha 0.1 "${common[@]}" > "$WORK/p.json" \
    2> "$WORK/err.txt" &&
    "$FEDVERIFY" predict --algo fedavg "${common[@]}" > "$WORK/avg.json" &&
    python3 - "$WORK/p.json" "$WORK/avg.json" << 'PY'
import json, math, sys
o = json.load(open(sys.argv[1]))
x_star = json.load(open(sys.argv[2]))["x_star"]
assert o["algorithm"] == "feddyn", o["algorithm"]
assert o["parameters"] == {"dyn_alpha": 0.1}, o.get("parameters")
d = len(x_star)
assert len(o["mean_exact"]) == d and len(o["stacked_mean_exact"]) == 4 * d  # N = 3
err = math.dist(o["mean_exact"], x_star) / math.hypot(*x_star)
assert err <= 1e-10, err
assert 0 < o["spectral_radius"] < 1, o["spectral_radius"]
PY
then echo "ok: predict --algo feddyn (mean_exact = x*)"; else fail "predict feddyn: $(head -c 300 "$WORK/err.txt")"; fi

if "$FEDVERIFY" simulate --algo feddyn --dyn-alpha 0.1 "${common[@]}" --chains 64 --rounds 200 \
    --burn-in 50 --seed 7 --threads 2 > "$WORK/s.json" 2> "$WORK/err.txt" &&
    python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); assert o["parameters"] == {"dyn_alpha": 0.1} and len(o["mean"]) > 0' "$WORK/s.json"; then
  echo "ok: simulate --algo feddyn"
else
  fail "simulate feddyn: $(head -c 300 "$WORK/err.txt")"
fi

expect_error "feddyn without --dyn-alpha" "--dyn-alpha" predict --algo feddyn "${common[@]}"
expect_error "feddyn --dyn-alpha 0" "--dyn-alpha" predict --algo feddyn --dyn-alpha 0 "${common[@]}"
expect_error "feddyn --dyn-alpha -1" "--dyn-alpha" simulate --algo feddyn --dyn-alpha -1 \
  "${common[@]}" --chains 8 --rounds 10
expect_error "--dyn-alpha with fedavg" "--dyn-alpha" predict --algo fedavg --dyn-alpha 0.1 \
  "${common[@]}"
expect_error "feddyn unstable gamma" "--gamma" predict --algo feddyn --dyn-alpha 0.1 \
  --problem "$PROBLEM" --gamma 5 --local-steps 5

finish "feddyn contract"
