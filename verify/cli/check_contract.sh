#!/usr/bin/env bash
# `fedverify check CLAIM.json` (docs/CLAIM_FILES.md): the shipped example
# claims hold (exit 0) and write REPORT.md and results.json; a claim whose predicted numbers are
# wrong fails (exit 1: the first-order mean with its heterogeneity bias dropped, i.e. x* given as
# the prediction, is off by γ(H − 1)‖b_h‖ ≫ the tolerance); bad claim files exit 2 naming the field.
# Usage: bash check_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
EX="$SOURCE_DIR/examples/claims"
PROBLEM="$(cd "$SOURCE_DIR" && pwd)/verify/conformance/problem.json"

# The examples that state a wrong claim on purpose are refuted (exit 1; claim_formula_contract.sh
# checks their rows); every other example holds.
REFUTED=" fedavg_covariance_30pct_off.json "
for claim in "$EX"/*.json; do
  if [[ "$REFUTED" == *" $(basename "$claim") "* ]]; then
    "$FEDVERIFY" check "$claim" --out "$WORK/report" --threads 2 > /dev/null 2> "$WORK/err.txt"
    rc=$?
    [ "$rc" -eq 1 ] && echo "ok: $(basename "$claim") is refuted (exit 1)" ||
      fail "$(basename "$claim"): exit $rc, expected 1 (refuted): $(tail -2 "$WORK/err.txt")"
    continue
  fi
  if "$FEDVERIFY" check "$claim" --out "$WORK/report" --threads 2 > "$WORK/out.txt" 2> "$WORK/err.txt"; then
    if [ -s "$WORK/report/REPORT.md" ] && grep -q "$(basename "$claim" .json | tr _ -)" "$WORK/report/results.json" 2>/dev/null \
        || grep -q '"id"' "$WORK/report/results.json"; then
      echo "ok: $(basename "$claim") holds"
      # Its figure: the rows against γ (claim_figure.hpp), drawn when gnuplot is installed.
      if command -v gnuplot > /dev/null; then
        [ -s "$WORK/report/claim.svg" ] && grep -q "claim.svg" "$WORK/report/REPORT.md" &&
          echo "ok: $(basename "$claim"): figure claim.svg in the report" ||
          fail "$(basename "$claim"): no figure claim.svg"
      fi
    else
      fail "$(basename "$claim"): no report written"
    fi
  else
    fail "$(basename "$claim"): exit $?: $(tail -2 "$WORK/err.txt")"
  fi
done

# x* as the "prediction" of FedAvg's stationary mean at H = 5: wrong by the first-order bias.
xstar=$("$FEDVERIFY" predict --problem "$PROBLEM" --algo fedavg --gamma 0.01 --local-steps 5 |
  python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["x_star"]))')
write wrong "{\"id\": \"planted.no-bias\", \"statement\": \"FedAvg's stationary mean is x*\",
  \"problem\": \"$PROBLEM\", \"algorithm\": \"fedavg\", \"options\": {\"local_steps\": 5},
  \"grid\": {\"gamma\": [0.01]}, \"predicted\": {\"quantity\": \"mean\", \"values\": [$xstar]},
  \"measured\": {\"source\": \"exact\"}, \"decision\": {\"rule\": \"tolerance\", \"tolerance\": 1e-6}}"
"$FEDVERIFY" check "$WORK/wrong.json" --out "$WORK/wrong" > /dev/null 2> "$WORK/err.txt"
rc=$?
[ "$rc" -eq 1 ] && echo "ok: a wrong prediction fails (exit 1)" || fail "wrong prediction: exit $rc, expected 1"

# remainder_order (as the Python Claim's rule): x* as the "prediction" is off by the O(γ) bias, so
# the error's log–log slope is ≈ 1 and the claim that it exceeds 1.5 fails; the first-order mean
# (examples/claims/fedavg_remainder_order.json, above) holds with slope ≈ 2.
xstars=""
for g in 0.0025 0.005 0.01 0.02; do xstars+="$xstar,"; done
write order_wrong "{\"id\": \"planted.order\", \"statement\": \"x* is FedAvg's mean up to O(γ²)\",
  \"problem\": \"$PROBLEM\", \"algorithm\": \"fedavg\", \"options\": {\"local_steps\": 5},
  \"grid\": {\"gamma\": [0.0025, 0.005, 0.01, 0.02]}, \"predicted\": {\"quantity\": \"mean\", \"values\": [${xstars%,}]},
  \"measured\": {\"source\": \"exact\"}, \"decision\": {\"rule\": \"remainder_order\", \"order\": 1.5}}"
"$FEDVERIFY" check "$WORK/order_wrong.json" --out "$WORK/order" > /dev/null 2> "$WORK/err.txt"
rc=$?
if [ "$rc" -eq 1 ] && grep -q "slope = 1\.0" "$WORK/order/REPORT.md"; then
  echo "ok: remainder_order of x* (an O(γ) error, slope ≈ 1) fails against 1.5"
else
  fail "remainder_order of x*: exit $rc (expected 1), slope: $(grep -o 'slope = [0-9.]*' "$WORK/order/REPORT.md" | head -1)"
fi

# `tolerance` is relative to the exact value, as the Python Claim's rule of the same name: a
# covariance 30 % off fails at t = 0.05 (it held, exit 0, while the rule was t·max(1, |predicted|):
# the covariance is ≈ 1e-3, so the bound was absolute), and one 1 % off holds.
cov_of() {
  "$FEDVERIFY" predict --problem "$PROBLEM" --algo fedavg --gamma "$1" --local-steps 2 |
    python3 -c "import json, sys; print(json.dumps([[$2 * v for v in r] for r in json.load(sys.stdin)['cov_exact']]))"
}
for case in "1.3 1" "1.01 0"; do
  read -r factor code <<< "$case"
  write "scaled_$factor" "{\"id\": \"planted.scaled-cov\", \"statement\": \"cov x $factor\",
    \"problem\": \"$PROBLEM\", \"algorithm\": \"fedavg\", \"options\": {\"local_steps\": 2},
    \"grid\": {\"gamma\": [0.05, 0.1]}, \"predicted\": {\"quantity\": \"cov\",
    \"values\": [$(cov_of 0.05 "$factor"), $(cov_of 0.1 "$factor")]},
    \"measured\": {\"source\": \"exact\"}, \"decision\": {\"rule\": \"tolerance\", \"tolerance\": 0.05}}"
  "$FEDVERIFY" check "$WORK/scaled_$factor.json" --out "$WORK/scaled" > /dev/null 2> "$WORK/err.txt"
  rc=$?
  [ "$rc" -eq "$code" ] && echo "ok: covariance × $factor at relative tolerance 0.05: exit $rc" ||
    fail "covariance × $factor at tolerance 0.05: exit $rc, expected $code"
done

# A preset (docs/DESIGN-EXTENSIONS.md, "Presets") with its parameter in "options": FedProx's exact
# mean as `--algo fedopt --client fedprox:mu=0.3` computes it holds; FedAvg's (μ = 0) fails, so the
# claim file's mu reached the run.
mean_of() {
  "$FEDVERIFY" predict --problem "$PROBLEM" --gamma 0.05 --local-steps 5 "$@" |
    python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["mean_exact"]))'
}
for case in "fedprox 0 --algo fedopt --client fedprox:mu=0.3" "fedavg 1 --algo fedavg"; do
  read -r name code args <<< "$case"
  # shellcheck disable=SC2086
  values=$(mean_of $args)
  write "preset_$name" "{\"id\": \"preset.$name\", \"statement\": \"FedProx's exact mean\",
    \"problem\": \"$PROBLEM\", \"algorithm\": \"fedprox\", \"options\": {\"local_steps\": 5, \"mu\": 0.3},
    \"grid\": {\"gamma\": [0.05]}, \"predicted\": {\"quantity\": \"mean\", \"values\": [$values]},
    \"measured\": {\"source\": \"exact\"}, \"decision\": {\"rule\": \"tolerance\", \"tolerance\": 1e-12}}"
  "$FEDVERIFY" check "$WORK/preset_$name.json" --out "$WORK/preset" > /dev/null 2> "$WORK/err.txt"
  rc=$?
  [ "$rc" -eq "$code" ] && echo "ok: claim file with --algo fedprox, numbers of $name: exit $rc" ||
    fail "claim file with a preset, numbers of $name: exit $rc, expected $code: $(head -c 300 "$WORK/err.txt")"
done

# A grid over γ, H and a preset's parameter (the product, the last key varying fastest: gamma,
# local_steps, participating, then the parameters): exact means predicted per point in that order
# hold at 1e-12; the same numbers in the other order (H slowest) fail, so each point's H and μ
# reached its run.
grid_values() {  # <order: gh|hg> → the exact means of fedprox over γ ∈ {0.05, 0.1}, H ∈ {1, 5}
  local out="" g h
  if [ "$1" = gh ]; then pairs="0.05,1 0.05,5 0.1,1 0.1,5"; else pairs="0.05,1 0.1,1 0.05,5 0.1,5"; fi
  for pair in $pairs; do
    IFS=, read -r g h <<< "$pair"
    for mu in 0.1 0.3; do
      out+="$("$FEDVERIFY" predict --problem "$PROBLEM" --algo fedprox --mu "$mu" --gamma "$g" --local-steps "$h" 2> /dev/null |
        python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["mean_exact"]))'),"
    done
  done
  echo "${out%,}"
}
for case in "gh 0" "hg 1"; do
  read -r order code <<< "$case"
  write "grid_$order" "{\"id\": \"grid.h-mu\", \"statement\": \"FedProx's exact mean over γ, H, μ\",
    \"problem\": \"$PROBLEM\", \"algorithm\": \"fedprox\",
    \"grid\": {\"mu\": [0.1, 0.3], \"local_steps\": [1, 5], \"gamma\": [0.05, 0.1]},
    \"predicted\": {\"quantity\": \"mean\", \"values\": [$(grid_values "$order")]},
    \"measured\": {\"source\": \"exact\"}, \"decision\": {\"rule\": \"tolerance\", \"tolerance\": 1e-12}}"
  "$FEDVERIFY" check "$WORK/grid_$order.json" --out "$WORK/grid" > /dev/null 2> "$WORK/err.txt"
  rc=$?
  rows=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["claims"][0]["rows"]))' "$WORK/grid/results.json" 2> /dev/null)
  if [ "$rc" -eq "$code" ] && [ "$rows" = 8 ] && grep -q "γ = 0.1, H = 5, mu = 0.3" "$WORK/grid/REPORT.md"; then
    echo "ok: grid over γ × H × μ (8 rows), numbers in order $order: exit $rc"
  else
    fail "grid over γ × H × μ, order $order: exit $rc (expected $code), $rows rows: $(head -c 300 "$WORK/err.txt")"
  fi
done

base='"id": "x", "statement": "s", "algorithm": "fedavg", "grid": {"gamma": [0.01]}, "predicted": {"quantity": "mean", "source": "first_order"}, "measured": {"source": "exact"}, "decision": {"rule": "tolerance", "tolerance": 1e-3}'
write noproblem "{$base}"
expect_error "missing problem" "problem" check "$WORK/noproblem.json" --out "$WORK/r"
write badgamma "{$base, \"problem\": \"$PROBLEM\"}"
sed -i 's/"gamma": \[0.01\]/"gamma": [0.01, -1]/' "$WORK/badgamma.json"
expect_error "negative step" "grid.gamma[1]" check "$WORK/badgamma.json" --out "$WORK/r"
write badrule "{$base, \"problem\": \"$PROBLEM\"}"
sed -i 's/"rule": "tolerance", "tolerance": 1e-3/"rule": "hotelling"/' "$WORK/badrule.json"
expect_error "hotelling without a simulation" "decision.rule" check "$WORK/badrule.json" --out "$WORK/r"
write unknown "{$base, \"problem\": \"$PROBLEM\", \"extra\": 1}"
expect_error "unknown field" "extra" check "$WORK/unknown.json" --out "$WORK/r"
write badalgo "{$base, \"problem\": \"$PROBLEM\"}"
sed -i 's/"algorithm": "fedavg"/"algorithm": "l2gd"/' "$WORK/badalgo.json"
expect_error "algorithm without closed forms for claim files" "algorithm: l2gd has no closed forms" check "$WORK/badalgo.json" --out "$WORK/r"
write presetparam "{$base, \"problem\": \"$PROBLEM\", \"options\": {\"mu\": 0.1}}"
expect_error "a preset parameter with fedavg" "options.mu: only for" check "$WORK/presetparam.json" --out "$WORK/r"
write foreign "{$base, \"problem\": \"$PROBLEM\", \"options\": {\"participating\": 2}}"
expect_error "participating with fedavg (no sampling: silently ignored before)" "options.participating: only for" check "$WORK/foreign.json" --out "$WORK/r"
write twice "{$base, \"problem\": \"$PROBLEM\", \"options\": {\"local_steps\": 2}}"
sed -i 's/"grid": {"gamma": \[0.01\]}/"grid": {"gamma": [0.01], "local_steps": [1, 2]}/' "$WORK/twice.json"
expect_error "a key in grid and options" "grid.local_steps: also given in options" check "$WORK/twice.json" --out "$WORK/r"
write badh "{$base, \"problem\": \"$PROBLEM\"}"
sed -i 's/"grid": {"gamma": \[0.01\]}/"grid": {"gamma": [0.01], "local_steps": [1, 0]}/' "$WORK/badh.json"
expect_error "H = 0 in the grid" "grid.gamma[0], grid.local_steps[1]" check "$WORK/badh.json" --out "$WORK/r"
write fewgammas "{$base, \"problem\": \"$PROBLEM\"}"
sed -i 's/"rule": "tolerance", "tolerance": 1e-3/"rule": "remainder_order", "order": 1.5/; s/"gamma": \[0.01\]/"gamma": [0.01, 0.02]/' "$WORK/fewgammas.json"
expect_error "remainder_order over 2 step sizes" "needs at least 3 step sizes" check "$WORK/fewgammas.json" --out "$WORK/r"
write badchains "{$base, \"problem\": \"$PROBLEM\"}"
sed -i 's/"measured": {"source": "exact"}/"measured": {"source": "simulate", "chains": 0}/; s/"rule": "tolerance", "tolerance": 1e-3/"rule": "hotelling"/' "$WORK/badchains.json"
expect_error "chains = 0, named as the file's field" "badchains.json: measured.chains" check "$WORK/badchains.json" --out "$WORK/r"
expect_error "missing file" "claim file" check "$WORK/none.json" --out "$WORK/r"
finish "check contract"
