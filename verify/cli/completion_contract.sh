#!/usr/bin/env bash
# Bash completion (issue 31 item 5; reports/cli/completion.hpp): the committed script
# docs/fedverify-completion.bash is exactly what `fedverify --bash-completion` generates from the
# command-line definition (regenerate it when an option changes), and, sourced into bash, it
# completes commands, each command's options and the values of --algo and --server.
# Usage: bash completion_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
SCRIPT="$SOURCE_DIR/docs/fedverify-completion.bash"

"$FEDVERIFY" --bash-completion > "$WORK/generated.bash"
if ! cmp -s "$WORK/generated.bash" "$SCRIPT"; then
  fail "docs/fedverify-completion.bash is not what \`fedverify --bash-completion\` prints: regenerate it ($(diff "$WORK/generated.bash" "$SCRIPT" | head -3 | tr '\n' ' '))"
else
  echo "ok: the committed completion script is the generated one"
fi

# complete <expected word> <command line…>: the completions of the last word include <expected>
# (and every completion starts with that word's text).
complete_has() {
  local expected=$1
  shift
  local got
  got=$(bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _fedverify; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$SCRIPT" "$@")
  if grep -qxF -- "$expected" <<< "$got"; then
    echo "ok: fedverify ${*:2} <TAB> -> $(tr '\n' ' ' <<< "$got" | cut -c1-80)"
  else
    fail "fedverify ${*:2} <TAB>: \"$expected\" not among: $(tr '\n' ' ' <<< "$got")"
  fi
}
complete_lacks() {
  local absent=$1
  shift
  local got
  got=$(bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _fedverify; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$SCRIPT" "$@")
  grep -qxF -- "$absent" <<< "$got" && fail "fedverify ${*:2} <TAB> offers $absent"
}
complete_has report fedverify rep
complete_has --version fedverify --ver
complete_has --gamma fedverify predict --ga
complete_has --help-optimisers fedverify simulate --help-o
complete_has --list fedverify report --li
complete_has scaffold fedverify conformance --algo sc
complete_lacks l2gd fedverify conformance --algo l
complete_has fedsgda fedverify simulate --algo feds
complete_has adam fedverify simulate --server ad
complete_has fedprox fedverify predict --client fedp
finish "bash completion"
