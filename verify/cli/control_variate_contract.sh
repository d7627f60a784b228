#!/usr/bin/env bash
# The command-line contract of `simulate --control-variate linearised` (docs/DESIGN-EXTENSIONS.md,
# "Control variate"; THEORY (L3)).
#
# Checks:
#  - quadratic: the twin is the chain, so mean_cv equals predict's mean_exact and
#    linearised_mean_exact bit for bit, mean_cv_mcse is 0 (FedAvg, Scaffold, FedRR);
#  - logistic: the option adds exactly mean_cv, mean_cv_mcse and linearised_mean_exact, and every
#    other field equals the run without it (the JSON texts of both runs without those fields are
#    identical), on 1 and 2 threads; mean_cv_mcse < mean_mcse;
#  - refusals (exit 2, one line naming --control-variate): an unknown value, --algo l2gd, fedopt
#    with a non-linear server optimiser.
# Usage: bash control_variate_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"

write quadratic '{"kind": "quadratic", "clients": [
 {"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.3]]},
 {"hessian": [[1.0, -0.2], [-0.2, 1.5]], "optimum": [-0.4, 0.8], "noise_cov": [[0.2, 0.0], [0.0, 0.4]]},
 {"hessian": [[0.8, 0.0], [0.0, 2.2]], "optimum": [0.3, 0.2], "noise_cov": [[0.3, -0.1], [-0.1, 0.3]]}]}'
quadratic="$WORK/quadratic.json"
logistic="$SOURCE_DIR/verify/data/logistic_small_example.json"
run=(--chains 40 --rounds 60 --burn-in 10 --seed 7)

for algo in fedavg scaffold fedrr; do
  pred=$("$FEDVERIFY" predict --problem "$quadratic" --algo "$algo" --gamma 0.05 --local-steps 2) \
    || fail "quadratic $algo: predict failed"
  sim=$("$FEDVERIFY" simulate --problem "$quadratic" --algo "$algo" --gamma 0.05 --local-steps 2 \
    "${run[@]}" --control-variate linearised) || fail "quadratic $algo: simulate failed"
  if /usr/bin/python3 - "$pred" "$sim" << 'PY'; then echo "ok: quadratic $algo: mean_cv = mean_exact bit for bit"; else fail "quadratic $algo: mean_cv is not the exact mean"; fi
import json, sys
p, s = json.loads(sys.argv[1]), json.loads(sys.argv[2])
ok = s["mean_cv"] == p["mean_exact"] == s["linearised_mean_exact"] and all(v == 0 for v in s["mean_cv_mcse"])
if not ok:
    print(p["mean_exact"], s["mean_cv"], s["linearised_mean_exact"], s["mean_cv_mcse"])
sys.exit(0 if ok else 1)
PY
done

for threads in 1 2; do
  common=(--problem "$logistic" --algo scaffold --gamma 0.2 --local-steps 2 "${run[@]}" --threads "$threads")
  plain=$("$FEDVERIFY" simulate "${common[@]}") || fail "logistic: simulate failed"
  cv=$("$FEDVERIFY" simulate "${common[@]}" --control-variate linearised) || fail "logistic: cv failed"
  if /usr/bin/python3 - "$plain" "$cv" << 'PY'; then echo "ok: logistic, $threads thread(s): the option adds its three fields only"; else fail "logistic, $threads thread(s): other fields changed"; fi
import json, sys
plain, cv = json.loads(sys.argv[1]), json.loads(sys.argv[2])
added = {"mean_cv", "mean_cv_mcse", "linearised_mean_exact"}
rest = {k: v for k, v in cv.items() if k not in added}
ok = set(cv) - set(plain) == added and json.dumps(rest, sort_keys=True) == json.dumps(plain, sort_keys=True)
ok = ok and all(a < b for a, b in zip(cv["mean_cv_mcse"], cv["mean_mcse"]))
sys.exit(0 if ok else 1)
PY
done

expect_error "unknown value" "--control-variate" simulate --problem "$logistic" --algo fedavg \
  --gamma 0.1 "${run[@]}" --control-variate taylor
expect_error "l2gd has no twin" "--control-variate" simulate --problem "$logistic" --algo l2gd \
  --lambda 1 --gamma 0.1 --chains 8 --rounds 20 --seed 1 --control-variate linearised
expect_error "fedopt adam has no exact twin mean" "--control-variate" simulate --problem "$logistic" \
  --algo fedopt --server adam:lr=0.01 --gamma 0.1 "${run[@]}" --control-variate linearised

finish "control-variate contract"
