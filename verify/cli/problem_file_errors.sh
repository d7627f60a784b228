#!/usr/bin/env bash
# CLI contract for bad problem files (docs/PROBLEM_FORMATS.md and docs/ARCHITECTURE.md, Conventions): every
# problem file that the format does not allow is rejected with exit code 2 and exactly one
# stderr line that names the file and the offending field — never exit 3 (internal error),
# never a crash, never a result. Covered: numbers that overflow double, unknown fields,
# duplicate keys, and logistic problems with no minimiser (l2 = 0 on separable data). Files
# that the format allows (including the writer's own output and the "generator" record of the
# committed examples) must still load.
# Usage: bash problem_file_errors.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"

# A valid quadratic and a valid logistic problem; the bad files below each change one thing.
Q_CLIENT1='{"hessian": [[1.0, -0.2], [-0.2, 3.0]], "optimum": [-1.0, 0.5], "noise_cov": [[0.3, 0.0], [0.0, 0.6]]}'
L_CLIENT1='{"features": [[-1.0, 0.4], [0.3, 1.2], [-0.7, -0.5]], "labels": [-1, 1, 1]}'

# expect_rejected <name> <text the message must contain>...: predict on $WORK/<name>.json exits
# 2 with one stderr line containing the file name and every given text.
expect_rejected() {
  local name=$1
  shift
  local file="$WORK/$name.json"
  "$FEDVERIFY" predict --problem "$file" --algo fedavg --gamma 0.05 > "$WORK/out.txt" 2> "$WORK/err.txt"
  refused "$name" $? "$file" "$@" && echo "ok: $name -> $(cat "$WORK/err.txt")"
}

# expect_accepted <file>: predict exits 0.
expect_accepted() {
  if "$FEDVERIFY" predict --problem "$1" --algo fedavg --gamma 0.05 > "$WORK/out.txt" 2> "$WORK/err.txt"; then
    echo "ok: $(basename "$1") accepted"
  else
    fail "$(basename "$1"): rejected: $(cat "$WORK/err.txt")"
  fi
}

# 1. Numbers that overflow double: an InputError with the byte offset, not exit 3.
write q_hessian_1e999 '{"kind": "quadratic", "clients": [{"hessian": [[1e999, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]}, '"$Q_CLIENT1"']}'
write q_optimum_1e999 '{"kind": "quadratic", "clients": [{"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [-1e999, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]}]}'
write q_noise_1e999 '{"kind": "quadratic", "clients": [{"hessian": [[2.0, 0.3], [0.3, 1.0]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 1E+999]]}]}'
write l_features_1e999 '{"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": [{"features": [[1.0, 1e999], [0.5, -1.0]], "labels": [1, -1]}]}'
write l_l2_1e999 '{"kind": "logistic", "l2": 1e999, "batch_size": 1, "clients": ['"$L_CLIENT1"']}'
expect_rejected q_hessian_1e999 "number out of range at byte" "1e999"
expect_rejected q_optimum_1e999 "number out of range" "-1e999"
expect_rejected q_noise_1e999 "number out of range" "1E+999"
expect_rejected l_features_1e999 "number out of range" "1e999"
expect_rejected l_l2_1e999 "number out of range" "1e999"

# 2. Keys the format does not define, and keys given twice.
write q_client_typo '{"kind": "quadratic", "clients": [{"hessian": [[2.0, 0.3], [0.3, 1.0]], "hesian": [[1, 0], [0, 1]], "optimum": [1.0, -0.5], "noise_cov": [[0.5, 0.1], [0.1, 0.4]]}]}'
write q_top_extra '{"kind": "quadratic", "clients": ['"$Q_CLIENT1"'], "extra": 1}'
write l_lambda '{"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": ['"$L_CLIENT1"'], "lambda": 0.1}'
write l_client_hessian '{"kind": "logistic", "l2": 0.1, "batch_size": 1, "clients": ['"$L_CLIENT1"', {"features": [[1.0, 0.2], [0.5, -1.0]], "labels": [1, -1], "hessian": [[1, 0], [0, 1]]}]}'
write q_kind_twice '{"kind": "logistic", "kind": "quadratic", "clients": ['"$Q_CLIENT1"']}'
write q_optimum_twice '{"kind": "quadratic", "clients": ['"$Q_CLIENT1"', {"hessian": [[1.0, 0.0], [0.0, 1.0]], "optimum": [1.0, 0.0], "optimum": [0.0, 1.0], "noise_cov": [[0.1, 0.0], [0.0, 0.1]]}]}'
expect_rejected q_client_typo "clients[0].hesian: unknown field" "hessian, optimum, noise_cov"
expect_rejected q_top_extra "extra: unknown field"
expect_rejected l_lambda "lambda: unknown field"
expect_rejected l_client_hessian "clients[1].hessian: unknown field" "features, labels"
expect_rejected q_kind_twice "kind: duplicate key"
expect_rejected q_optimum_twice "clients[1].optimum: duplicate key"

# 3. l2 = 0 and no minimiser: all labels +1 (f decreases along a ray), and a coordinate on which
# every feature is 0 (f is flat along it). The message names the cause (l2); it comes from the
# minimiser, which does not know the file name, so only the field is checked here.
write l_all_positive '{"kind": "logistic", "l2": 0.0, "batch_size": 1, "clients": [{"features": [[1.0], [2.0]], "labels": [1, 1]}]}'
write l_flat_coordinate '{"kind": "logistic", "l2": 0, "batch_size": 1, "clients": [{"features": [[1, 0], [-1, 0]], "labels": [1, -1]}]}'
for name in l_all_positive l_flat_coordinate; do
  "$FEDVERIFY" predict --problem "$WORK/$name.json" --algo fedavg --gamma 0.05 > "$WORK/out.txt" 2> "$WORK/err.txt"
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$(wc -l < "$WORK/err.txt")" -ne 1 ] ||
      ! grep -qF "no unique minimiser" "$WORK/err.txt" || ! grep -qF "l2 > 0" "$WORK/err.txt"; then
    fail "$name: exit $rc, expected 2 and one line naming the missing minimiser and l2: $(cat "$WORK/err.txt")"
  else
    echo "ok: $name -> $(cat "$WORK/err.txt")"
  fi
done

# Still accepted: the shipped examples (examples/problems), the committed logistic examples (with their
# "generator" record), and l2 = 0 on data that are not separable.
for f in "$SOURCE_DIR"/examples/problems/{quadratic,logistic}.json "$SOURCE_DIR"/verify/data/*.json; do
  [ -e "$f" ] && expect_accepted "$f"
done
write l_l2_zero_overlapping '{"kind": "logistic", "l2": 0.0, "batch_size": 1, "clients": [{"features": [[1.0, 0.2], [0.5, -1.0], [1.5, 0.3], [-0.2, 0.8]], "labels": [1, -1, 1, -1]}, '"$L_CLIENT1"']}'
expect_accepted "$WORK/l_l2_zero_overlapping.json"

finish "problem file errors"
