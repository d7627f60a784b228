#!/usr/bin/env bash
# Claim files with a formula (docs/CLAIM_FILES.md, "Formulas"): the shipped example
# fedavg_covariance_formula.json holds (exit 0), its 30 %-off variant is refuted (exit 1, every row
# about 0.3 off relative); the formula's numbers are those of `fedverify predict` (the same gap as
# the claim with predict's cov_first_order pasted as values); bad formulas exit 2 naming the field
# and the character position.
# Usage: bash claim_formula_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
EX="$SOURCE_DIR/examples/claims"
PROBLEM="$(cd "$SOURCE_DIR" && pwd)/examples/problems/quadratic.json"

"$FEDVERIFY" check "$EX/fedavg_covariance_formula.json" --out "$WORK/holds" > /dev/null 2> "$WORK/err.txt"
rc=$?
[ "$rc" -eq 0 ] && echo "ok: fedavg_covariance_formula.json holds (exit 0)" ||
  fail "fedavg_covariance_formula.json: exit $rc, expected 0: $(tail -3 "$WORK/err.txt")"
grep -qF '(gamma/N) * ACbar' "$WORK/holds/REPORT.md" || fail "the report does not show the formula"

"$FEDVERIFY" check "$EX/fedavg_covariance_30pct_off.json" --out "$WORK/off" > /dev/null 2> "$WORK/err.txt"
rc=$?
[ "$rc" -eq 1 ] && echo "ok: fedavg_covariance_30pct_off.json is refuted (exit 1)" ||
  fail "fedavg_covariance_30pct_off.json: exit $rc, expected 1: $(tail -3 "$WORK/err.txt")"
# Each row fails by about 30 % (the first-order covariance is within a few γ of the exact one).
python3 - "$WORK/off/results.json" <<'EOF' || fail "30 % off: the rows are not about 0.3 off"
import json, sys
rows = json.load(open(sys.argv[1]))["claims"][0]["rows"]
errors = [r["data"]["relative_error"] for r in rows]
assert len(rows) == 2 and not any(r["passed"] for r in rows), rows
assert all(0.25 < e < 0.35 for e in errors), errors
print("ok: 30 % off: relative errors", ", ".join(f"{e:.3f}" for e in errors))
EOF

# The formula's numbers are fedverify predict's: (γ/N)𝒜C̄ against cov_first_order pasted as values
# give the same gap to the exact covariance at every γ.
claim() {  # claim <name> <predicted object>
  write "$1" "{\"id\": \"planted.$1\", \"statement\": \"s\", \"problem\": \"$PROBLEM\",
    \"algorithm\": \"fedavg\", \"options\": {\"local_steps\": 2}, \"grid\": {\"gamma\": [0.01, 0.05]},
    \"predicted\": $2, \"measured\": {\"source\": \"exact\"},
    \"decision\": {\"rule\": \"tolerance\", \"tolerance\": 0.5}}"
}
cov_first_order() {
  "$FEDVERIFY" predict --problem "$PROBLEM" --algo fedavg --gamma "$1" --local-steps 2 |
    python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["cov_first_order"]))'
}
claim formula '{"quantity": "cov", "formula": "(γ/N)·ACbar"}'
claim values "{\"quantity\": \"cov\", \"values\": [$(cov_first_order 0.01), $(cov_first_order 0.05)]}"
for name in formula values; do
  "$FEDVERIFY" check "$WORK/$name.json" --out "$WORK/$name" > /dev/null 2> "$WORK/err.txt" ||
    fail "$name: exit $?: $(head -c 300 "$WORK/err.txt")"
done
python3 - "$WORK/formula/results.json" "$WORK/values/results.json" <<'EOF' ||
import json, sys
gaps = [[r["data"]["gap"] for r in json.load(open(p))["claims"][0]["rows"]] for p in sys.argv[1:]]
assert all(abs(a - b) <= 1e-12 * max(abs(b), 1e-300) + 1e-17 for a, b in zip(*gaps)), gaps
print("ok: the formula's gaps equal predict's cov_first_order's:", gaps[0])
EOF
  fail "the formula's numbers differ from fedverify predict's cov_first_order"

# The simulated rules take a formula too (the run's seed is fixed, so the verdict is too): the
# exact moments written as formulas hold, 1.3 times the exact mean fails Hotelling's test.
simulated() {  # simulated <name> <quantity> <formula> <rule>
  write "$1" "{\"id\": \"planted.$1\", \"statement\": \"s\", \"problem\": \"$PROBLEM\",
    \"algorithm\": \"fedavg\", \"options\": {\"local_steps\": 2}, \"grid\": {\"gamma\": [0.05, 0.1]},
    \"predicted\": {\"quantity\": \"$2\", \"formula\": \"$3\"},
    \"measured\": {\"source\": \"simulate\", \"chains\": 128, \"rounds\": 1200, \"burn_in\": 200},
    \"decision\": {\"rule\": \"$4\"}}"
}
for case in "mean mean_exact hotelling 0" "cov cov_exact matrix_agreement 0" "mean 1.3*mean_exact hotelling 1"; do
  read -r quantity formula rule code <<< "$case"
  simulated sim "$quantity" "$formula" "$rule"
  "$FEDVERIFY" check "$WORK/sim.json" --out "$WORK/sim" --threads 2 > /dev/null 2> "$WORK/err.txt"
  rc=$?
  [ "$rc" -eq "$code" ] && echo "ok: $rule with the formula $formula: exit $rc" ||
    fail "$rule with the formula $formula: exit $rc, expected $code: $(head -c 300 "$WORK/err.txt")"
done

# Bad formulas: exit 2, the file, the field and the position on the first stderr line (a parse
# error adds the formula and a caret under the position), no report.
bad() {  # bad <description> <predicted object> <text>...
  local what=$1 predicted=$2
  shift 2
  claim bad "$predicted"
  "$FEDVERIFY" check "$WORK/bad.json" --out "$WORK/bad" > /dev/null 2> "$WORK/err.txt"
  local rc=$? text first
  first=$(head -1 "$WORK/err.txt")
  if [ "$rc" -ne 2 ]; then
    fail "$what: exit $rc, expected 2: $(head -c 300 "$WORK/err.txt")"
    return
  fi
  for text in "bad.json: predicted." "$@"; do
    [[ "$first" == *"$text"* ]] || { fail "$what: the first stderr line does not say \"$text\": $first"; return; }
  done
  [ ! -e "$WORK/bad/REPORT.md" ] || fail "$what: a report was written"
  echo "ok: $what: exit 2: $first"
}
bad "a misspelt name" '{"quantity": "cov", "formula": "(gamma/N) * ACbarr"}' \
  "predicted.formula: unknown name 'ACbarr' at 13 (did you mean ACbar?)"
# Then the formula and a caret under character 13: three lines in all.
[ "$(sed -n 2p "$WORK/err.txt")" = "  (gamma/N) * ACbarr" ] && [ "$(sed -n 3p "$WORK/err.txt")" = "              ^" ] &&
  [ "$(wc -l < "$WORK/err.txt")" -eq 3 ] || fail "not the formula and a caret under character 13: $(cat "$WORK/err.txt")"
bad "a vector plus a matrix" '{"quantity": "cov", "formula": "x_star + ACbar"}' \
  "predicted.formula: cannot add a 2-vector and a 2×2 matrix at 8"
bad "a mean for a covariance" '{"quantity": "cov", "formula": "x_star + gamma * b_h"}' \
  "predicted.formula: the formula's value is a 2-vector; a covariance needs a 2×2 matrix"
bad "an unclosed parenthesis" '{"quantity": "mean", "formula": "x_star * (1 + gamma"}' \
  "predicted.formula: unclosed '(' at 10"
bad "formula and source" '{"quantity": "mean", "formula": "x_star", "source": "exact"}' \
  "predicted.source: not with formula"
bad "a misspelt key" '{"quantity": "mean", "formulas": "x_star"}' "predicted.formulas"
bad "a formula that is not a string" '{"quantity": "mean", "formula": 3}' \
  "predicted.formula: expected a string"
bad "a value not finite at a row" '{"quantity": "cov", "formula": "ACbar / (gamma - 0.05)"}' \
  "predicted.formula: the value is not finite at γ = 0.05, H = 2"

# The exact moments of a logistic problem do not exist: refused when the file is read.
sed "s|\"$PROBLEM\"|\"$(cd "$SOURCE_DIR" && pwd)/examples/problems/logistic.json\"|; s|\"exact\"}|\"simulate\", \"chains\": 8, \"rounds\": 50, \"burn_in\": 10}|; s|\"tolerance\", \"tolerance\": 0.5|\"hotelling\"|" \
  "$WORK/formula.json" > "$WORK/bad.json"
sed -i 's|"quantity": "cov", "formula": "(γ/N)·ACbar"|"quantity": "mean", "formula": "mean_exact"|' "$WORK/bad.json"
"$FEDVERIFY" check "$WORK/bad.json" --out "$WORK/bad" > /dev/null 2> "$WORK/err.txt"
rc=$?
[ "$rc" -eq 2 ] && grep -qF "predicted.formula: mean_exact needs a quadratic problem" "$WORK/err.txt" &&
  echo "ok: mean_exact of a logistic problem: exit 2" ||
  fail "mean_exact of a logistic problem: exit $rc: $(head -c 300 "$WORK/err.txt")"

[ "$FAILURES" -eq 0 ] || exit 1
