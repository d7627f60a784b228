#!/usr/bin/env bash
# Contract of `fedverify simulate` (docs/CLI.md): JSON fields, same seed ⇒ identical output for 1
# and 2 threads, exit code 2 with one stderr line naming the field for bad input, divergence
# reported instead of NaN statistics.
# Usage: simulate_contract.sh <fedverify> <source-dir>
set -u
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail=0
problem=$dir/q.json
cat > "$problem" <<'JSON'
{"kind": "quadratic", "clients": [
  {"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]},
  {"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]}]}
JSON
logistic=$dir/logistic-problem.json
cat > "$logistic" <<'JSON'
{"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [
  {"features": [[1.0, 0.2], [0.5, -1.0], [1.5, 0.3], [-0.2, 0.8]], "labels": [1, -1, 1, -1]},
  {"features": [[-1.0, 0.4], [0.3, 1.2], [-0.7, -0.5]], "labels": [-1, 1, 1]}]}
JSON
# sim ALGO GAMMA H CHAINS ROUNDS BURN SEED [extra...]
sim() {
  local algo=$1 g=$2 h=$3 k=$4 t=$5 b=$6 s=$7; shift 7
  "$bin" simulate --problem "$problem" --algo "$algo" --gamma "$g" --local-steps "$h" --chains "$k" \
    --rounds "$t" --burn-in "$b" --seed "$s" "$@"
}

for algo in sgd fedavg scaffold fedrr; do
  h=3; [ $algo = sgd ] && h=1
  sim $algo 0.05 $h 37 300 50 11 --threads 1 > "$dir/t1.json" || { echo "FAIL: $algo exited $?"; fail=1; }
  sim $algo 0.05 $h 37 300 50 11 --threads 2 > "$dir/t2.json" || { echo "FAIL: $algo (2 threads) exited $?"; fail=1; }
  cmp -s "$dir/t1.json" "$dir/t2.json" || { echo "FAIL: $algo output differs between 1 and 2 threads"; fail=1; }
  python3 - "$dir/t1.json" <<'PY' || { echo "FAIL: $algo JSON fields"; fail=1; }
import json, math, sys
o = json.load(open(sys.argv[1]))
for f in ["mean", "mean_mcse", "cov", "ess", "rhat", "samples", "diverged"]:
    assert f in o, f
assert o["diverged"] is False and o["samples"] == 37 * 250
assert len(o["mean"]) == 2 and len(o["cov"]) == 2 and all(len(r) == 2 for r in o["cov"])
assert all(math.isfinite(v) for v in o["mean"] + o["mean_mcse"] + o["ess"] + o["rhat"])
PY
done
"$bin" simulate --problem "$logistic" --algo fedavg --gamma 0.1 --local-steps 2 --chains 16 --rounds 200 --burn-in 20 --seed 3 > "$dir/logistic-out.json" \
  || { echo "FAIL: logistic simulate"; fail=1; }

expect_error() {  # expect_error <field> <args...>
  local field=$1; shift
  sim "$@" > "$dir/out" 2> "$dir/err"
  local rc=$?
  if [ $rc -ne 2 ]; then echo "FAIL: expected exit 2 for $field, got $rc"; fail=1; return; fi
  if [ "$(wc -l < "$dir/err")" -ne 1 ] || ! grep -q -- "$field" "$dir/err"; then
    echo "FAIL: stderr for $field: $(cat "$dir/err")"; fail=1
  fi
}
expect_error --chains fedavg 0.05 3 0 300 50 1
expect_error --rounds fedavg 0.05 3 4 10 20 1
expect_error --burn-in fedavg 0.05 3 4 300 -1 1
expect_error --gamma fedavg 0 3 4 300 50 1
expect_error --local-steps fedavg 0.05 0 4 300 50 1
expect_error --threads fedavg 0.05 3 4 300 50 1 --threads -2
expect_error --algo fedsgd 0.05 3 4 300 50 1
expect_error --batch-rounds fedavg 0.05 3 4 300 50 1 --batch-rounds 999
# Statistics that would print as null (0/0) are refused: split-R̂ needs 4 recorded rounds, the
# batch-means MCSE 2 batch means.
expect_error --rounds fedavg 0.05 3 8 50 49 1
expect_error --batch-rounds fedavg 0.05 3 1 50 10 1 --batch-rounds 40
expect_error --batch-rounds fedavg 0.05 3 4 300 50 1 --batch-rounds often
# --batch-rounds auto is the default (0 means the same); the chosen length is reported.
sim fedavg 0.05 3 37 300 50 11 > "$dir/default.json"
sim fedavg 0.05 3 37 300 50 11 --batch-rounds auto > "$dir/auto.json"
sim fedavg 0.05 3 37 300 50 11 --batch-rounds 0 > "$dir/zero.json"
sim fedavg 0.05 3 37 300 50 11 --batch-rounds 25 > "$dir/fixed.json"
{ cmp -s "$dir/default.json" "$dir/auto.json" && cmp -s "$dir/default.json" "$dir/zero.json"; } ||
  { echo "FAIL: --batch-rounds auto / 0 differ from the default"; fail=1; }
python3 - "$dir/default.json" "$dir/fixed.json" <<'PY' || { echo "FAIL: batch_rounds field"; fail=1; }
import json, sys
auto, fixed = (json.load(open(f)) for f in sys.argv[1:])
assert fixed["batch_rounds"] == 25, fixed
assert 1 <= auto["batch_rounds"] <= 250, auto
PY
# A seed is an integer in [0, 2⁶⁴ − 1]: no silent wrap-around of "-5" or clamping of overflow.
expect_error --seed fedavg 0.05 3 4 300 50 -5
expect_error --seed fedavg 0.05 3 4 300 50 99999999999999999999999
# Options another algorithm family reads are refused rather than ignored.
expect_error --noise fedavg 0.05 3 4 300 50 1 --noise shared
expect_error --uplink fedavg 0.05 3 4 300 50 1 --uplink natural
expect_error --participating scaffold 0.05 3 4 300 50 1 --participating 2
expect_error --server fedavg 0.05 3 4 300 50 1 --server sgd:lr=2
expect_error --client scaffold 0.05 3 4 300 50 1 --client fedprox:mu=1
# FedOpt (docs/DESIGN-EXTENSIONS.md): bad specs name the flag; S ≤ N; an adaptive optimiser has
# no closed forms (predict refuses it, naming the flag); FedProx and Adam run on logistic problems.
expect_error momentum fedopt 0.05 3 4 300 50 1 --server sgd:momentum=1.5
expect_error --participating fedopt 0.05 3 4 300 50 1 --participating 3
expect_error beta1 fedopt 0.05 3 4 300 50 1 --server adam:beta1=1
"$bin" predict --problem "$problem" --algo fedopt --server adam --gamma 0.05 > /dev/null 2> "$dir/err"
{ [ $? -eq 2 ] && grep -q -- --server "$dir/err"; } || { echo "FAIL: predict adam"; fail=1; }
for client in fedprox:mu=1 adam; do
  "$bin" simulate --problem "$logistic" --algo fedopt --client "$client" --gamma 0.1 --chains 4 \
    --rounds 10 --burn-in 1 --seed 1 > "$dir/lp.json" 2> "$dir/err"
  { [ $? -eq 0 ] && grep -q '"mean"' "$dir/lp.json"; } || { echo "FAIL: $client on logistic"; fail=1; }
done
# FedOpt's defaults are FedAvg's simulation, number for number; with momentum, sampling and
# FedProx the output is the same on 1 and 2 threads.
sim fedavg 0.05 3 37 300 50 11 > "$dir/fa.json"
sim fedopt 0.05 3 37 300 50 11 > "$dir/fo.json"
python3 - "$dir/fa.json" "$dir/fo.json" <<'PY' || { echo "FAIL: fedopt defaults differ from fedavg"; fail=1; }
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert b.pop("server") == "sgd" and b.pop("client") == "sgd" and b.pop("participating") == 2, b
a.pop("algorithm"); b.pop("algorithm"); a.pop("chain_steps", None); b.pop("chain_steps", None)
assert a == b, (a, b)
PY
for t in 1 2; do
  sim fedopt 0.05 3 37 300 50 11 --threads $t --server sgd:lr=0.5,momentum=0.5,nesterov=1 \
    --client fedprox:mu=0.5 --participating 1 > "$dir/fo$t.json" || { echo "FAIL: fedopt options"; fail=1; }
done
cmp -s "$dir/fo1.json" "$dir/fo2.json" || { echo "FAIL: fedopt output differs between 1 and 2 threads"; fail=1; }
"$bin" simulate --problem "$problem" --algo fedavg --gamma 0.1 --lambda 1 --chains 4 --rounds 10 \
  --burn-in 1 --seed 1 > /dev/null 2> "$dir/err"
{ [ $? -eq 2 ] && grep -q -- --lambda "$dir/err"; } || { echo "FAIL: --lambda with fedavg"; fail=1; }
"$bin" simulate --problem "$problem" --algo l2gd --lambda 1 --gamma 0.1 --chains 4 --rounds 10 \
  --burn-in 1 --seed 1 > /dev/null 2> "$dir/err"
{ [ $? -eq 2 ] && grep -q -- --burn-in "$dir/err"; } || { echo "FAIL: --burn-in with l2gd"; fail=1; }
# The largest seed is valid.
sim fedavg 0.05 3 4 300 50 18446744073709551615 > /dev/null || { echo "FAIL: seed 2^64 - 1"; fail=1; }
# A coordinate no noise reaches (1-d, zero noise, start at the optimum): ESS = samples, R̂ = 1,
# MCSE = 0 by convention instead of 0/0.
cat > "$dir/still.json" <<'JSON'
{"kind": "quadratic", "clients": [{"hessian": [[1.0]], "optimum": [0.0], "noise_cov": [[0.0]]}]}
JSON
"$bin" simulate --problem "$dir/still.json" --algo fedavg --gamma 0.1 --local-steps 2 --chains 8 \
  --rounds 50 --burn-in 10 --seed 1 > "$dir/still-out.json" || { echo "FAIL: still chain"; fail=1; }
python3 - "$dir/still-out.json" <<'PY' || { echo "FAIL: still chain statistics"; fail=1; }
import json, sys
o = json.load(open(sys.argv[1]))
assert o["ess"] == [o["samples"]] and o["rhat"] == [1.0] and o["mean_mcse"] == [0.0], o
PY
"$bin" simulate --problem "$problem" --algo fedavg --gamma 0.1 --chains 4 --rounds 10 --burn-in 1 \
  > /dev/null 2> "$dir/err"
{ [ $? -eq 2 ] && grep -q -- --seed "$dir/err"; } || { echo "FAIL: missing --seed"; fail=1; }

# A step size with no stationary law: divergence is reported, with no statistics and no NaN.
"$bin" simulate --problem "$problem" --algo fedavg --gamma 1.5 --local-steps 1 --chains 8 --rounds 400 --burn-in 10 --seed 1 > "$dir/div.json"
python3 - "$dir/div.json" <<'PY' || { echo "FAIL: divergence report"; fail=1; }
import json, sys
text = open(sys.argv[1]).read()
o = json.loads(text)
assert o["diverged"] is True and "mean" not in o and "NaN" not in text and "nan" not in text, o
PY
# --curve (THEORY (T1) measured): the mean and E‖x_t − x*‖² of every recorded round over K chains
# from --x0 agree with predict --rounds's exact curve: |z| below the two-sided normal quantile at
# α = 1e-3 Bonferroni-split over the 2 algorithms × 6 rounds × 3 quantities (z_max ≈ 4.3).
for algo in fedavg scaffold; do
  sim "$algo" 0.1 2 4000 6 0 5 --curve --x0 '[1.5, -1]' > "$dir/curve.json" || { echo "FAIL: --curve $algo"; fail=1; }
  "$bin" predict --problem "$problem" --algo "$algo" --gamma 0.1 --local-steps 2 --rounds 6 \
    --x0 '[1.5, -1]' > "$dir/exact.json" || { echo "FAIL: predict --rounds $algo"; fail=1; }
  python3 - "$dir/curve.json" "$dir/exact.json" <<'PY' || { echo "FAIL: --curve $algo against predict --rounds"; fail=1; }
import json, sys
from statistics import NormalDist
c, e = (json.load(open(p)) for p in sys.argv[1:])
z_max = NormalDist().inv_cdf(1 - 1e-3 / (2 * 2 * 6 * 3))
curve = c["curve"]
assert curve["rounds"] == [1, 2, 3, 4, 5, 6], curve["rounds"]
for i, t in enumerate(curve["rounds"]):
    z = [(curve["mse"][i] - e["mse_exact"][t]) / curve["mse_mcse"][i]]
    z += [(m - x) / s for m, x, s in zip(curve["mean"][i], e["mean_exact_t"][t], curve["mean_mcse"][i])]
    assert max(abs(v) for v in z) < z_max, (t, z)
PY
done
expect_curve_error() {
  local what=$1 text=$2; shift 2
  if "$bin" simulate "$@" > /dev/null 2> "$dir/err.txt"; then echo "FAIL: $what accepted"; fail=1
  elif ! grep -q -- "$text" "$dir/err.txt"; then echo "FAIL: $what: $(cat "$dir/err.txt")"; fail=1; fi
}
expect_curve_error "--curve with one chain" "--curve: needs --chains >= 2" --problem "$problem" --algo fedavg --gamma 0.1 --chains 1 --rounds 3 --burn-in 0 --seed 1 --curve
expect_curve_error "--x0 of the wrong size" "--x0: expected 2 numbers" --problem "$problem" --algo fedavg --gamma 0.1 --chains 2 --rounds 3 --burn-in 0 --seed 1 --x0 '[1]'
[ $fail -eq 0 ] && echo "simulate contract: all checks passed"
exit $fail
