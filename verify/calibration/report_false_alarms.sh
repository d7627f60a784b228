#!/usr/bin/env bash
# Report-level false-alarm rate of `fedverify report --quick` on a correct build (issue 13):
# runs the quick report at seeds FIRST..LAST and counts the seeds at which any claim fails. On a
# correct build every failure is a false alarm; the report holds the rate at ≤ Σ_claims α² ≈ 1e-3
# by its confirmation rerun (verify/claims/claim.hpp, run_claim). It also counts the seeds at
# which some row failed its FIRST attempt (results.json "first_attempt"): the rate the report
# would have without the rerun (about one seed in ten with ten claims at α = 0.01).
#
# Usage: verify/calibration/report_false_alarms.sh FEDVERIFY FIRST LAST WORKDIR
#   e.g. nice -n 10 verify/calibration/report_false_alarms.sh build/fedverify 1 50 /tmp/fa
# Each seed takes ~40 s on 2 cores. Per seed it prints one line (exit code, failed claims, rows
# rerun); at the end "seeds with any failure: X / N" and "seeds with a first-attempt failure:
# Y / N". Exit 0 when it ran (whatever it counted), 2 on bad usage or an exit code other than 0/1.
set -u
if [ $# -ne 4 ]; then
  echo "usage: $0 FEDVERIFY FIRST LAST WORKDIR" >&2
  exit 2
fi
fedverify=$1 first=$2 last=$3 work=$4
mkdir -p "$work" || exit 2
failed=0 first_failed=0 n=0
for seed in $(seq "$first" "$last"); do
  out="$work/seed-$seed"
  start=$(date +%s.%N)
  "$fedverify" report --quick --seed "$seed" --out "$out" 2>"$work/seed-$seed.stderr"
  code=$?
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  if [ "$code" -ne 0 ] && [ "$code" -ne 1 ]; then
    echo "seed $seed: exit $code (not a verdict); see $work/seed-$seed.stderr" >&2
    exit 2
  fi
  summary=$(python3 - "$out/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
failed = [c["id"] for c in r["claims"] if not c["passed"]]
reruns = [f'{c["id"]} [{row["setting"]}]' for c in r["claims"] for row in c["rows"]
          if "first_attempt" in row]
print(f'{len(failed)}\t{len(reruns)}\tfailed: {", ".join(failed) or "none"}; rerun rows: '
      f'{"; ".join(reruns) or "none"}')
PY
)
  nfail=$(echo "$summary" | cut -f1)
  nrerun=$(echo "$summary" | cut -f2)
  n=$((n + 1))
  [ "$nfail" -gt 0 ] && failed=$((failed + 1))
  [ "$nrerun" -gt 0 ] && first_failed=$((first_failed + 1))
  printf 'seed %s: exit %s, %.0f s, %s\n' "$seed" "$code" "$seconds" "$(echo "$summary" | cut -f3)"
done
echo "seeds with any failure: $failed / $n"
echo "seeds with a first-attempt failure (no rerun): $first_failed / $n"
