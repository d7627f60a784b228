#!/usr/bin/env bash
# `fedverify predict` on logistic problems it has not seen agrees with an
# independent implementation to 1e-6 relative, field by field (x_star, bias_heterogeneity,
# bias_stochastic, mean_first_order, cov_first_order, constants) for fedavg, scaffold, fedrr
# and sgd at several (γ, H). The independent implementation, its formulas (docs/THEORY.md labels),
# the generated problems (seeded) and the derivation of the tolerance are in
# verify/independent/logistic_predict.py; it prints the table of measured relative errors and
# exits non-zero on any disagreement. The checked-in example problems are checked as well.
# Usage: bash logistic_predict_independent.sh <path-to-fedverify> <source-dir>
set -u
FEDVERIFY=${1:?usage: logistic_predict_independent.sh <fedverify> <source-dir>}
SOURCE_DIR=${2:?usage: logistic_predict_independent.sh <fedverify> <source-dir>}
PYTHON=/usr/bin/python3 # the Debian interpreter, which has python3-numpy

if ! "$PYTHON" -c 'import numpy' 2> /dev/null; then
  echo "FAIL: $PYTHON cannot import numpy (install python3-numpy)"
  exit 1
fi

EXTRA=()
for f in "$SOURCE_DIR/verify/data/logistic_d5_n10.json" \
  "$SOURCE_DIR/examples/problems/logistic.json"; do
  [ -f "$f" ] && EXTRA+=("$f")
done

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$PYTHON" "$SOURCE_DIR/verify/independent/logistic_predict.py" --fedverify "$FEDVERIFY" \
  --keep "$WORK" "${EXTRA[@]}"
