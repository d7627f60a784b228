#!/usr/bin/env bash
# Mime on the command line (docs/THEORY-Mime.md (MI0)–(MI3); its parameter --mime-beta,
# theory/problems/mime_setting.hpp):
#  - predict on a quadratic problem gives the exact fields of x and of the stacked state (x, m):
#    the mean is the problem's x* (MI1) to 1e-10 relative (x* read from FedAvg's first-order
#    output: the same minimiser, computed independently), the covariance 0 (a deterministic chain),
#    the default β = 0.9 echoed;
#  - predict --rounds on a linear-sa problem gives a curve E‖x_t − x*‖² that falls below 1e-6 of
#    its start (MI3: no noise floor);
#  - simulate runs on quadratic and linear-sa problems and echoes the parameter;
#  - bad input exits 2 with one stderr line naming the field: --mime-beta 1, --mime-beta given to
#    another algorithm, a logistic problem (--algo), --gamma beyond stability.
# Usage: bash mime_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
PROBLEM="$SOURCE_DIR/examples/problems/quadratic.json"
TD="$SOURCE_DIR/examples/problems/linear-sa-td-d3.json"
common=(--problem "$PROBLEM" --gamma 0.05 --local-steps 5)

if "$FEDVERIFY" predict --algo mime "${common[@]}" > "$WORK/p.json" 2> "$WORK/err.txt" &&
    "$FEDVERIFY" predict --algo fedavg "${common[@]}" > "$WORK/avg.json" &&
    python3 - "$WORK/p.json" "$WORK/avg.json" << 'PY'
import json, math, sys
o = json.load(open(sys.argv[1]))
x_star = json.load(open(sys.argv[2]))["x_star"]
assert o["algorithm"] == "mime", o["algorithm"]
assert o["parameters"] == {"mime_beta": 0.9}, o.get("parameters")
d = len(x_star)
assert len(o["mean_exact"]) == d and len(o["stacked_mean_exact"]) == 2 * d
err = math.dist(o["mean_exact"], x_star) / math.hypot(*x_star)
assert err <= 1e-10, err
assert all(v == 0 for row in o["cov_exact"] for v in row), o["cov_exact"]
assert 0 < o["spectral_radius"] < 1, o["spectral_radius"]
PY
then echo "ok: predict --algo mime (mean_exact = x*, cov 0)"; else fail "predict mime: $(head -c 300 "$WORK/err.txt")"; fi

if "$FEDVERIFY" predict --algo mime --mime-beta 0.5 --problem "$TD" --gamma 0.05 --local-steps 4 \
    --rounds 400 > "$WORK/t.json" 2> "$WORK/err.txt" &&
    python3 - "$WORK/t.json" << 'PY'
import json, sys
o = json.load(open(sys.argv[1]))
mse = o["mse_exact"]
assert len(mse) == 401, len(mse)
assert mse[-1] <= 1e-6 * mse[0], (mse[0], mse[-1])
PY
then echo "ok: predict --rounds on linear-sa (E‖x_t − x*‖² → 0)"; else fail "predict --rounds mime: $(head -c 300 "$WORK/err.txt")"; fi

for p in "$PROBLEM" "$TD"; do
  if "$FEDVERIFY" simulate --algo mime --mime-beta 0.8 --problem "$p" --gamma 0.05 --local-steps 3 \
      --chains 64 --rounds 100 --burn-in 10 --seed 7 --threads 2 > "$WORK/s.json" 2> "$WORK/err.txt" &&
      python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); assert o["parameters"] == {"mime_beta": 0.8} and len(o["mean"]) > 0' "$WORK/s.json"; then
    echo "ok: simulate --algo mime ($(basename "$p"))"
  else
    fail "simulate mime on $p: $(head -c 300 "$WORK/err.txt")"
  fi
done

expect_error "--mime-beta 1" "--mime-beta" predict --algo mime --mime-beta 1 "${common[@]}"
expect_error "--mime-beta with fedavg" "--mime-beta" predict --algo fedavg --mime-beta 0.5 \
  "${common[@]}"
expect_error "mime on a logistic problem" "--algo" simulate --algo mime \
  --problem "$SOURCE_DIR/examples/problems/logistic.json" --gamma 0.05 --chains 8 --rounds 10 \
  --burn-in 2 --seed 1
expect_error "mime unstable gamma" "--gamma" predict --algo mime --problem "$PROBLEM" --gamma 50 \
  --local-steps 5

finish "mime contract"
