#!/usr/bin/env bash
# `fedverify simulate` lands on the first-order stochastic bias at H = 1.
#
# Statement (THEORY F3 at H = 1, §6): FedAvg's stationary mean on logistic regression is
#   x* + γ b_s + O(γ²),  b_s = −(1/(2N)) 𝐇⁻¹ ∇³f(x*)[𝒜C̄] ≠ 0.
# Setting: verify/data/logistic_small_example.json (= examples/problems/logistic.json; d = 2, N = 3, B = 1), γ = 0.5 (γL = 0.23), H = 1,
#   1024 chains × 2000 rounds (burn-in 200; the autocorrelation time is ≈ 1/(γμ) = 20 rounds, so
#   batches of 200 rounds keep the batch-means MCSE calibrated, see verify/fedavg_calibration_test).
# Prediction: `fedverify predict` mean_first_order.
# Decision (α = 0.01, Bonferroni over the d coordinates): every |mean − mean_first_order| ≤
#   z_{1−α/(2d)}·MCSE, AND the bias is resolved: x* itself is rejected (some coordinate beyond the
#   same bound), so the first test has power against "no stochasticity bias".
#   The O(γ²) remainder, measured at 4× these chains, is ≈ 0.3e-3 against the MCSE ≈ 0.5e-3 here.
# Usage: bash logistic_simulate_bias.sh <path-to-fedverify> <source-dir>
set -u
FEDVERIFY=${1:?usage: logistic_simulate_bias.sh <fedverify> <source-dir>}
SOURCE_DIR=${2:?usage: logistic_simulate_bias.sh <fedverify> <source-dir>}
problem="$SOURCE_DIR/verify/data/logistic_small_example.json"
common=(--problem "$problem" --algo fedavg --gamma 0.5 --local-steps 1)
predicted=$("$FEDVERIFY" predict "${common[@]}") || { echo "FAIL: predict exited non-zero"; exit 1; }
measured=$("$FEDVERIFY" simulate "${common[@]}" --chains 1024 --rounds 2000 --burn-in 200 \
  --batch-rounds 200 --seed 20261126) || { echo "FAIL: simulate exited non-zero"; exit 1; }
/usr/bin/python3 - "$predicted" "$measured" << 'PY'
import json, sys
from statistics import NormalDist
p, m = json.loads(sys.argv[1]), json.loads(sys.argv[2])
d = len(p["x_star"])
alpha = 0.01
z_crit = NormalDist().inv_cdf(1 - alpha / (2 * d))
z_pred = [(a - b) / s for a, b, s in zip(m["mean"], p["mean_first_order"], m["mean_mcse"])]
z_star = [(a - b) / s for a, b, s in zip(m["mean"], p["x_star"], m["mean_mcse"])]
print(f"measured mean {m['mean']} ± {m['mean_mcse']} (MCSE)")
print(f"predicted x* + γ b_s = {p['mean_first_order']}  (x* = {p['x_star']})")
print(f"z vs prediction {[round(z, 2) for z in z_pred]}, z vs x* {[round(z, 1) for z in z_star]}, "
      f"bound {z_crit:.2f}")
ok = True
if max(abs(z) for z in z_pred) > z_crit:
    print("FAIL: the simulated mean misses the first-order prediction"); ok = False
if max(abs(z) for z in z_star) <= z_crit:
    print("FAIL: the stochasticity bias is not resolved (x* not rejected)"); ok = False
print("simulate vs first-order stochastic bias: " + ("agrees" if ok else "DISAGREES"))
sys.exit(0 if ok else 1)
PY
