#!/usr/bin/env bash
# `fedverify report --baseline FILE` is a regression gate: it exits 1 when a verdict
# flips, a measured value moves beyond its tolerance, or a check of the baseline disappears (row or
# claim), and exits 0 against its own results. Bad baseline files exit 2 naming --baseline.
# Runs only the deterministic claims quadratic.exact-* (well under a second).
# Usage: bash report_baseline_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
PYTHON=/usr/bin/python3
only='quadratic.exact-*'

report() {  # report <out-dir> [extra args] ; prints the exit code
  "$FEDVERIFY" report --quick --only "$only" --out "$@" > /dev/null 2> "$WORK/err.txt"
  echo $?
}

[ "$(report "$WORK/base")" -eq 0 ] || fail "reference run did not exit 0: $(cat "$WORK/err.txt")"
[ "$(report "$WORK/same" --baseline "$WORK/base/results.json")" -eq 0 ] ||
  fail "run against its own baseline did not exit 0: $(cat "$WORK/err.txt")"

# tamper <name> <python statement on the json `j`> <expected text in REPORT.md>
tamper() {
  local name=$1 edit=$2 expect=$3
  "$PYTHON" - "$WORK/base/results.json" "$WORK/$name.json" "$edit" << 'PY'
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"))
PY
  local rc
  rc=$(report "$WORK/out-$name" --baseline "$WORK/$name.json")
  if [ "$rc" -ne 1 ]; then
    fail "$name: exit code $rc, expected 1"
  elif ! grep -qF -- "$expect" "$WORK/out-$name/REPORT.md"; then
    fail "$name: REPORT.md does not say \"$expect\""
  else
    echo "ok: $name -> exit 1, \"$(grep -F -- "$expect" "$WORK/out-$name/REPORT.md" | head -1)\""
  fi
}
tamper verdict 'j["claims"][0]["rows"][0]["passed"] = not j["claims"][0]["rows"][0]["passed"]' \
  "verdict flipped"
tamper value 'r = next(r["data"] for c in j["claims"] for r in c["rows"] if "value" in r["data"]); r["value"] += 100 * r["tolerance"]' \
  "value moved"
tamper row 'j["claims"][0]["rows"][0]["setting"] += " (renamed)"' "row missing"
tamper claim 'c = dict(j["claims"][0]); c["id"] = "quadratic.exact-dropped"; j["claims"].append(c)' \
  "claim missing"

expect_usage_error() {  # a bad --baseline: exit 2, one stderr line naming --baseline
  local what=$1 file=$2 rc
  rc=$(report "$WORK/out-bad" --baseline "$file")
  if [ "$rc" -ne 2 ] || ! grep -qF -- "--baseline" "$WORK/err.txt"; then
    fail "$what: exit code $rc, stderr: $(cat "$WORK/err.txt")"
  else
    echo "ok: $what -> $(cat "$WORK/err.txt")"
  fi
}
expect_usage_error "missing baseline" "$WORK/nonexistent.json"
printf '{"claims": [' > "$WORK/malformed.json"
expect_usage_error "malformed baseline" "$WORK/malformed.json"
"$PYTHON" -c 'import json, sys; j = json.load(open(sys.argv[1])); j["claims"][0]["rows"] = "x"; json.dump(j, open(sys.argv[2], "w"))' "$WORK/base/results.json" "$WORK/badtype.json"
expect_usage_error "baseline with a wrong field type" "$WORK/badtype.json"

finish "report --baseline contract"
