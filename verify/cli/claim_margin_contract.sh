#!/usr/bin/env bash
# Claim files' statistical rows (docs/CLAIM_FILES.md, decision.margin): a simulated row confirmed
# within the margin is "equivalent" (the shipped fedavg_mean_simulated.json: every row, exit 0);
# a margin too small for the simulation leaves the claim inconclusive (exit 0, the report says
# what would settle it); a prediction 20 % off fails, after its confirmation rerun at an
# independent seed (the row keeps the failed first attempt); margin on a non-statistical rule, or
# outside (0, 1), exits 2 naming decision.margin.
# Usage: bash claim_margin_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
PROBLEM="$(cd "$SOURCE_DIR" && pwd)/examples/problems/quadratic.json"

claim() {  # claim <name> <predicted> <decision>
  write "$1" "{\"id\": \"planted.$1\", \"statement\": \"s\", \"problem\": \"$PROBLEM\",
    \"algorithm\": \"fedavg\", \"options\": {\"local_steps\": 5}, \"grid\": {\"gamma\": [0.05, 0.1]},
    \"predicted\": $2, \"measured\": {\"source\": \"simulate\", \"chains\": 64, \"rounds\": 1000,
    \"burn_in\": 200}, \"decision\": $3}"
}
classes() {  # classes <results.json>: the claim's verdict and its rows' classes
  python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['claims'][0]; print(c['verdict'], *[r['verdict_class'].replace(' ', '_') for r in c['rows']])" "$1"
}

"$FEDVERIFY" check "$SOURCE_DIR/examples/claims/fedavg_mean_simulated.json" --out "$WORK/eq" \
  > /dev/null 2> "$WORK/err.txt"
rc=$?
got=$(classes "$WORK/eq/results.json")
[ "$rc" -eq 0 ] && [ "$got" = "holds equivalent equivalent" ] &&
  echo "ok: fedavg_mean_simulated.json: every row equivalent within 5 % (exit 0)" ||
  fail "fedavg_mean_simulated.json: exit $rc, '$got'"

claim tight '{"quantity": "mean", "source": "exact"}' '{"rule": "hotelling", "margin": 1e-4}'
"$FEDVERIFY" check "$WORK/tight.json" --out "$WORK/tight" > /dev/null 2> "$WORK/err.txt"
rc=$?
got=$(classes "$WORK/tight/results.json")
[ "$rc" -eq 0 ] && [ "$got" = "inconclusive not_rejected not_rejected" ] &&
  grep -q "would settle it" "$WORK/tight/REPORT.md" &&
  echo "ok: margin 1e-4: inconclusive, exit 0, the report says what would settle it" ||
  fail "margin 1e-4: exit $rc, '$got'"

# 20 % off: the exact mean of quadratic.json at γ = 0.05, 0.1 (H = 5) scaled by 1.2.
values=$("$FEDVERIFY" predict --problem "$PROBLEM" --algo fedavg --gamma 0.05 --local-steps 5 |
  python3 -c "import json,sys; print(json.dumps([[1.2 * v for v in json.load(sys.stdin)['mean_exact']]]))")
values2=$("$FEDVERIFY" predict --problem "$PROBLEM" --algo fedavg --gamma 0.1 --local-steps 5 |
  python3 -c "import json,sys; print(json.dumps([1.2 * v for v in json.load(sys.stdin)['mean_exact']]))")
values="${values%]}, $values2]"
claim off "{\"quantity\": \"mean\", \"values\": $values}" '{"rule": "hotelling"}'
"$FEDVERIFY" check "$WORK/off.json" --out "$WORK/off" > /dev/null 2> "$WORK/err.txt"
rc=$?
python3 - "$WORK/off/results.json" <<'PY' && [ "$rc" -eq 1 ] &&
import json, sys
rows = json.load(open(sys.argv[1]))["claims"][0]["rows"]
assert all(not r["passed"] and "first_attempt" in r for r in rows), rows
PY
  echo "ok: 20 % off: every row fails after its rerun (exit 1)" ||
  fail "20 % off: exit $rc or rows not rerun"

claim badrule '{"quantity": "mean", "source": "exact"}' '{"rule": "tolerance", "tolerance": 0.1, "margin": 0.05}'
expect_error "margin with tolerance" "decision.margin: only for the statistical rules" \
  check "$WORK/badrule.json" --out "$WORK/x"
claim badvalue '{"quantity": "mean", "source": "exact"}' '{"rule": "hotelling", "margin": 1.5}'
expect_error "margin 1.5" "decision.margin: expected a number in (0, 1)" \
  check "$WORK/badvalue.json" --out "$WORK/x"
finish "claim margins"
