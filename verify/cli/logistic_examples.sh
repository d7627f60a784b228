#!/usr/bin/env bash
# The logistic example problems of verify/data/ (written by theory/problems/logistic_data_test.cpp) are
# usable through the CLI: `fedverify predict` accepts them and returns, for FedAvg,
#  - x_star of length d, finite;
#  - a NON-zero stochasticity bias b_s (THEORY F3: ∇³f ≠ 0 for logistic losses, unlike
#    quadratics), and a heterogeneity bias that is exactly 0 at H = 1 and non-zero at H = 2
#    (the clients are heterogeneous: feature shift 0.5, label skew 0.3);
#  - no quadratic-only fields (mean_exact, cov_exact).
# Usage: bash logistic_examples.sh <path-to-fedverify> <source-dir>
set -u
FEDVERIFY=${1:?usage: logistic_examples.sh <fedverify> <source-dir>}
SOURCE_DIR=${2:?usage: logistic_examples.sh <fedverify> <source-dir>}
PYTHON=/usr/bin/python3
FAILURES=0

for d in 5 10; do
  problem="$SOURCE_DIR/verify/data/logistic_d${d}_n10.json"
  for h in 1 2; do
    if ! out=$("$FEDVERIFY" predict --problem "$problem" --algo fedavg --gamma 0.1 \
      --local-steps "$h"); then
      echo "FAIL: predict exited non-zero on $problem (H = $h)"
      FAILURES=$((FAILURES + 1))
      continue
    fi
    if ! echo "$out" | "$PYTHON" -c '
import json, math, sys
d, h = int(sys.argv[1]), int(sys.argv[2])
j = json.load(sys.stdin)
norm = lambda v: math.sqrt(sum(x * x for x in v))
errors = []
if len(j["x_star"]) != d or not all(math.isfinite(x) for x in j["x_star"]):
    errors.append("x_star: expected %d finite numbers" % d)
if not norm(j["bias_stochastic"]) > 0:
    errors.append("bias_stochastic: is zero, expected non-zero for a logistic problem")
hetero = norm(j["bias_heterogeneity"])
if h == 1 and hetero != 0:
    errors.append("bias_heterogeneity: %g at H = 1, expected 0" % hetero)
if h > 1 and not hetero > 0:
    errors.append("bias_heterogeneity: zero at H = %d on heterogeneous clients" % h)
for field in ("mean_exact", "cov_exact"):
    if field in j:
        errors.append(field + ": present for a logistic problem")
print("d = %d, H = %d: |b_s| = %.4g, |b_h| = %.4g" % (d, h, norm(j["bias_stochastic"]), hetero))
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
' "$d" "$h"; then
      FAILURES=$((FAILURES + 1))
    fi
  done
done

if [ "$FAILURES" -ne 0 ]; then
  echo "$FAILURES failure(s)"
  exit 1
fi
echo "logistic examples: all checks passed"
