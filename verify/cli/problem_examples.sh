#!/usr/bin/env bash
# Every example problem file in examples/problems/ loads with the command that reads its kind
# (docs/PROBLEM_FORMATS.md): minimisation kinds with `predict --algo fedavg`, games with
# `predict --algo fedgda`, and prints the fields that kind's predict promises. And the formats
# page documents every kind that has an example, and has an example for every kind it documents
# (a "## `kind`" heading), so the page and the examples cannot drift apart.
# Usage: bash problem_examples.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
EX="$SOURCE_DIR/examples/problems"
DOC="$SOURCE_DIR/docs/PROBLEM_FORMATS.md"

kind_of() { /usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["kind"])' "$1"; }

count=0
for file in "$EX"/*.json; do
  kind=$(kind_of "$file")
  case "$kind" in
    quadratic) args=(--algo fedavg --gamma 0.05 --local-steps 2); fields="x_star mean_first_order cov_first_order mean_exact cov_exact" ;;
    logistic) args=(--algo fedavg --gamma 0.05 --local-steps 2); fields="x_star mean_first_order cov_first_order" ;;
    quadratic-game) args=(--algo fedgda --gamma 0.05 --local-steps 2); fields="z_star mean_first_order cov_first_order" ;;
    linear-iv) args=(--algo fedgda --gamma 0.05 --local-steps 2); fields="z_star theta_gmm g b w" ;;
    linear-sa|least-squares)
      args=(--algo fedavg --gamma 0.01 --local-steps 2)
      # A reshuffled file (THEORY (A4)) has exact fields only: the first order assumes replacement.
      if grep -q '"sampling": "reshuffled"' "$file"; then fields="x_star mean_exact cov_exact sampling"
      else fields="x_star mean_first_order"; fi ;;
    *) fail "$(basename "$file"): kind \"$kind\" has no loading rule in this test"; continue ;;
  esac
  count=$((count + 1))
  if ! "$FEDVERIFY" predict --problem "$file" "${args[@]}" > "$WORK/out.json" 2> "$WORK/err.txt"; then
    fail "$(basename "$file") ($kind): predict ${args[*]} exited $?: $(head -c 300 "$WORK/err.txt")"
    continue
  fi
  missing=$(/usr/bin/python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); print(" ".join(f for f in sys.argv[2:] if f not in o))' "$WORK/out.json" $fields)
  if [ -n "$missing" ]; then
    fail "$(basename "$file") ($kind): predict printed no $missing"
  else
    echo "ok: $(basename "$file") ($kind) loads with predict ${args[*]}"
  fi
  grep -q "^##.*\`$kind\`" "$DOC" || fail "docs/PROBLEM_FORMATS.md has no section for the example's kind \"$kind\""
done
[ "$count" -ge 4 ] || fail "expected examples of at least 4 kinds in examples/problems, found $count"

# Every documented kind (a "## `kind`" heading; the linear-sa/least-squares section may point to
# its own page) has an example file.
for kind in $(grep -o '^## `[a-z-]*`' "$DOC" | sed 's/## `\(.*\)`/\1/'); do
  found=0
  for file in "$EX"/*.json; do [ "$(kind_of "$file")" = "$kind" ] && found=1; done
  [ "$found" -eq 1 ] && echo "ok: documented kind \"$kind\" has an example" ||
    fail "docs/PROBLEM_FORMATS.md documents \"$kind\" but examples/problems has no file of that kind"
done

# The example claims read the example problem (a claim file names its problem relative to itself).
for claim in "$SOURCE_DIR"/examples/claims/*.json; do
  problem=$(/usr/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["problem"])' "$claim")
  [ -f "$(dirname "$claim")/$problem" ] && echo "ok: $(basename "$claim") reads $problem" ||
    fail "$(basename "$claim"): its problem $problem does not exist"
done
finish "problem examples"
