#!/usr/bin/env bash
# CLI contract of the game family (`--algo fedgda|fedsgda`, THEORY §10; docs/DESIGN-EXTENSIONS.md,
# "Games"):
#  - predict on a quadratic game and on a linear-IV game: exit 0, the documented fields; on the
#    linear-IV game the equilibrium's θ-part is the GMM estimator theta_gmm (M5) to round-off
#    (both are computed by different routes: an LU solve of the (p + q) saddle system against a
#    Cholesky-whitened least-squares solve, so agreement to 1e-10 relative is not by construction);
#  - simulate: the same seed gives byte-identical output on 1 and 2 threads; FedGDA's simulated
#    mean lies within 5 MCSE of mean_exact in every coordinate (α = 5.7e-7 per coordinate for a
#    correct sampler, so a failure is a bug, not chance);
#  - bad input: exit 2 and one stderr line naming the field.
# The game files are verify/data/games/*.json (written by verify/data/games/make_games.py, not by
# fedverify). Usage: bash game_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
GAME="$SOURCE_DIR/verify/data/games/game_small.json"
IV="$SOURCE_DIR/verify/data/games/linear_iv_small.json"

# predict: fields and shapes.
if "$FEDVERIFY" predict --algo fedgda --problem "$GAME" --gamma 0.1 --local-steps 5 \
    > "$WORK/game.json" 2> "$WORK/err.txt"; then
  python3 - "$WORK/game.json" << 'PY' || fail "predict on a quadratic game: fields"
import json, math, sys
out = json.load(open(sys.argv[1]))
n = out["theta_dim"] + out["tau_dim"]
for f in ["z_star", "bias_first_order", "mean_first_order", "mean_exact"]:
    assert len(out[f]) == n and all(math.isfinite(x) for x in out[f]), f
for f in ["cov_first_order", "cov_exact"]:
    assert len(out[f]) == n and all(len(r) == n for r in out[f]), f
assert 0 < out["spectral_radius"] < 1
assert out["alpha_theta"] == out["alpha_tau"] == 0.1 and out["local_steps"] == 5
PY
  echo "ok: predict on a quadratic game"
else
  fail "predict on a quadratic game: $(cat "$WORK/err.txt")"
fi
if "$FEDVERIFY" predict --algo fedgda --problem "$IV" --gamma 0.01 > "$WORK/iv.json" \
    2> "$WORK/err.txt"; then
  python3 - "$WORK/iv.json" << 'PY' || fail "predict on a linear-IV game: z* θ-part ≠ theta_gmm"
import json, sys
out = json.load(open(sys.argv[1]))
theta, gmm = out["z_star"][: out["theta_dim"]], out["theta_gmm"]
scale = max(abs(x) for x in gmm)
assert max(abs(a - b) for a, b in zip(theta, gmm)) <= 1e-10 * scale, (theta, gmm)
# R = 1: FedGDA's fixed point is the equilibrium (M2 vanishes): mean_exact = z*.
assert max(abs(a - b) for a, b in zip(out["mean_exact"], out["z_star"])) <= 1e-8
PY
  echo "ok: predict on a linear-IV game (z* = GMM estimator; R = 1 limit = z*)"
else
  fail "predict on a linear-IV game: $(cat "$WORK/err.txt")"
fi

# simulate: thread invariance and agreement with the exact law.
run=(simulate --algo fedgda --problem "$GAME" --gamma 0.1 --local-steps 5 --chains 128
  --rounds 300 --burn-in 40 --seed 7)
"$FEDVERIFY" "${run[@]}" --threads 1 > "$WORK/t1.json" 2> "$WORK/err.txt" || fail "simulate: $(cat "$WORK/err.txt")"
"$FEDVERIFY" "${run[@]}" --threads 2 > "$WORK/t2.json" 2> "$WORK/err.txt" || fail "simulate: $(cat "$WORK/err.txt")"
cmp -s "$WORK/t1.json" "$WORK/t2.json" && echo "ok: fedgda simulate identical on 1 and 2 threads" \
  || fail "fedgda simulate differs between 1 and 2 threads"
python3 - "$WORK/t1.json" "$WORK/game.json" << 'PY' && echo "ok: simulated mean within 5 MCSE of mean_exact" || fail "simulated mean vs mean_exact"
import json, sys
sim, exact = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
z = [abs(m - e) / s for m, e, s in zip(sim["mean"], exact["mean_exact"], sim["mean_mcse"])]
assert max(z) < 5, z
PY
siv=(simulate --algo fedsgda --problem "$IV" --gamma 0.005 --batch-size 8 --local-steps 2
  --chains 16 --rounds 200 --burn-in 20 --seed 3)
"$FEDVERIFY" "${siv[@]}" --threads 1 > "$WORK/s1.json" 2> "$WORK/err.txt" || fail "fedsgda: $(cat "$WORK/err.txt")"
"$FEDVERIFY" "${siv[@]}" --threads 2 > "$WORK/s2.json" 2> "$WORK/err.txt" || fail "fedsgda: $(cat "$WORK/err.txt")"
cmp -s "$WORK/s1.json" "$WORK/s2.json" && echo "ok: fedsgda simulate identical on 1 and 2 threads" \
  || fail "fedsgda simulate differs between 1 and 2 threads"

# Bad input: exit 2, one line naming the field.
write notpd '{"kind": "quadratic-game", "clients": [{"A": [[1]], "B": [[0.5]], "C": [[-1]], "a": [1], "c": [0], "noise_cov": [[0.1, 0], [0, 0.1]]}]}'
expect_error "C not positive semi-definite" "clients[0].C" predict --algo fedgda --problem "$WORK/notpd.json" --gamma 0.1
write singular '{"kind": "quadratic-game", "clients": [{"A": [[0]], "B": [[0]], "C": [[0]], "a": [1], "c": [0], "noise_cov": [[0, 0], [0, 0]]}]}'
expect_error "no unique equilibrium" "no unique equilibrium" predict --algo fedgda --problem "$WORK/singular.json" --gamma 0.1
write extra '{"kind": "quadratic-game", "clients": [{"A": [[1]], "B": [[0.5]], "C": [[1]], "a": [1], "c": [0], "noise_cov": [[0.1, 0], [0, 0.1]], "D": 1}]}'
expect_error "unknown client field" "clients[0]" predict --algo fedgda --problem "$WORK/extra.json" --gamma 0.1
write shape '{"kind": "quadratic-game", "clients": [{"A": [[1]], "B": [[0.5, 1]], "C": [[1]], "a": [1], "c": [0], "noise_cov": [[0.1, 0], [0, 0.1]]}]}'
expect_error "B of the wrong shape" "clients[0].B" predict --algo fedgda --problem "$WORK/shape.json" --gamma 0.1
write rows '{"kind": "linear-iv", "clients": [{"x": [1, 2, 3], "z": [1, 2], "y": [1, 2, 3]}]}'
expect_error "linear-iv rows" "clients[0].z" predict --algo fedgda --problem "$WORK/rows.json" --gamma 0.1
write ident '{"kind": "linear-iv", "clients": [{"x": [1, 2, 3], "z": [1, 1, 1], "y": [1, 2, 3]}]}'
expect_error "linear-iv not identified" "instruments" predict --algo fedgda --problem "$WORK/ident.json" --gamma 0.1
write phi '{"kind": "linear-iv", "phi": "cubic", "clients": [{"x": [1, 2, 3], "z": [1, 2, 4], "y": [1, 2, 3]}]}'
expect_error "unknown feature map" "phi" predict --algo fedgda --problem "$WORK/phi.json" --gamma 0.1
expect_error "game file to fedavg" "is a game" predict --algo fedavg --problem "$GAME" --gamma 0.1
expect_error "step ratio" "--step-ratio" predict --algo fedgda --problem "$GAME" --gamma 0.1 --step-ratio 0
expect_error "step ratio with fedavg" "--step-ratio" predict --algo fedavg --problem "$GAME" --gamma 0.1 --step-ratio 2
expect_error "fedsgda without a batch size" "--batch-size" simulate --algo fedsgda --problem "$IV" --gamma 0.005 --chains 4 --rounds 20 --burn-in 2 --seed 1
expect_error "fedsgda on a quadratic game" "fedsgda" simulate --algo fedsgda --problem "$GAME" --gamma 0.1 --batch-size 2 --chains 4 --rounds 20 --burn-in 2 --seed 1
expect_error "fedgda simulate on linear-iv" "predict" simulate --algo fedgda --problem "$IV" --gamma 0.1 --chains 4 --rounds 20 --burn-in 2 --seed 1
expect_error "fedsgda predict" "closed forms" predict --algo fedsgda --problem "$IV" --gamma 0.1
finish "game contract"
