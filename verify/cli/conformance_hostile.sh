#!/usr/bin/env bash
# `fedverify conformance` against hostile implementations (verify/conformance/hostile.py) and
# diverging ones (docs/CLI.md, conformance): an implementation that hangs, never reads, floods,
# ignores SIGTERM or lingers after its last round ends the check with exit 2 naming --exec within
# --timeout (plus the 2 s termination grace and the 2 s of a lingering child's own timeout), with
# fedverify's peak memory under 200 MB and no process of the implementation left running; non-finite numbers in a message (Python's NaN, Infinity)
# are divergence, exit 1 with "diverged" and the round; and no diverging Scaffold (the local-step
# count bug of ki-ljl #1, whose iterates grow without leaving the doubles) conforms at any chain
# count from 2 — the scale guard fails it whatever the MCSEs estimated from its exploding series.
# Usage: bash conformance_hostile.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
HOSTILE="/usr/bin/python3 $SOURCE_DIR/verify/conformance/hostile.py"
REF="/usr/bin/python3 $SOURCE_DIR/verify/conformance/reference_fl.py"
PROBLEM="$SOURCE_DIR/verify/conformance/problem.json"
TIMEOUT=2
MAX_SECONDS=$((TIMEOUT + 2 + TIMEOUT + 3))  # timeout, grace, a lingering child's wait, start-up
MAX_KB=$((200 * 1024))
run=(conformance --problem "$PROBLEM" --algo fedavg --gamma 0.05 --local-steps 2 --rounds 20
  --burn-in 4 --chains 8 --one-round-chains 16 --seed 5)
base=("${run[@]}" --timeout "$TIMEOUT")

# hostile <mode> <expected exit> <text in stderr (exit 2) or stdout (exit 1)>
hostile() {
  local mode=$1 code=$2 text=$3
  /usr/bin/time -f "%e %M" -o "$WORK/time.txt" \
    "$FEDVERIFY" "${base[@]}" --exec "$HOSTILE $mode" > "$WORK/out.txt" 2> "$WORK/err.txt"
  local rc=$?
  local seconds kb
  read -r seconds kb < <(tail -n 1 "$WORK/time.txt")
  if [ "$code" -eq 2 ]; then
    refused "$mode" "$rc" "--exec" "$text" || return
  elif [ "$rc" -ne "$code" ] || ! grep -qF -- "$text" "$WORK/out.txt"; then
    fail "$mode: exit $rc (expected $code), stdout $(head -c 300 "$WORK/out.txt")"
    return
  fi
  sleep 0.2
  if pgrep -f "hostile.py $mode" > /dev/null; then
    fail "$mode: the implementation is still running after fedverify ended"
    pkill -9 -f "hostile.py $mode"
  elif awk -v s="$seconds" -v m="$MAX_SECONDS" 'BEGIN { exit !(s > m) }'; then
    fail "$mode: took $seconds s, more than $MAX_SECONDS s"
  elif [ "$kb" -gt "$MAX_KB" ]; then
    fail "$mode: peak memory $kb KB, more than $MAX_KB KB"
  else
    echo "ok: $mode -> exit $rc in $seconds s, $kb KB"
  fi
}

hostile hang 2 "did not answer within 2 s (--timeout)"
hostile deaf 2 "did not answer within 2 s (--timeout)"
hostile flood 2 "exceeds"
hostile immune 2 "did not answer within 2 s (--timeout)"
hostile lingers 2 "did not exit within --timeout"
hostile nan_grad 1 "diverged"
hostile inf_round 1 "diverged"
expect_error "a zero --timeout" "--timeout: must be in (0" "${run[@]}" --exec "$HOSTILE hang" --timeout 0

# Scaffold with the local-step count bug diverges; at every chain count it must not conform.
for chains in 2 4 8 32; do
  "$FEDVERIFY" conformance --problem "$PROBLEM" --algo scaffold --gamma 0.05 --local-steps 10 \
    --rounds 40 --burn-in 10 --chains "$chains" --one-round-chains 16 --seed 3 \
    --exec "$REF --bug cv_step_count" > "$WORK/out.txt" 2> "$WORK/err.txt"
  rc=$?
  if [ "$rc" -ne 1 ] || ! grep -qF '"conforms":false' "$WORK/out.txt"; then
    fail "diverging scaffold, $chains chains: exit $rc: $(head -c 300 "$WORK/out.txt") $(head -c 200 "$WORK/err.txt")"
  else
    echo "ok: diverging scaffold, $chains chains, does not conform"
  fi
done
finish "conformance hostile"
