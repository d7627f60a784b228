#!/usr/bin/env bash
# ctest package.external_claim: installs the build tree BUILD into a fresh prefix, configures and
# builds examples/external-claim against it (find_package(fedverify)), and runs its claim through
# the report, and its algorithm through simulate. Usage: run_from_install.sh BUILD WORK CMAKE
set -euo pipefail
build=$1 work=$2 cmake=${3:-cmake}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
"$cmake" --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -f "$work/prefix/lib/cmake/fedverify/fedverifyConfig.cmake"
test -f "$work/prefix/include/fedverify/theory/base/linalg.hpp"
"$cmake" -S "$here" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
"$cmake" --build "$work/build" -j 2 > "$work/build.log"
exe=$work/build/external_fedverify
# The project's algorithm is a registered algorithm of the command line …
cat > "$work/p.json" <<'JSON'
{"kind": "quadratic", "clients": [
  {"hessian": [[1, 0], [0, 0.5]], "optimum": [1, 0], "noise_cov": [[0.1, 0], [0, 0.1]]},
  {"hessian": [[0.5, 0], [0, 1]], "optimum": [0, 1], "noise_cov": [[0.1, 0], [0, 0.1]]}]}
JSON
"$exe" simulate --problem "$work/p.json" --algo fedavg-damped \
  --gamma 0.05 --chains 16 --rounds 200 --burn-in 50 --seed 1 > "$work/simulate.json"
grep -q '"algorithm":"fedavg-damped"' "$work/simulate.json"
# … and its claim is in the catalogue, reported like the built-in ones.
"$exe" report --quick --only 'external.*' --out "$work/report"
grep -q '"id": "external.damped-mean"' "$work/report/results.json"
grep -q 'external.damped-mean' "$work/report/REPORT.md"
echo "external claim: built against $work/prefix, report in $work/report"
