#!/usr/bin/env bash
# Presets (docs/CLI.md, "Presets"; theory/problems/algorithm_preset.hpp): `--algo fedprox --mu M`,
# `--algo fedavgm --momentum B [--server-lr E]` and `--algo fedadam [...]` run fedopt with those
# optimisers. Checked here, end to end:
#  - predict and simulate give exactly the numbers of the equivalent --algo fedopt run (the same
#    seed), the output saying "preset" beside "algorithm": "fedopt";
#  - conformance accepts a preset (the fedopt protocol);
#  - --help lists the presets and their options;
#  - bad input exits 2 with one stderr line naming the flag.
# Usage: bash preset_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
PROBLEM="$SOURCE_DIR/examples/problems/quadratic.json"

# same <what> <preset args…> -- <fedopt args…>: the two predict/simulate outputs are equal once
# the preset field is dropped, and the preset's output names it.
same() {
  local what=$1
  shift
  local -a preset=() fedopt=()
  while [ "$1" != "--" ]; do preset+=("$1"); shift; done
  shift
  fedopt=("$@")
  if ! "$FEDVERIFY" "${preset[@]}" > "$WORK/a.json" 2> "$WORK/err.txt"; then
    fail "$what: preset run failed: $(head -c 300 "$WORK/err.txt")"
    return
  fi
  if ! "$FEDVERIFY" "${fedopt[@]}" > "$WORK/b.json" 2> "$WORK/err.txt"; then
    fail "$what: fedopt run failed: $(head -c 300 "$WORK/err.txt")"
    return
  fi
  if python3 - "$WORK/a.json" "$WORK/b.json" "${preset[2]}" << 'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert a.pop("preset") == sys.argv[3], "no preset field"
assert "preset" not in b, "fedopt run has a preset field"
assert a["algorithm"] == "fedopt", a["algorithm"]
assert a == b, "outputs differ"
PY
  then echo "ok: $what equals its fedopt run"; else fail "$what: differs from its fedopt run"; fi
}

common=(--problem "$PROBLEM" --gamma 0.05 --local-steps 3)
run=(--chains 64 --rounds 200 --burn-in 50 --seed 7 --threads 2)
same "predict fedprox" predict --algo fedprox --mu 0.3 "${common[@]}" -- \
  predict --algo fedopt --client fedprox:mu=0.3 "${common[@]}"
same "simulate fedprox" simulate --algo fedprox --mu 0.3 "${common[@]}" "${run[@]}" -- \
  simulate --algo fedopt --client fedprox:mu=0.3 "${common[@]}" "${run[@]}"
same "predict fedavgm" predict --algo fedavgm --momentum 0.5 --server-lr 1.5 "${common[@]}" -- \
  predict --algo fedopt --server sgd:momentum=0.5,lr=1.5 "${common[@]}"
same "simulate fedavgm" simulate --algo fedavgm --momentum 0.5 "${common[@]}" "${run[@]}" -- \
  simulate --algo fedopt --server sgd:momentum=0.5 "${common[@]}" "${run[@]}"
same "simulate fedadam" simulate --algo fedadam --beta2 0.99 "${common[@]}" "${run[@]}" -- \
  simulate --algo fedopt --server adam:beta2=0.99 "${common[@]}" "${run[@]}"

# The run spec (--spec) accepts the preset keys like any option.
printf '{"algo": "fedprox", "mu": 0.3, "gamma": 0.05, "local_steps": 3}\n' > "$WORK/spec.json"
if "$FEDVERIFY" predict --problem "$PROBLEM" --spec "$WORK/spec.json" > "$WORK/c.json" 2> "$WORK/err.txt" &&
    "$FEDVERIFY" predict --algo fedprox --mu 0.3 "${common[@]}" | cmp -s - "$WORK/c.json"; then
  echo "ok: a run spec names a preset and its parameter"
else
  fail "run spec with a preset: $(head -c 300 "$WORK/err.txt")"
fi

# conformance: the reference FedProx (verify/conformance/reference_fl.py) conforms as --algo fedprox.
"$FEDVERIFY" conformance --problem "$SOURCE_DIR/verify/conformance/problem.json" --algo fedprox \
  --mu 0.5 --gamma 0.05 --local-steps 10 --rounds 300 --burn-in 50 --seed 11 \
  --exec "/usr/bin/python3 $SOURCE_DIR/verify/conformance/reference_fl.py" \
  > "$WORK/conf.json" 2> "$WORK/err.txt"
rc=$?
if [ "$rc" -eq 0 ] && python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); assert o["preset"] == "fedprox" and o["conforms"]' "$WORK/conf.json"; then
  echo "ok: conformance runs --algo fedprox"
else
  fail "conformance --algo fedprox: exit $rc: $(head -c 300 "$WORK/conf.json") $(head -c 300 "$WORK/err.txt")"
fi

# --help: the presets and their options.
"$FEDVERIFY" simulate --help > "$WORK/help.txt" 2>&1
for text in "fedprox" "fedavgm" "fedadam" "--mu" "--momentum" "--server-lr" "--beta1"; do
  grep -qF -- "$text" "$WORK/help.txt" || fail "simulate --help does not mention $text"
done

expect_error "fedprox without --mu" "--mu: required by --algo fedprox" \
  predict --algo fedprox "${common[@]}"
expect_error "a negative --mu" "--mu: expected" predict --algo fedprox --mu -1 "${common[@]}"
expect_error "--mu with fedavg" "--mu: only for --algo fedprox" \
  predict --algo fedavg --mu 0.1 "${common[@]}"
expect_error "--momentum with fedprox" "--momentum: only for --algo fedavgm" \
  predict --algo fedprox --mu 0.1 --momentum 0.5 "${common[@]}"
expect_error "--server with fedavgm" "--server: not with --algo fedavgm" \
  predict --algo fedavgm --momentum 0.5 --server adam "${common[@]}"
expect_error "momentum 1" "--momentum: expected" predict --algo fedavgm --momentum 1 "${common[@]}"
expect_error "fedadam has no closed forms: the error says the preset set --server" \
  "(--algo fedadam runs fedopt with --server adam)" predict --algo fedadam "${common[@]}"
expect_error "an unknown name lists the presets" "fedprox" predict --algo fedproxx "${common[@]}"

finish "preset contract"
