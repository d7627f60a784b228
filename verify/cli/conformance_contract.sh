#!/usr/bin/env bash
# `fedverify conformance` on the shipped reference implementations (verify/conformance/
# reference_fl.py): the correct FedAvg, Scaffold, FedProx and FedAvg with client sampling conform
# (exit 0), and every planted framework bug is caught (exit 1) with a diagnosis naming what it
# points to; protocol errors of the implementation are exit 2 naming --exec. One seed per case
# here (the detection rates over 20 seeds are verify/conformance/detection.py, a slow test).
# The four tests of a run share α = 0.01, so a correct implementation fails with probability
# ≤ 0.01 per run: the cases use fixed seeds, so the outcome is deterministic.
# Usage: bash conformance_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
REF="/usr/bin/python3 $SOURCE_DIR/verify/conformance/reference_fl.py"
PROBLEM="$SOURCE_DIR/verify/conformance/problem.json"
base=(conformance --problem "$PROBLEM" --gamma 0.05 --local-steps 10 --rounds 300 --burn-in 50 --seed 11)

expect "fedavg, correct" 0 '"conforms":true' "${base[@]}" --algo fedavg --exec "$REF"
expect "scaffold, correct" 0 '"conforms":true' "${base[@]}" --algo scaffold --exec "$REF"
expect "fedprox, correct" 0 '"conforms":true' "${base[@]}" --algo fedopt --client fedprox:mu=0.5 --exec "$REF"
expect "fedavg S = 2 of 3, correct" 0 '"conforms":true' "${base[@]}" --algo fedopt --participating 2 --exec "$REF"
expect "scaffold S = 2 of 3, correct" 0 '"conforms":true' "${base[@]}" --algo scaffold --participating 2 --exec "$REF"
expect "scaffold correction sign" 1 "control-variate update" "${base[@]}" --algo scaffold --exec "$REF --bug correction_sign"
expect "scaffold server adds c_i" 1 '"conforms":false' "${base[@]}" --algo scaffold --exec "$REF --bug server_adds_ci"
expect "scaffold step count" 1 '"conforms":false' "${base[@]}" --algo scaffold --exec "$REF --bug cv_step_count"
expect "scaffold random init" 1 "initial state" "${base[@]}" --algo scaffold --exec "$REF --bug random_cv_init"
expect "fedprox without the square" 1 '"conforms":false' "${base[@]}" --algo fedopt --client fedprox:mu=0.5 --exec "$REF --bug prox_no_square"
expect "fedavg weights 1.05" 1 "aggregation" "${base[@]}" --algo fedavg --exec "$REF --bug weights_not_one"
expect "fedavg N for S" 1 "aggregation" "${base[@]}" --algo fedopt --participating 2 --exec "$REF --bug n_for_s"
expect "scaffold |S| for N" 1 "instead of N" "${base[@]}" --algo scaffold --participating 2 --exec "$REF --bug cv_s_for_n"

# Trajectory mode (--trajectory): every request and round replayed at 8 chains × 5 rounds.
traj=(conformance --problem "$PROBLEM" --gamma 0.05 --local-steps 10 --seed 11 --trajectory float64)
expect "trajectory: fedavg, correct" 0 '"conforms":true' "${traj[@]}" --algo fedavg --exec "$REF"
expect "trajectory: fedprox, correct" 0 '"conforms":true' "${traj[@]}" --algo fedopt --client fedprox:mu=0.5 --exec "$REF"
expect "trajectory: scaffold, correct" 0 '"conforms":true' "${traj[@]}" --algo scaffold --exec "$REF"
expect "trajectory: weight decay 1e-4" 1 "round 1, chain 0, client 0: local step 1" "${traj[@]}" --algo fedavg --exec "$REF --bug weight_decay"
expect "trajectory: scaffold correction sign" 1 "round 2, chain 0" "${traj[@]}" --algo scaffold --exec "$REF --bug correction_sign"
expect "trajectory: weights 1.05" 1 "average of the clients' endpoints" "${traj[@]}" --algo fedavg --exec "$REF --bug weights_not_one"
expect "trajectory: fedavgm, correct" 0 '"conforms":true' "${traj[@]}" --algo fedopt --server sgd:lr=0.7,momentum=0.5 --exec "$REF"
expect "trajectory: fedavgm preset, correct" 0 '"conforms":true' "${traj[@]}" --algo fedavgm --momentum 0.3 --server-lr 0.6 --exec "$REF"
expect "trajectory: nesterov server, correct" 0 '"conforms":true' "${traj[@]}" --algo fedopt --server sgd:lr=0.6,momentum=0.3,nesterov=1 --exec "$REF"
expect "trajectory: fedavgm buffer reset" 1 "round 2, chain 0: the reported x_(t+1)" "${traj[@]}" --algo fedopt --server sgd:lr=0.7,momentum=0.5 --exec "$REF --bug momentum_reset"
expect "trajectory: fedavgm rule ignored" 1 "round 1, chain 0: the reported x_(t+1)" "${traj[@]}" --algo fedopt --server sgd:lr=0.7,momentum=0.5 --exec "$REF --bug server_lr_ignored"
expect "trajectory: fedavg with weight decay 0.05, correct" 0 '"conforms":true' "${traj[@]}" --algo fedavg --weight-decay 0.05 --exec "$REF"
# Client weights (THEORY (A1)): the problem's clients hold 120, 30 and 50 samples; the run message
# carries client_weights and the server must average with them (FedLab #305 did not).
WEIGHTED="$SOURCE_DIR/verify/conformance/problem_weighted.json"
expect "weighted fedavg, correct" 0 '"conforms":true' conformance --problem "$WEIGHTED" --gamma 0.05 --local-steps 10 --rounds 300 --burn-in 50 --seed 11 --algo fedavg --exec "$REF"
expect "weighted fedavg, equal weights (FedLab #305)" 1 "equal weights" conformance --problem "$WEIGHTED" --gamma 0.05 --local-steps 10 --rounds 300 --burn-in 50 --seed 11 --algo fedavg --exec "$REF --bug equal_weights"
expect "trajectory: weighted fedavg, correct" 0 '"conforms":true' conformance --problem "$WEIGHTED" --gamma 0.05 --local-steps 10 --seed 11 --trajectory float64 --algo fedavg --exec "$REF"
expect "trajectory: equal weights (FedLab #305)" 1 "round 1, chain 0: the reported x_(t+1)" conformance --problem "$WEIGHTED" --gamma 0.05 --local-steps 10 --seed 11 --trajectory float64 --algo fedavg --exec "$REF --bug equal_weights"
expect_error "weighted clients with scaffold" "clients[].weight" conformance --problem "$WEIGHTED" --gamma 0.05 --local-steps 10 --seed 11 --algo scaffold --exec "$REF"
expect_error "negative weight decay" "--weight-decay" "${traj[@]}" --algo fedavg --weight-decay -0.1 --exec "$REF"
expect_error "trajectory with an adaptive server (no replay: the statistical checks)" "--trajectory" "${traj[@]}" --algo fedopt --server adam --exec "$REF"
expect_error "trajectory with client sampling" "--trajectory" "${traj[@]}" --algo fedopt --participating 2 --exec "$REF"
expect_error "trajectory precision" "--trajectory" "${traj[@]/float64/float16}" --algo fedavg --exec "$REF"

# A framework that prints on stdout: the protocol on fds 3 and 4 (--protocol-fds) keeps it intact.
expect "prints on stdout, --protocol-fds" 0 '"conforms":true' "${traj[@]}" --algo fedavg --protocol-fds --exec "$REF --chatty"
expect_error "prints on stdout without --protocol-fds" "expected a JSON object per line" "${traj[@]}" --algo fedavg --exec "$REF --chatty"

expect_error "implementation that exits" "--exec" "${base[@]}" --algo fedavg --exec "true"
expect_error "implementation that writes garbage" "--exec" "${base[@]}" --algo fedavg --exec "echo hello"
expect_error "an algorithm without a conformance law" "--algo" "${base[@]}" --algo fedrr --exec "$REF"
expect_error "more clients sampled than there are" "--participating" "${base[@]}" --algo scaffold --participating 4 --exec "$REF"
# Per-model mode (--per-model): one chain per run message, in --workers processes; the numbers are
# the batched mode's (chain k's noise is chain k's whichever process runs it), bit for bit.
small=(conformance --problem "$PROBLEM" --gamma 0.05 --local-steps 10 --rounds 60 --burn-in 20 --chains 16 --one-round-chains 64 --seed 11)
"$FEDVERIFY" "${small[@]}" --algo fedavg --exec "$REF" > "$WORK/batched.json" 2> "$WORK/err.txt"
for workers in 1 3; do
  "$FEDVERIFY" "${small[@]}" --algo fedavg --per-model --workers $workers --exec "$REF --per-model" > "$WORK/per_model.json" 2>> "$WORK/err.txt"
  if /usr/bin/python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(a["checks"] != b["checks"] or not b["per_model"])' "$WORK/batched.json" "$WORK/per_model.json"; then
    echo "ok: per-model with $workers workers = batched, bit for bit"
  else
    fail "per-model ($workers workers) differs from batched: $(head -c 300 "$WORK/per_model.json") $(head -c 300 "$WORK/err.txt")"
  fi
done
expect "per-model: fedavg S = 2 of 3 (own sampling per chain), correct" 0 '"conforms":true' "${base[@]}" --algo fedopt --participating 2 --per-model --exec "$REF --per-model"
expect "per-model trajectory: weight decay 1e-4" 1 "round 1, chain 0, client 0: local step 1" "${traj[@]}" --algo fedavg --per-model --exec "$REF --per-model --bug weight_decay"
expect_error "per-model: an implementation that exits after one run" "read the next run message" "${small[@]}" --algo fedavg --per-model --workers 1 --exec "$REF"
expect_error "per-model: --workers out of range" "--workers" "${small[@]}" --algo fedavg --per-model --workers 999 --exec "$REF --per-model"

finish "conformance contract"
