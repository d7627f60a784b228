#!/usr/bin/env bash
# The test-only layer (verify/planted) is for tests only: check_layers.py must
# reject a library source that includes test support, accept a unit test beside it that does,
# and reject a unit test whose layer may not use what the test-support header brings in.
# Usage: test_only_layers.sh PYTHON CHECK_LAYERS_PY ROOT LAYERS_TXT FIXTURE OUT_DIR
set -u
python=$1 checker=$2 root=$3 layers=$4 fixture=$5 out=$6
failures=0

# check AS EXPECTED_STATUS [PATTERN]: checks FIXTURE as if it stood at AS.
check() {
  local as=$1 expected=$2 pattern=${3:-} log
  log="$out/test_only_layers.$(echo "$as" | tr / _).out"
  "$python" "$checker" --root "$root" --layers "$layers" --also "$fixture=$as" >"$log" 2>&1
  local status=$?
  if [[ $status -ne $expected ]]; then
    echo "FAIL $as: exit status $status, expected $expected"; cat "$log"; failures=$((failures + 1))
  elif [[ -n $pattern ]] && ! grep -q -- "$pattern" "$log"; then
    echo "FAIL $as: no line matching: $pattern"; cat "$log"; failures=$((failures + 1))
  else
    echo "ok   $as (exit $status)"
  fi
}

check theory/problems/uses_test_support.cpp 1 \
  "theory/problems/uses_test_support.cpp:6: layer 'problems' includes \"verify/planted/fedavg_bugs.hpp\" of the test-only layer 'planted'"
check estimators/samplers/uses_test_support_test.cpp 0
check theory/base/uses_test_support_test.cpp 1 \
  "theory/base/uses_test_support_test.cpp:6: a test of layer 'base' includes \"verify/planted/fedavg_bugs.hpp\", which includes \"estimators/samplers/.*\" of layer 'samplers'"
exit $((failures > 0))
