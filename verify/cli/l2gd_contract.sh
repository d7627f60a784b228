#!/usr/bin/env bash
# CLI contract of `fedverify predict|simulate --algo l2gd` (reports/runs/personalised_json.hpp):
#  - predict: exit 0, one JSON object with x_lambda (n rows of d numbers), p_star, alpha_max,
#    rate, sigma2, neighbourhood, mse_bound (101 values) and, for quadratic problems, mse_exact
#    (101 values); p defaults to p* = λ/(λ + L);
#  - simulate: exit 0, one JSON object with x_lambda, mse and mse_se (T + 1 values), final_mean
#    and final_se (n rows), rounds, averaging_steps, bits, uplink/downlink, diverged; the same
#    seed gives byte-identical output apart from the timing field;
#  - bad input: exit code 2 and exactly one stderr line naming the field (missing --lambda,
#    λ ≤ 0, p ∉ (0, 1), α ≤ 0, unknown or out-of-range compressor).
# Usage: bash l2gd_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"

# Problem files: the shipped examples (examples/problems) and a small quadratic problem written here.
example_problems
cat > "$WORK/quadratic.json" << 'JSON'
{"kind": "quadratic",
 "clients": [
  {"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]},
  {"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]},
  {"hessian": [[1.5, 0.0], [0.0, 0.5]], "optimum": [0.5, 2.0], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]}
 ]}
JSON
PROBLEMS+=("$WORK/quadratic.json")
good="$WORK/quadratic.json"

# check_predict <kind>: the predict JSON on stdin.
check_predict() {
  python3 -c '
import json, math, sys
out = json.load(sys.stdin)
n, d = out["num_clients"], out["dim"]
def finite(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
xl = out["x_lambda"]
assert isinstance(xl, list) and len(xl) == n, f"x_lambda: expected {n} rows"
assert all(len(r) == d and all(finite(v) for v in r) for r in xl), f"x_lambda: rows of {d} numbers"
for f in ["p_star", "alpha_max", "rate", "sigma2", "neighbourhood", "p", "lambda", "alpha"]:
    assert finite(out[f]), f"{f}: not a finite number"
lam, L = out["lambda"], out["L"]
assert abs(out["p_star"] - lam / (lam + L)) <= 1e-14, "p_star: not lambda/(lambda + L)"
assert 0 < out["rate"] < 1, "rate: not in (0, 1)"
assert out["sigma2"] >= 0 and out["neighbourhood"] >= 0, "sigma2/neighbourhood: negative"
b = out["mse_bound"]
assert len(b) == 101 and all(finite(v) for v in b), "mse_bound: expected 101 finite values"
if sys.argv[1] == "quadratic":
    e = out["mse_exact"]
    assert len(e) == 101 and all(finite(v) and v >= 0 for v in e), "mse_exact: expected 101 values"
else:
    assert "mse_exact" not in out, "mse_exact: present for a non-quadratic problem"
' "$1"
}

# check_simulate <T>: the simulate JSON on stdin.
check_simulate() {
  python3 -c '
import json, math, sys
out = json.load(sys.stdin)
T = int(sys.argv[1])
n, d = out["num_clients"], out["dim"]
def finite(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
assert out["diverged"] is False, "diverged: true for a stable step"
for f in ["mse", "mse_se", "mse_bound"]:
    v = out[f]
    assert len(v) == T + 1 and all(finite(x) and x >= 0 for x in v), f"{f}: expected {T + 1} values"
for f in ["x_lambda", "final_mean", "final_se"]:
    m = out[f]
    assert len(m) == n and all(len(r) == d and all(finite(x) for x in r) for r in m), f"{f}: {n} rows of {d}"
for f in ["rounds", "averaging_steps", "bits", "seconds"]:
    assert finite(out[f]) and out[f] >= 0, f"{f}: not a non-negative number"
assert out["rounds"] <= out["averaging_steps"] <= T, "rounds/averaging_steps: inconsistent"
for f in ["uplink", "downlink"]:
    assert "compressor" in out[f] and finite(out[f]["omega"]), f"{f}: compressor and omega"
assert out["chains"] == 16 and out["iterations"] == T, "chains/iterations: not echoed"
' "$1"
}

for problem in "${PROBLEMS[@]}"; do
  name=$(basename "$problem")
  kind=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["kind"])' "$problem")
  if ! "$FEDVERIFY" predict --problem "$problem" --algo l2gd --lambda 0.5 --gamma 0.1 \
      > "$WORK/predict.json" 2> "$WORK/err.txt"; then
    fail "$name predict: non-zero exit: $(cat "$WORK/err.txt")"
  elif ! check_predict "$kind" < "$WORK/predict.json" 2> "$WORK/py.txt"; then
    fail "$name predict: $(tail -1 "$WORK/py.txt")"
  else
    echo "ok: $name predict"
  fi
  compressors=(none)  # every compressor once, on the inline problem (keeps the script fast)
  [ "$problem" = "$good" ] && compressors=(none natural qsgd:2 random-k:1)
  for compressor in "${compressors[@]}"; do
    args=(--problem "$problem" --algo l2gd --lambda 0.5 --gamma 0.1 --chains 16 --rounds 40
          --seed 3 --uplink "$compressor" --downlink "$compressor")
    if ! "$FEDVERIFY" simulate "${args[@]}" > "$WORK/sim1.json" 2> "$WORK/err.txt"; then
      fail "$name simulate $compressor: non-zero exit: $(cat "$WORK/err.txt")"
      continue
    fi
    if ! check_simulate 40 < "$WORK/sim1.json" 2> "$WORK/py.txt"; then
      fail "$name simulate $compressor: $(tail -1 "$WORK/py.txt")"
      continue
    fi
    "$FEDVERIFY" simulate "${args[@]}" --threads 1 > "$WORK/sim2.json" 2> /dev/null
    if ! python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
a.pop("seconds"); b.pop("seconds")
sys.exit(0 if a == b else 1)' "$WORK/sim1.json" "$WORK/sim2.json"; then
      fail "$name simulate $compressor: same seed, different output with --threads 1"
    else
      echo "ok: $name simulate $compressor (same seed => same output with 1 thread)"
    fi
  done
done

sim=(--chains 8 --rounds 10 --seed 1)
for cmd in predict simulate; do
  extra=()
  [ "$cmd" = simulate ] && extra=("${sim[@]}")
  expect_error "$cmd: missing --lambda" "--lambda" $cmd --problem "$good" --algo l2gd --gamma 0.1 "${extra[@]}"
  expect_error "$cmd: lambda = 0" "--lambda" $cmd --problem "$good" --algo l2gd --lambda 0 --gamma 0.1 "${extra[@]}"
  expect_error "$cmd: lambda < 0" "--lambda" $cmd --problem "$good" --algo l2gd --lambda=-1 --gamma 0.1 "${extra[@]}"
  expect_error "$cmd: p = 0" "--p" $cmd --problem "$good" --algo l2gd --lambda 0.5 --p 0 --gamma 0.1 "${extra[@]}"
  expect_error "$cmd: p = 1" "--p" $cmd --problem "$good" --algo l2gd --lambda 0.5 --p 1 --gamma 0.1 "${extra[@]}"
  expect_error "$cmd: p > 1" "--p" $cmd --problem "$good" --algo l2gd --lambda 0.5 --p 1.5 --gamma 0.1 "${extra[@]}"
  expect_error "$cmd: alpha = 0" "--gamma" $cmd --problem "$good" --algo l2gd --lambda 0.5 --gamma 0 "${extra[@]}"
  expect_error "$cmd: alpha < 0" "--gamma" $cmd --problem "$good" --algo l2gd --lambda 0.5 --gamma=-0.1 "${extra[@]}"
done
l2gd=(simulate --problem "$good" --algo l2gd --lambda 0.5 --gamma 0.1 "${sim[@]}")
expect_error "unknown uplink compressor" "--uplink" "${l2gd[@]}" --uplink topk:1
expect_error "random-k without k" "--uplink" "${l2gd[@]}" --uplink random-k:
expect_error "random-k with k > d" "--uplink" "${l2gd[@]}" --uplink random-k:3
expect_error "random-k with k = 0" "--downlink" "${l2gd[@]}" --downlink random-k:0
expect_error "qsgd with 0 levels" "--downlink" "${l2gd[@]}" --downlink qsgd:0

finish "l2gd contract"
