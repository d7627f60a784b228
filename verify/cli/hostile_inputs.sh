#!/usr/bin/env bash
# CLI contract under hostile input (docs/CLI.md, "Resource limits" and exit codes): every input
# below once crashed fedverify, made it exit 3, made it run without bound, or printed a wrong
# result with exit 0. Each must now end within a few seconds with exit 0 and a correct result, or
# with exit 2 and exactly one stderr line that names the flag or the file and field. Nothing on
# stdout or stderr may say nan, inf or null.
# Usage: bash hostile_inputs.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
PYTHON=/usr/bin/python3
# Wall-clock limit of every run: what is refused must be refused before the work starts.
LIMIT=${HOSTILE_LIMIT:-20}

Q='{"kind": "quadratic", "clients": [{"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]}, {"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]}]}'
L='{"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [{"features": [[1.0, 0.2], [0.5, -1.0], [1.5, 0.3], [-0.2, 0.8]], "labels": [1, -1, 1, -1]}, {"features": [[-1.0, 0.4], [0.3, 1.2], [-0.7, -0.5]], "labels": [-1, 1, 1]}]}'
write q "$Q"
write l "$L"

# run <args>...: runs fedverify with a time limit; sets RC, OUT, ERR (files) and SECONDS_TAKEN.
run() {
  local start end
  start=$(date +%s.%N)
  timeout -s KILL "$LIMIT" "$FEDVERIFY" "$@" > "$WORK/out.txt" 2> "$WORK/err.txt"
  RC=$?
  end=$(date +%s.%N)
  SECONDS_TAKEN=$(echo "$end - $start" | bc)
}

# clean_output <name>: nothing that JSON or a reader would take for a number is not finite.
clean_output() {
  if grep -qiE '(^|[^a-z])(-?nan|inf|infinity|null)([^a-z]|$)' "$WORK/out.txt" "$WORK/err.txt"; then
    fail "$1: output holds nan/inf/null: $(grep -iE 'nan|inf|null' "$WORK/out.txt" "$WORK/err.txt" | head -c 300)"
    return 1
  fi
  return 0
}

# expect_refused <name> <texts...> -- <args...>: exit 2, one stderr line with every text.
expect_refused() {
  local name=$1
  shift
  local texts=()
  while [ "$1" != "--" ]; do
    texts+=("$1")
    shift
  done
  shift
  run "$@"
  refused "$name" "$RC" "${texts[@]}" && clean_output "$name" &&
    echo "ok: $name -> $(head -c 200 "$WORK/err.txt")"
}

# expect_ok_or_refused <name> <args...>: exit 0 with one JSON object free of nan/inf/null, or
# exit 2 with one stderr line.
expect_ok_or_refused() {
  local name=$1
  shift
  run "$@"
  if [ "$RC" -eq 2 ]; then
    if [ "$(wc -l < "$WORK/err.txt")" -ne 1 ]; then
      fail "$name: exit 2 with more than one stderr line: $(head -c 300 "$WORK/err.txt")"
      return
    fi
  elif [ "$RC" -eq 0 ]; then
    if ! "$PYTHON" -c 'import json,sys; json.load(open(sys.argv[1]))' "$WORK/out.txt" 2> /dev/null; then
      fail "$name: exit 0 without one JSON object on stdout"
      return
    fi
  else
    fail "$name: exit code $RC (stderr: $(head -c 300 "$WORK/err.txt"))"
    return
  fi
  clean_output "$name" || return
  echo "ok: $name -> exit $RC $(head -c 160 "$WORK/err.txt")"
}

SIM=(--chains 8 --rounds 20 --burn-in 5 --seed 1)
L2SIM=(--lambda 0.5 --chains 8 --rounds 20 --seed 1)

# --- Crashes (abort or segfault) --------------------------------------------------------------
for algo in fedavg scaffold fedrr; do
  expect_refused "simulate $algo H = 2^31 - 1" "--local-steps" -- simulate --problem "$WORK/q.json" \
    --algo "$algo" --gamma 0.01 --local-steps 2147483647 "${SIM[@]}"
done
write l_batch_huge '{"kind": "logistic", "l2": 0.1, "batch_size": 2147483647, "clients": [{"features": [[1.0, 0.2], [0.5, -1.0]], "labels": [1, -1]}]}'
expect_refused "logistic batch_size 2^31 - 1 (predict)" "l_batch_huge.json" "batch_size" -- \
  predict --problem "$WORK/l_batch_huge.json" --algo fedavg --gamma 0.05
expect_refused "logistic batch_size 2^31 - 1 (simulate)" "l_batch_huge.json" "batch_size" -- \
  simulate --problem "$WORK/l_batch_huge.json" --algo fedavg --gamma 0.05 "${SIM[@]}"
for algo in l2gd l2sgd l2sgd+; do
  expect_refused "simulate $algo rounds 2^31 - 1" "--rounds" -- simulate --problem "$WORK/q.json" \
    --algo "$algo" --gamma 0.1 --lambda 0.5 --chains 8 --rounds 2147483647 --seed 1
  expect_refused "simulate $algo threads 10^6" "--threads" -- simulate --problem "$WORK/q.json" \
    --algo "$algo" --gamma 0.1 "${L2SIM[@]}" --threads 1000000
  expect_refused "simulate $algo threads 2^31 - 1" "--threads" -- simulate --problem "$WORK/q.json" \
    --algo "$algo" --gamma 0.1 "${L2SIM[@]}" --threads 2147483647
done
expect_refused "simulate fedavg threads 2^31 - 1" "--threads" -- simulate --problem "$WORK/q.json" \
  --algo fedavg --gamma 0.1 "${SIM[@]}" --threads 2147483647
# Deep nesting where a number belongs: refused at once, in memory linear in the depth. The
# peak resident memory is compared with that of a small valid run (the binary's own footprint,
# larger under sanitizers).
/usr/bin/time -f '%M' -o "$WORK/rss.txt" "$FEDVERIFY" predict --problem "$WORK/q.json" \
  --algo fedavg --gamma 0.05 > /dev/null 2>&1
base_rss_kb=$(tail -1 "$WORK/rss.txt")
for depth in 100 20000 100000; do
  "$PYTHON" - "$WORK/deep$depth.json" "$depth" << 'PY'
import sys
d = int(sys.argv[2])
text = ('{"kind": "quadratic", "clients": [{"hessian": [[' + "[" * d + "2.0" + "]" * d +
        ', 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]}]}')
open(sys.argv[1], "w").write(text)
PY
  /usr/bin/time -f '%M' -o "$WORK/rss.txt" "$FEDVERIFY" predict --problem "$WORK/deep$depth.json" \
    --algo fedavg --gamma 0.05 > /dev/null 2>&1
  rss_kb=$(tail -1 "$WORK/rss.txt")
  expect_refused "nesting depth $depth" "deep$depth.json" "nesting" -- predict --problem \
    "$WORK/deep$depth.json" --algo fedavg --gamma 0.05
  if [ "$(wc -c < "$WORK/err.txt")" -gt 1000 ]; then
    fail "nesting depth $depth: the message quotes unbounded input ($(wc -c < "$WORK/err.txt") bytes)"
  fi
  # At most 32 MiB above the small run: far below the quadratic growth of the reader before
  # the depth limit (160 MB at depth 10 000, 14.7 GB at 100 000).
  if [ "${rss_kb:-0}" -gt $((base_rss_kb + 32768)) ]; then
    fail "nesting depth $depth: peak resident memory ${rss_kb} KiB (small run: ${base_rss_kb} KiB)"
  fi
done

# --- Exit 3 on bad input ----------------------------------------------------------------------
for gamma in 1e80 1e100 1e300; do
  expect_refused "predict scaffold gamma $gamma" "--gamma" -- predict --problem "$WORK/q.json" \
    --algo scaffold --gamma "$gamma"
done
write q_huge_hessian '{"kind": "quadratic", "clients": [{"hessian": [[1e300, 0.0], [0.0, 1e300]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]}, {"hessian": [[1.0, 0.0], [0.0, 1.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]}]}'
for algo in fedavg scaffold fedrr; do
  expect_refused "predict $algo hessian 1e300 I" "--gamma" -- predict --problem \
    "$WORK/q_huge_hessian.json" --algo "$algo" --gamma 0.05
done
expect_refused "simulate chains 10^9 (memory)" "--chains" "bytes" "--memory-budget" -- simulate \
  --problem "$WORK/q.json" --algo fedavg --gamma 0.05 --chains 1000000000 --rounds 1000000 \
  --burn-in 10 --seed 1
expect_refused "simulate memory budget 1 MiB" "--chains" "bytes" -- simulate --problem \
  "$WORK/q.json" --algo fedavg --gamma 0.05 --chains 100000 --rounds 20 --burn-in 5 --seed 1 \
  --memory-budget 1048576
expect_ok_or_refused "simulate within the budget" simulate --problem "$WORK/q.json" --algo fedavg \
  --gamma 0.05 "${SIM[@]}" --memory-budget 1048576
[ "$RC" -eq 0 ] || fail "simulate within the budget: exit $RC"
expect_refused "l2gd memory budget" "bytes" -- simulate --problem "$WORK/q.json" --algo l2gd \
  --gamma 0.1 --lambda 0.5 --chains 100000 --rounds 1000 --seed 1 --memory-budget 1048576

# --- Unbounded cost ---------------------------------------------------------------------------
for algo in fedavg scaffold fedrr; do
  expect_ok_or_refused "predict $algo H = 2^31 - 1" predict --problem "$WORK/q.json" --algo "$algo" \
    --gamma 1e-9 --local-steps 2147483647
  [ "$RC" -eq 0 ] || fail "predict $algo H = 2^31 - 1: exit $RC"
  if [ "$(echo "$SECONDS_TAKEN > 5" | bc)" -eq 1 ]; then
    fail "predict $algo H = 2^31 - 1 took $SECONDS_TAKEN s"
  fi
done
# Scaffold's exact moments cost ≈ 3e-8 s × d (d(N + 1))² (the structured solve, THEORY S6a):
# refused before starting when too slow (d = 150, N = 20: ≈ 45 s; d = 5, N = 5000: ≈ 94 s).
"$PYTHON" - "$WORK" << 'PY'
import json, sys
def problem(d, n):
    clients = []
    for c in range(n):
        h = [[(2.0 + c % 3 if i == j else 0.0) for j in range(d)] for i in range(d)]
        s = [[(0.5 if i == j else 0.0) for j in range(d)] for i in range(d)]
        clients.append({"hessian": h, "optimum": [0.1 * ((i + c) % 5) for i in range(d)],
                        "noise_cov": s})
    return {"kind": "quadratic", "clients": clients}
json.dump(problem(150, 20), open(sys.argv[1] + "/q_d150.json", "w"))
json.dump(problem(5, 5000), open(sys.argv[1] + "/q_n5000.json", "w"))
PY
expect_refused "predict scaffold d = 150, N = 20" "q_d150.json" "s" "d(N+1)" -- predict --problem \
  "$WORK/q_d150.json" --algo scaffold --gamma 0.05
expect_refused "predict scaffold N = 5000" "q_n5000.json" "d(N+1)" -- predict --problem \
  "$WORK/q_n5000.json" --algo scaffold --gamma 0.05

# --- Wrong output with exit 0 -----------------------------------------------------------------
for algo in l2gd l2sgd l2sgd+; do
  for gamma in 100 1e308; do
    expect_ok_or_refused "simulate $algo gamma $gamma" simulate --problem "$WORK/q.json" --algo \
      "$algo" --gamma "$gamma" "${L2SIM[@]}"
  done
  expect_ok_or_refused "simulate $algo p 1e-320" simulate --problem "$WORK/q.json" --algo "$algo" \
    --gamma 0.1 "${L2SIM[@]}" --p 1e-320
done
# Long enough for ‖x − x(λ)‖² to overflow: reported as diverged, with where, never null.
for algo in l2gd l2sgd l2sgd+; do
  expect_ok_or_refused "simulate $algo gamma 100, 200 rounds" simulate --problem "$WORK/q.json" \
    --algo "$algo" --gamma 100 --lambda 0.5 --chains 8 --rounds 200 --seed 1
  if [ "$RC" -eq 0 ] && ! grep -qF '"divergence":"chain' "$WORK/out.txt"; then
    fail "simulate $algo gamma 100, 200 rounds: no divergence message: $(head -c 300 "$WORK/out.txt")"
  fi
done
write l_l2_zero '{"kind": "logistic", "l2": 0.0, "batch_size": 1, "clients": [{"features": [[1.0, 0.2], [0.5, -1.0], [1.5, 0.3], [-0.2, 0.8]], "labels": [1, -1, 1, -1]}, {"features": [[-1.0, 0.4], [0.3, 1.2], [-0.7, -0.5]], "labels": [-1, 1, 1]}]}'
for algo in l2gd l2sgd l2sgd+; do
  expect_ok_or_refused "simulate $algo logistic l2 = 0" simulate --problem "$WORK/l_l2_zero.json" \
    --algo "$algo" --gamma 0.1 "${L2SIM[@]}"
done
write q_overflow '{"kind": "quadratic", "clients": [{"hessian": [[1e300, 0.0], [0.0, 1e300]], "optimum": [1e300, -1e300], "noise_cov": [[1e300, 0.0], [0.0, 1e300]]}]}'
expect_ok_or_refused "simulate diverging to non-finite" simulate --problem "$WORK/q_overflow.json" \
  --algo fedavg --gamma 1 "${SIM[@]}"
if [ "$RC" -eq 0 ] && ! grep -qF "not finite" "$WORK/out.txt"; then
  fail "simulate diverging to non-finite: the divergence message does not say \"not finite\": $(cat "$WORK/out.txt")"
fi
expect_refused "qsgd levels 2^31 - 1" "--uplink" -- simulate --problem "$WORK/q.json" --algo l2gd \
  --gamma 0.1 "${L2SIM[@]}" --uplink qsgd:2147483647
expect_refused "random-k beyond d" "--downlink" -- simulate --problem "$WORK/q.json" --algo l2gd \
  --gamma 0.1 "${L2SIM[@]}" --downlink random-k:99999999999

# --- Contract gaps ----------------------------------------------------------------------------
# A result that cannot be written (full output) is an I/O error, not a success.
if [ -w /dev/full ]; then
  "$FEDVERIFY" predict --problem "$WORK/q.json" --algo fedavg --gamma 0.05 > /dev/full 2> "$WORK/err.txt"
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$(wc -l < "$WORK/err.txt")" -ne 1 ]; then
    fail "predict > /dev/full: exit $rc, expected 2 with one stderr line: $(cat "$WORK/err.txt")"
  else
    echo "ok: predict > /dev/full -> $(cat "$WORK/err.txt")"
  fi
fi
printf '{"kind": "quadratic", "clients": [{"hessian": [[1.0]], "optimum": [0.0], "noise_cov": [[1.0]], "bad\\nkey": 1}]}\n' > "$WORK/newline_key.json"
printf '{"kind": "quad\\nratic\\u0007", "clients": []}\n' > "$WORK/newline_kind.json"
expect_refused "key with a newline" "newline_key.json" "bad\\nkey" -- predict --problem \
  "$WORK/newline_key.json" --algo fedavg --gamma 0.05
expect_refused "kind with control characters" "newline_kind.json" "quad\\nratic\\u0007" -- \
  predict --problem "$WORK/newline_kind.json" --algo fedavg --gamma 0.05
expect_refused "algorithm with a newline" "--algo" "fedavg\\n" -- predict --problem "$WORK/q.json" \
  --algo $'fedavg\n' --gamma 0.05
# l2 = 0 and a client whose features do not span R^2 (the whole problem has a minimiser).
OVERLAP='{"features": [[1.0, 0.2], [0.5, -1.0], [1.5, 0.3], [-0.2, 0.8]], "labels": [1, -1, 1, -1]}'
write l_singular '{"kind": "logistic", "l2": 0.0, "batch_size": 1, "clients": [{"features": [[1.0, 0.0], [-1.0, 0.0]], "labels": [1, 1]}, '"$OVERLAP"']}'
write l_separable '{"kind": "logistic", "l2": 0.0, "batch_size": 1, "clients": [{"features": [[1.0, 0.0], [-1.0, 0.0]], "labels": [1, 1]}, {"features": [[0.5, 1.0], [1.0, -1.0], [-0.3, 0.2]], "labels": [1, -1, 1]}]}'
write l_l2_huge '{"kind": "logistic", "l2": 1e308, "batch_size": 1, "clients": [{"features": [[1.0, 0.0], [-1.0, 0.0]], "labels": [1, 1]}, '"$OVERLAP"']}'
write l_features_huge '{"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [{"features": [[1e300, 0.0], [-1.0, 0.0]], "labels": [1, 1]}, '"$OVERLAP"']}'
for name in l_singular l_separable l_l2_huge l_features_huge; do
  for sub in predict simulate; do
    args=(--problem "$WORK/$name.json" --algo fedavg --gamma 0.05)
    [ "$sub" = simulate ] && args+=("${SIM[@]}")
    run "$sub" "${args[@]}"
    if [ "$RC" -eq 0 ]; then
      clean_output "$sub $name" && echo "ok: $sub $name -> exit 0"
    elif [ "$RC" -ne 2 ] || [ "$(wc -l < "$WORK/err.txt")" -ne 1 ] ||
        ! grep -qF "$name.json" "$WORK/err.txt" || grep -qF "hessian" "$WORK/err.txt"; then
      fail "$sub $name: expected exit 2 naming the file in logistic terms: exit $RC: $(cat "$WORK/err.txt")"
    else
      clean_output "$sub $name" && echo "ok: $sub $name -> $(cat "$WORK/err.txt")"
    fi
  done
done

# Baselines: typed, and of the same provenance (seed, quick, version, claims).
only='personalised.optimum-limits'
"$FEDVERIFY" report --quick --only "$only" --out "$WORK/base" > /dev/null 2>&1 ||
  fail "reference report did not exit 0"
tamper() {  # tamper <name> <python statement on the json `j`>
  "$PYTHON" - "$WORK/base/results.json" "$WORK/$1.json" "$2" << 'PY'
import json, sys
j = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(j, open(sys.argv[2], "w"))
PY
}
tamper string_value 'r = next(r for c in j["claims"] for r in c["rows"] if r.get("gates")); g = r["gates"][0]; g["value"] = str(g["value"] + 1e6); g["tolerance"] = str(g["tolerance"])'
expect_refused "baseline with a string gate value" "--baseline" "gates[0].value" "number" -- \
  report --quick --only "$only" --out "$WORK/r1" --baseline "$WORK/string_value.json"
tamper string_data 'r = next(r for c in j["claims"] for r in c["rows"]); r["data"]["value"] = "1e6"; r["data"]["tolerance"] = "1"'
expect_refused "baseline with a string data value" "--baseline" "data.value" -- \
  report --quick --only "$only" --out "$WORK/r2" --baseline "$WORK/string_data.json"
tamper other_seed 'j["fedverify"]["seed"] = 12345'
expect_refused "baseline with another seed" "--baseline" "seed" "--baseline-mismatch-ok" -- \
  report --quick --only "$only" --out "$WORK/r3" --baseline "$WORK/other_seed.json"
run report --quick --only "$only" --out "$WORK/r4" --baseline "$WORK/other_seed.json" \
  --baseline-mismatch-ok
if [ "$RC" -ne 0 ] || ! grep -qi "mismatch" "$WORK/r4/REPORT.md"; then
  fail "baseline with another seed and --baseline-mismatch-ok: exit $RC, REPORT.md must say it compared across a mismatch"
else
  echo "ok: --baseline-mismatch-ok -> $(grep -i mismatch "$WORK/r4/REPORT.md" | head -1)"
fi
tamper not_quick 'j["fedverify"]["quick"] = False'
expect_refused "baseline of the full grid" "--baseline" "quick" -- report --quick --only "$only" \
  --out "$WORK/r5" --baseline "$WORK/not_quick.json"
tamper other_version 'j["fedverify"]["version"] = "0.0.0-other"'
expect_refused "baseline of another version" "--baseline" "version" -- report --quick --only \
  "$only" --out "$WORK/r6" --baseline "$WORK/other_version.json"
tamper other_claims 'j["fedverify"]["claims"] = ["personalised.other"]'
expect_refused "baseline of other claims" "--baseline" "claims" -- report --quick --only "$only" \
  --out "$WORK/r7" --baseline "$WORK/other_claims.json"

finish "hostile inputs"
