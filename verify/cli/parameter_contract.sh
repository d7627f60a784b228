#!/usr/bin/env bash
# Parameters of an algorithm (docs/DESIGN-EXTENSIONS.md, "Parameters of an algorithm";
# theory/problems/algorithm_parameter.hpp), end to end with FedNova's --client-steps:
#  - predict gives the exact fields on a quadratic problem and echoes the parameter; with one
#    value for every client its exact moments are FedAvg's at that H (to 1e-12 relative);
#  - simulate runs and echoes it; a run spec and a claim file carry the list as a JSON array;
#  - --help declares the option and says which algorithm reads it;
#  - bad input exits 2 with one stderr line naming the flag or the field;
#  - the personalised and game families' settings are declared parameters too (L2GD's --lambda
#    and --p, FedGDA's --step-ratio, FedSGDA's --batch-size): required, open bounds, refused with
#    another algorithm, absent from a subcommand whose algorithms do not read them.
# Usage: bash parameter_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
PROBLEM="$(cd "$SOURCE_DIR" && pwd)/examples/problems/quadratic.json"  # N = 3; absolute: a claim file names it

common=(--problem "$PROBLEM" --gamma 0.05)
if "$FEDVERIFY" predict --algo fednova --client-steps 1,2,4 "${common[@]}" > "$WORK/p.json" \
    2> "$WORK/err.txt" && python3 - "$WORK/p.json" << 'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o["algorithm"] == "fednova", o["algorithm"]
assert o["parameters"] == {"client_steps": [1, 2, 4]}, o.get("parameters")
assert "mean_exact" in o and "cov_exact" in o and o["spectral_radius"] < 1
assert "mean_first_order" not in o, "fednova has no first-order expansion"
PY
then echo "ok: predict --algo fednova"; else fail "predict fednova: $(head -c 300 "$WORK/err.txt")"; fi

"$FEDVERIFY" predict --algo fednova --client-steps 3 "${common[@]}" > "$WORK/nova.json" &&
  "$FEDVERIFY" predict --algo fedavg --local-steps 3 "${common[@]}" > "$WORK/avg.json"
if python3 - "$WORK/nova.json" "$WORK/avg.json" << 'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["parameters"] == {"client_steps": 3}, a["parameters"]
for key in ("mean_exact", "cov_exact"):
    x, y = a[key], b[key]
    flat = lambda v: [u for row in v for u in (row if isinstance(row, list) else [row])]
    scale = max(abs(u) for u in flat(y))
    assert max(abs(u - v) for u, v in zip(flat(x), flat(y))) <= 1e-12 * scale, key
PY
then echo "ok: one value for every client is FedAvg's H"; else fail "fednova H_c = 3 is not fedavg H = 3"; fi

run=(--chains 64 --rounds 200 --burn-in 50 --seed 7 --threads 2)
if "$FEDVERIFY" simulate --algo fednova --client-steps 1,2,4 "${common[@]}" "${run[@]}" \
    > "$WORK/s.json" 2> "$WORK/err.txt" &&
    python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); assert o["parameters"] == {"client_steps": [1, 2, 4]} and len(o["mean"]) > 0' "$WORK/s.json"; then
  echo "ok: simulate --algo fednova"
else
  fail "simulate fednova: $(head -c 300 "$WORK/err.txt")"
fi

# A run spec writes the list as a JSON array.
printf '{"algo": "fednova", "client_steps": [1, 2, 4], "gamma": 0.05}\n' > "$WORK/spec.json"
if "$FEDVERIFY" predict --problem "$PROBLEM" --spec "$WORK/spec.json" | cmp -s - "$WORK/p.json"; then
  echo "ok: a run spec carries a per-client list"
else
  fail "run spec with client_steps differs from the command line"
fi

# A claim file with options.client_steps: the user's values for the mean hold when they are
# FedNova's exact mean for [1, 2, 4] and fail when they are FedAvg's at H = 2 (so the list, not a
# default, reached the run).
"$FEDVERIFY" predict --algo fedavg --local-steps 2 "${common[@]}" > "$WORK/avg2.json"
claim() {  # claim <file> <prediction json>
  python3 - "$1" "$2" "$PROBLEM" << 'PY'
import json, sys
mean = json.load(open(sys.argv[2]))["mean_exact"]
json.dump({"id": "fednova.exact-mean", "statement": "FedNova's exact mean",
           "problem": sys.argv[3], "algorithm": "fednova", "options": {"client_steps": [1, 2, 4]},
           "grid": {"gamma": [0.05]}, "predicted": {"quantity": "mean", "values": [mean]},
           "measured": {"source": "exact"}, "decision": {"rule": "tolerance", "tolerance": 1e-9}},
          open(sys.argv[1], "w"))
PY
}
claim "$WORK/claim.json" "$WORK/p.json"
claim "$WORK/wrong.json" "$WORK/avg2.json"
"$FEDVERIFY" check "$WORK/claim.json" --out "$WORK/check" > /dev/null 2> "$WORK/err.txt"
rc_right=$?
"$FEDVERIFY" check "$WORK/wrong.json" --out "$WORK/check" > /dev/null 2> "$WORK/err2.txt"
rc_wrong=$?
if [ "$rc_right" -eq 0 ] && [ "$rc_wrong" -eq 1 ]; then
  echo "ok: a claim file's options.client_steps reaches the run"
else
  fail "claim file with client_steps: exits $rc_right (own mean) and $rc_wrong (FedAvg's): $(head -c 300 "$WORK/err.txt")"
fi

"$FEDVERIFY" simulate --help > "$WORK/help.txt" 2>&1
grep -qF -- "--client-steps" "$WORK/help.txt" && grep -qF -- "only --algo fednova" "$WORK/help.txt" ||
  fail "simulate --help does not declare --client-steps for fednova"

expect_error "fednova without --client-steps" "--client-steps: required by --algo fednova" \
  predict --algo fednova "${common[@]}"
expect_error "--client-steps with fedavg" "--client-steps: only for --algo fednova" \
  predict --algo fedavg --client-steps 1,2,4 "${common[@]}"
expect_error "a list of the wrong length" "--client-steps: expected one value per client (3)" \
  predict --algo fednova --client-steps 1,2 "${common[@]}"
expect_error "a fraction" "--client-steps: expected an integer" \
  predict --algo fednova --client-steps 1,2.5,3 "${common[@]}"
expect_error "zero steps" "--client-steps: expected an integer" \
  predict --algo fednova --client-steps 1,0,3 "${common[@]}"
expect_error "--local-steps with fednova" "--local-steps" \
  predict --algo fednova --client-steps 1,2,4 --local-steps 2 "${common[@]}"
expect_error "a list for a preset's parameter" "--mu: expected one number" \
  predict --algo fedprox --mu 0.1,0.2 "${common[@]}" --local-steps 2
expect_error "fednova on a logistic problem" "quadratic and linear-sa problems only" \
  predict --algo fednova --client-steps 1,2,4 --problem "$SOURCE_DIR/examples/problems/logistic.json" --gamma 0.05
sed 's/"client_steps": \[1, 2, 4\]/"client_steps": [1, "2"]/' "$WORK/claim.json" > "$WORK/bad.json"
expect_error "a claim file's non-number" "options.client_steps[1]" check "$WORK/bad.json" --out "$WORK/check2"

# The personalised and game families' parameters (theory/problems/l2gd_parameters.hpp,
# gda_parameters.hpp).
GAME="$SOURCE_DIR/examples/problems/quadratic-game.json"
IV="$SOURCE_DIR/examples/problems/linear-iv.json"
expect_error "l2gd without --lambda" "--lambda: required by --algo l2gd" \
  predict --algo l2gd "${common[@]}"
expect_error "lambda = 0 (open bound)" "--lambda: expected a number > 0, got 0" \
  predict --algo l2gd --lambda 0 "${common[@]}"
expect_error "p = 1 (open bound)" "--p: expected a number in (0, 1), got 1" \
  predict --algo l2gd --lambda 0.5 --p 1 "${common[@]}"
expect_error "--lambda with fedavg" "--lambda: only for --algo l2gd, l2gd+, l2sgd, l2sgd+ and l2sgd++, not for --algo fedavg" \
  simulate --algo fedavg --lambda 0.5 "${common[@]}" "${run[@]}"
expect_error "--client-steps with l2gd" "--client-steps: only for --algo fednova, not for --algo l2gd" \
  predict --algo l2gd --lambda 0.5 --client-steps 1,2,4 "${common[@]}"
expect_error "--step-ratio 0" "--step-ratio: expected a number > 0, got 0" \
  predict --algo fedgda --problem "$GAME" --gamma 0.05 --step-ratio 0
expect_error "fedsgda without --batch-size" "--batch-size: required by --algo fedsgda" \
  simulate --algo fedsgda --problem "$IV" --gamma 0.05 "${run[@]}"
expect_error "--batch-size 1.5" "--batch-size: expected an integer in [1, 1048576], got 1.5" \
  simulate --algo fedsgda --problem "$IV" --gamma 0.05 --batch-size 1.5 "${run[@]}"
# p absent is p* = lambda/(lambda + L); given, it is echoed as given.
if "$FEDVERIFY" predict --algo l2gd --lambda 0.5 "${common[@]}" > "$WORK/l2.json" &&
    "$FEDVERIFY" predict --algo l2gd --lambda 0.5 --p 0.3 "${common[@]}" > "$WORK/l2p.json" &&
    python3 - "$WORK/l2.json" "$WORK/l2p.json" << 'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a["p"] == a["p_star"] == 0.5 / (0.5 + a["L"]), (a["p"], a["p_star"], a["L"])
assert b["p"] == 0.3 and b["lambda"] == 0.5, (b["p"], b["lambda"])
PY
then echo "ok: --p absent is p*, given is echoed"; else fail "l2gd --p default or echo"; fi
"$FEDVERIFY" conformance --help > "$WORK/conf-help.txt" 2>&1
for flag in --lambda --p --step-ratio --batch-size --client-steps; do
  grep -qE -- "^ *$flag( |$)" "$WORK/conf-help.txt" && fail "conformance --help lists $flag (no algorithm it checks reads it)"
done
"$FEDVERIFY" predict --help > "$WORK/predict-help.txt" 2>&1
grep -qE -- "--lambda .*only --algo l2gd\)" "$WORK/predict-help.txt" ||
  fail "predict --help: --lambda should name l2gd alone (l2sgd has no closed forms)"

finish "parameter contract"
