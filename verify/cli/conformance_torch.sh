#!/usr/bin/env bash
# A framework-style PyTorch trainer through the bridge fedverify.torch, unmodified, in the
# per-model protocol (issue 28 item 1): verify/conformance/torch_trainer.py (Client, Server,
# torch.optim.SGD, state_dict averaging, its own client sampling) checked by
# `fedverify conformance --per-model`. Fast: trajectory mode at 8 chains × 5 rounds — FedAvg,
# FedProx and a momentum server agree to float64 round-off, a weight decay of 1e-4 is found at its
# first local step. With a third argument `statistical` (the slow ctest
# conformance.torch_statistical): the statistical checks with client sampling, S = 2 of 3, at the
# per-model default of 64 chains — the issue's target is ≤ 2 min per check on 2 cores (measured
# 57 s on an AMD EPYC Zen 5), printed, not asserted (a timing is not a verdict).
# Skipped (exit 77) when python3-torch or the built Python package is missing.
# Usage: bash conformance_torch.sh <path-to-fedverify> <source-dir> [statistical]
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
PACKAGE="$(dirname "$FEDVERIFY")/python"  # the build tree's fedverify package (fedverify.torch)
if ! PYTHONPATH="$PACKAGE" /usr/bin/python3 -c "import fedverify.torch" 2> /dev/null; then
  echo "skip: fedverify.torch is not importable (python3-torch, or the Python package, missing)"
  exit 77
fi
TRAINER="env PYTHONPATH=$PACKAGE /usr/bin/python3 $SOURCE_DIR/verify/conformance/torch_trainer.py"
PROBLEM="$SOURCE_DIR/verify/conformance/problem.json"
base=(conformance --problem "$PROBLEM" --gamma 0.05 --local-steps 10 --seed 11 --per-model)

if [ "${3:-}" = statistical ]; then
  expect "torch trainer, S = 2 of 3, statistical checks at 64 chains" 0 '"conforms":true' \
    "${base[@]}" --algo fedopt --participating 2 --exec "$TRAINER"
  finish "conformance through the PyTorch bridge (statistical)"
fi

traj=("${base[@]}" --trajectory float64)
expect "torch trainer fedavg: trajectory" 0 '"conforms":true' "${traj[@]}" --algo fedavg --exec "$TRAINER"
expect "torch trainer fedprox: trajectory" 0 '"conforms":true' "${traj[@]}" --algo fedopt --client fedprox:mu=0.5 --exec "$TRAINER"
expect "torch trainer fedavgm: trajectory" 0 '"conforms":true' "${traj[@]}" --algo fedopt --server sgd:lr=0.7,momentum=0.5 --exec "$TRAINER"
expect "torch trainer with torch.optim.SGD(weight_decay=0.05) declared: trajectory" 0 '"conforms":true' "${traj[@]}" --algo fedavg --weight-decay 0.05 --exec "$TRAINER"
expect "torch trainer weight decay 1e-4: found at round 1, local step 1" 1 "round 1, chain 0, client 0: local step 1" \
  "${traj[@]}" --algo fedavg --exec "$TRAINER --bug weight_decay"
# The framework adapters of examples/frameworks: without their framework (not installed here),
# one stderr line naming the package and version, exit 3, no traceback.
for adapter in "$SOURCE_DIR"/examples/frameworks/*_adapter.py; do
  PYTHONPATH="$PACKAGE" /usr/bin/python3 "$adapter" < /dev/null > "$WORK/out.txt" 2> "$WORK/err.txt"
  rc=$?
  if [ "$rc" -eq 3 ] && [ "$(wc -l < "$WORK/err.txt")" -eq 1 ] && grep -q "pip install" "$WORK/err.txt"; then
    echo "ok: $(basename "$adapter") without its framework: $(head -c 100 "$WORK/err.txt")"
  elif [ "$rc" -ne 3 ] && ! grep -q "Traceback" "$WORK/err.txt"; then
    echo "ok: $(basename "$adapter"): its framework is installed (exit $rc without a run message)"
  else
    fail "$(basename "$adapter"): exit $rc, stderr: $(head -c 300 "$WORK/err.txt")"
  fi
done
finish "conformance through the PyTorch bridge"
