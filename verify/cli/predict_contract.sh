#!/usr/bin/env bash
# CLI contract of `fedverify predict` (docs/CLI.md):
#  - on valid input: exit 0 and one JSON object on stdout with the documented fields, of the
#    documented shapes (vectors of length d, matrices d×d as arrays of rows); quadratic
#    problems also carry mean_exact and cov_exact;
#  - on bad input: exit code 2 and exactly one stderr line that names the offending field.
# Usage: bash predict_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"

# Problem files: the shipped examples (examples/problems: quadratic, logistic).
example_problems
if [ ${#PROBLEMS[@]} -eq 0 ]; then
  cat > "$WORK/quadratic.json" << 'JSON'
{"kind": "quadratic",
 "clients": [
  {"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]},
  {"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]}
 ]}
JSON
  PROBLEMS=("$WORK/quadratic.json")
fi

# Checks the JSON on stdin: required fields present, finite, of the right shapes.
check_fields() {
  python3 -c '
import json, math, sys
out = json.load(sys.stdin)
d = out["dim"]
vectors = ["x_star", "mean_first_order", "bias_heterogeneity", "bias_stochastic"]
matrices = ["cov_first_order"]
if sys.argv[1] == "quadratic":
    vectors.append("mean_exact")
    matrices.append("cov_exact")
for f in vectors:
    v = out[f]
    assert isinstance(v, list) and len(v) == d, f"{f}: expected {d} numbers"
    assert all(isinstance(x, (int, float)) and math.isfinite(x) for x in v), f"{f}: non-finite"
for f in matrices:
    m = out[f]
    assert isinstance(m, list) and len(m) == d, f"{f}: expected {d} rows"
    for row in m:
        assert len(row) == d and all(math.isfinite(x) for x in row), f"{f}: bad row"
' "$1"
}

for problem in "${PROBLEMS[@]}"; do
  kind=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["kind"])' "$problem")
  for algo in fedavg scaffold fedrr sgd fedopt; do
    h=2
    [ "$algo" = sgd ] && h=1
    if ! "$FEDVERIFY" predict --problem "$problem" --algo "$algo" --gamma 0.05 --local-steps "$h" \
        > "$WORK/out.json" 2> "$WORK/err.txt"; then
      fail "$(basename "$problem") $algo: non-zero exit: $(cat "$WORK/err.txt")"
      continue
    fi
    if ! check_fields "$kind" < "$WORK/out.json" 2> "$WORK/py.txt"; then
      fail "$(basename "$problem") $algo: $(tail -1 "$WORK/py.txt")"
    fi
  done
done

good="$WORK/good.json"
cat > "$good" << 'JSON'
{"kind": "quadratic", "clients": [
  {"hessian": [[1.0, 0.0], [0.0, 0.5]], "optimum": [1.0, 0.0], "noise_cov": [[0.1, 0.0], [0.0, 0.1]]},
  {"hessian": [[0.8, 0.1], [0.1, 1.0]], "optimum": [0.0, 1.0], "noise_cov": [[0.1, 0.0], [0.0, 0.1]]}]}
JSON
printf '{"kind": "quadratic", "clients": [ {"hessian": [[1.0' > "$WORK/malformed.json"
cat > "$WORK/shape.json" << 'JSON'
{"kind": "quadratic", "clients": [
  {"hessian": [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], "optimum": [1.0, 0.0],
   "noise_cov": [[0.1, 0.0], [0.0, 0.1]]}]}
JSON
cat > "$WORK/nonsymmetric.json" << 'JSON'
{"kind": "quadratic", "clients": [
  {"hessian": [[1.0, 0.5], [0.0, 1.0]], "optimum": [1.0, 0.0], "noise_cov": [[0.1, 0.0], [0.0, 0.1]]}]}
JSON
cat > "$WORK/indefinite.json" << 'JSON'
{"kind": "quadratic", "clients": [
  {"hessian": [[1.0, 0.0], [0.0, -0.5]], "optimum": [1.0, 0.0], "noise_cov": [[0.1, 0.0], [0.0, 0.1]]}]}
JSON

# Client weights (THEORY (A1)): predict says which p_c its fields are weighted with; algorithms
# that aggregate with equal weights refuse the problem.
WEIGHTED="$SOURCE_DIR/verify/conformance/problem_weighted.json"
expect "weighted clients: client_weights" 0 '"client_weights":[0.6,0.15,0.25]' predict --problem "$WEIGHTED" --algo fedavg --gamma 0.05 --local-steps 2
expect_error "weighted clients with scaffold" "clients[].weight" predict --problem "$WEIGHTED" --algo scaffold --gamma 0.05 --local-steps 2
expect_error "malformed JSON" "malformed.json" predict --problem "$WORK/malformed.json" --algo fedavg --gamma 0.1
expect_error "wrong shapes" "clients[0].hessian" predict --problem "$WORK/shape.json" --algo fedavg --gamma 0.1
expect_error "non-symmetric Hessian" "clients[0].hessian" predict --problem "$WORK/nonsymmetric.json" --algo fedavg --gamma 0.1
expect_error "non-PD Hessian" "clients[0].hessian" predict --problem "$WORK/indefinite.json" --algo fedavg --gamma 0.1
expect_error "gamma = 0" "--gamma" predict --problem "$good" --algo fedavg --gamma 0
expect_error "gamma < 0" "--gamma" predict --problem "$good" --algo fedavg --gamma=-0.1
expect_error "H = 0" "--local-steps" predict --problem "$good" --algo fedavg --gamma 0.1 --local-steps 0
expect_error "gamma too large (fedavg)" "--gamma" predict --problem "$good" --algo fedavg --gamma 5
expect_error "gamma too large (scaffold)" "--gamma" predict --problem "$good" --algo scaffold --gamma 2.5 --local-steps 4
expect_error "gamma too large (fedrr, run at 2 gamma)" "--gamma" predict --problem "$good" --algo fedrr --gamma 1.5
# Logistic problems: the chain linearised at x* must be stable (γ = 10 > 2/L on this example).
logistic_example="$SOURCE_DIR/verify/data/logistic_d5_n10.json"
for algo in fedavg scaffold fedrr; do
  expect_error "gamma too large (logistic $algo)" "--gamma" predict --problem "$logistic_example" --algo "$algo" --gamma 10 --local-steps 2
done
# A well-conditioned problem on a scale at which the round map overflows ((1 − γ·1e300)^H):
# refused naming --gamma, not exit 3 or NaN.
cat > "$WORK/huge.json" <<'JSON'
{"kind": "quadratic", "clients": [{"hessian": [[1e300, 0.0], [0.0, 1e300]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]}]}
JSON
for algo in fedavg scaffold fedrr; do
  expect_error "round map overflows ($algo)" "--gamma" predict --problem "$WORK/huge.json" --algo "$algo" --gamma 0.05 --local-steps 2
done
expect_error "unknown algorithm" "--algo" predict --problem "$good" --algo fedsgd --gamma 0.1
# FedOpt's optimiser specs (docs/DESIGN-EXTENSIONS.md): each refusal names the flag and the key.
fedopt=(predict --problem "$good" --algo fedopt --gamma 0.1 --local-steps 2)
expect_error "unknown server optimiser" "--server" "${fedopt[@]}" --server adam
expect_error "unknown server key" "foo" "${fedopt[@]}" --server sgd:foo=1
expect_error "server lr <= 0" "lr" "${fedopt[@]}" --server sgd:lr=0
expect_error "server momentum = 1" "momentum" "${fedopt[@]}" --server sgd:lr=1,momentum=1
expect_error "server nesterov not 0/1" "nesterov" "${fedopt[@]}" --server sgd:nesterov=0.5
expect_error "server key without value" "lr" "${fedopt[@]}" --server sgd:lr
expect_error "server key twice" "lr" "${fedopt[@]}" --server sgd:lr=1,lr=2
expect_error "server value not a number" "lr" "${fedopt[@]}" --server sgd:lr=fast
expect_error "fedprox without mu" "--client" "${fedopt[@]}" --client fedprox
expect_error "fedprox mu < 0" "mu" "${fedopt[@]}" --client fedprox:mu=-1
expect_error "unknown client optimiser" "--client" "${fedopt[@]}" --client adam
expect_error "S > N" "--participating" "${fedopt[@]}" --participating 3
expect_error "--server with fedavg" "--server" predict --problem "$good" --algo fedavg --gamma 0.1 --server sgd:lr=2
expect_error "--participating with predict l2gd" "--participating" predict --problem "$good" --algo l2gd --lambda 1 --gamma 0.1 --participating 2
# FedOpt's defaults are FedAvg's predictions, field for field (apart from the echoed options).
"$FEDVERIFY" predict --problem "$good" --algo fedavg --gamma 0.1 --local-steps 2 > "$WORK/fedavg.json"
"$FEDVERIFY" predict --problem "$good" --algo fedopt --gamma 0.1 --local-steps 2 > "$WORK/fedopt.json"
python3 - "$WORK/fedavg.json" "$WORK/fedopt.json" <<'PY' || fail "fedopt defaults differ from fedavg"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert b.pop("server") == "sgd" and b.pop("client") == "sgd" and b.pop("participating") == 2, b
a.pop("algorithm"); b.pop("algorithm")
assert a == b, (a, b)
PY
"$FEDVERIFY" predict --problem "$good" --algo fedopt --gamma 0.1 --local-steps 2 \
  --server sgd:lr=0.5,momentum=0.5 > "$WORK/momentum.json" || fail "fedopt with momentum"
python3 - "$WORK/momentum.json" <<'PY' || fail "fedopt stacked state (x, m)"
import json, sys
o = json.load(open(sys.argv[1]))
assert len(o["stacked_mean_exact"]) == 4 and o["stacked_mean_exact"][:2] == o["mean_exact"], o
assert o["server"] == "sgd:lr=0.5,momentum=0.5", o
PY
expect_error "l2gd option with fedavg" "--lambda" predict --problem "$good" --algo fedavg --gamma 0.1 --lambda 1

# Finite time (THEORY (T1)): --rounds T adds T + 1 values of E‖x_t − x*‖² from --x0, starting at
# ‖x0 − x*‖² (no noise yet) and falling towards the stationary ‖m_π − x*‖² + tr Σ_π; linear-sa too.
"$FEDVERIFY" predict --problem "$good" --algo fedavg --gamma 0.1 --local-steps 2 --rounds 400 \
  --x0 '[2, -1]' > "$WORK/curve.json" || fail "predict --rounds"
python3 - "$WORK/curve.json" <<'PY' || fail "predict --rounds: the curve"
import json, sys
o = json.load(open(sys.argv[1]))
mse, means = o["mse_exact"], o["mean_exact_t"]
assert len(mse) == 401 and len(means) == 401 and o["rounds"] == 400 and o["x0"] == [2, -1], o.keys()
start = sum((a - b) ** 2 for a, b in zip([2, -1], o["x_star"]))
assert abs(mse[0] - start) <= 1e-12 * start, (mse[0], start)
stationary = sum((a - b) ** 2 for a, b in zip(o["mean_exact"], o["x_star"])) + sum(
    o["cov_exact"][i][i] for i in range(len(o["x_star"])))
assert abs(mse[-1] - stationary) <= 1e-9 * stationary, (mse[-1], stationary)
PY
"$FEDVERIFY" predict --problem "$SOURCE_DIR/examples/problems/linear-sa-td-d3.json" --algo fedrr \
  --gamma 0.05 --rounds 3 > "$WORK/lsa_curve.json" || fail "predict --rounds on linear-sa (fedrr)"
expect_error "--x0 of the wrong size" "--x0: expected 2 numbers" predict --problem "$good" --algo fedavg --gamma 0.1 --rounds 3 --x0 '[1]'
expect_error "--x0 without --rounds" "--x0: the start of the exact trajectory" predict --problem "$good" --algo fedavg --gamma 0.1 --x0 '[1, 1]'
"$FEDVERIFY" predict --problem "$SOURCE_DIR/examples/problems/linear-sa-td-d3.json" --algo scaffold \
  --gamma 0.05 --rounds 3 > "$WORK/lsa_scaffold_curve.json" || fail "predict --rounds on linear-sa (scaffold)"
/usr/bin/python3 - "$WORK/lsa_scaffold_curve.json" <<'PY' || fail "scaffold's linear-sa curve: 4 points from x*"
import json, sys
o = json.load(open(sys.argv[1]))
assert len(o["mse_exact"]) == 4 and o["mse_exact"][0] == 0 and o["mse_exact"][3] > 0, o["mse_exact"]
PY
expect_error "fedopt's curve on linear-sa" "--rounds: no exact trajectory for fedopt" predict --problem "$SOURCE_DIR/examples/problems/linear-sa-td-d3.json" --algo fedavgm --momentum 0.5 --gamma 0.05 --rounds 3
expect_error "a curve too long" "--rounds: must lie in" predict --problem "$good" --algo fedavg --gamma 0.1 --rounds 2000000
expect_error "--rounds for l2gd" "--rounds: only for the chain algorithms" predict --problem "$good" --algo l2gd --gamma 0.1 --lambda 1 --rounds 3

finish "predict contract"
