#!/usr/bin/env bash
# Progress lines on stderr (issue 31 item 5; reports/report/progress.hpp) for simulate,
# conformance and check: drawn only on a terminal (or with FEDVERIFY_PROGRESS=1), never on a pipe
# (check's one summary line is all its stderr then), cleared after the last update, and never
# changing a number: stdout is byte-identical with and without the progress line.
# A real terminal is given by script(1) (util-linux), when installed.
# Usage: bash progress_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
P="$SOURCE_DIR/examples/problems/quadratic.json"
REF="/usr/bin/python3 $SOURCE_DIR/verify/conformance/reference_fl.py"
sim=(simulate --problem "$P" --algo fedavg --gamma 0.05 --local-steps 5 --chains 64 --rounds 400 --burn-in 100 --seed 3 --threads 1)
conf=(conformance --problem "$P" --algo fedavg --gamma 0.05 --local-steps 5 --rounds 60 --burn-in 10 --one-round-chains 200 --chains 32 --seed 11 --exec "$REF")
chk=(check "$SOURCE_DIR/examples/claims/fedavg_first_order_mean.json" --threads 1)

# progress <label> <what is counted> <args…>
progress() {
  local label=$1 unit=$2
  shift 2
  local out=(--out "$WORK/check-a")
  [ "$1" = check ] || out=()
  "$FEDVERIFY" "$@" "${out[@]}" > "$WORK/plain.out" 2> "$WORK/plain.err"
  local rc_plain=$?
  [ "$1" = check ] && out=(--out "$WORK/check-b")
  FEDVERIFY_PROGRESS=1 "$FEDVERIFY" "$@" "${out[@]}" > "$WORK/shown.out" 2> "$WORK/shown.err"
  local rc_shown=$?
  if [ "$rc_plain" -ne 0 ] || [ "$rc_shown" -ne 0 ]; then
    fail "$label: exit $rc_plain / $rc_shown: $(head -c 300 "$WORK/plain.err")"
  elif grep -q "$label: [0-9]*/" "$WORK/plain.err" || grep -q $'\r' "$WORK/plain.err"; then
    fail "$label: progress on a pipe: $(head -c 200 "$WORK/plain.err")"
  elif ! grep -q "$label: [0-9]*/[0-9]* $unit.*elapsed .*eta" "$WORK/shown.err"; then
    fail "$label: no progress line with FEDVERIFY_PROGRESS=1: $(tr '\r' '\n' < "$WORK/shown.err" | head -3)"
  elif ! cmp -s "$WORK/plain.out" "$WORK/shown.out"; then
    fail "$label: stdout differs with the progress line"
  elif ! /usr/bin/python3 -c 'import sys; t = open(sys.argv[1], encoding="utf-8", newline="").read(); i = t.rfind("\r" + sys.argv[2] + ":"); sys.exit(0 if i >= 0 and "\r\x1b[K" in t[i + 1:] else 1)' "$WORK/shown.err" "$label"; then
    fail "$label: the progress line is not cleared after its last update"
  else
    echo "ok: $label: progress ($(tr '\r' '\n' < "$WORK/shown.err" | grep -c "$label:") updates), stdout unchanged, line cleared"
  fi
}
progress simulate rounds "${sim[@]}"
progress conformance rounds "${conf[@]}"
progress check "grid points" "${chk[@]}"
if [ -s "$WORK/check-a/results.json" ] && ! cmp -s <(grep -v '"seconds"\|"wall' "$WORK/check-a/results.json") <(grep -v '"seconds"\|"wall' "$WORK/check-b/results.json"); then
  fail "check: results.json differs with the progress line"
fi

# On a real terminal (script gives the command a pseudo-terminal): a 1-second delay, so a run of
# a few seconds draws the line.
if command -v script > /dev/null; then
  long=(simulate --problem "$P" --algo fedavg --gamma 0.05 --local-steps 5 --chains 4096 --rounds 20000 --burn-in 100 --seed 3 --threads 1)
  script -qec "$(printf '%q ' "$FEDVERIFY" "${long[@]}") > $WORK/tty.out" /dev/null > "$WORK/tty.err" 2>&1
  if grep -q "simulate: [0-9]*/20000 rounds" "$WORK/tty.err"; then
    echo "ok: on a terminal, simulate draws its progress line"
  else
    fail "on a terminal, no progress line: $(tr '\r' '\n' < "$WORK/tty.err" | head -3)"
  fi
fi
finish "progress"
