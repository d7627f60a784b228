# The set-up and checks shared by the command-line contract scripts (verify/cli/*.sh). A script
# sources it first, with its own arguments:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
# It reads the two arguments every script takes (the fedverify binary and the source directory),
# makes a scratch directory $WORK that is removed on exit, and counts failures in $FAILURES.
# (This folder is not globbed as tests: CMakeLists.txt registers verify/cli/*.sh only.)
set -u
FEDVERIFY=${1:?usage: $(basename "$0") <fedverify> <source-dir>}
SOURCE_DIR=${2:?usage: $(basename "$0") <fedverify> <source-dir>}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FAILURES=0

# fail <message>: reports one failed check.
fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}

# write <name> <json>: the problem file $WORK/<name>.json.
write() { printf '%s\n' "$2" > "$WORK/$1.json"; }

# example_problems: the minimisation problem files shipped in examples/problems (quadratic and
# logistic; docs/PROBLEM_FORMATS.md) in the array PROBLEMS (which the sourcing script reads).
# shellcheck disable=SC2034
example_problems() {
  PROBLEMS=("$SOURCE_DIR/examples/problems/quadratic.json" "$SOURCE_DIR/examples/problems/logistic.json")
}

# refused <description> <exit code> <text>...: whether the run that ended with <exit code> and
# wrote its stderr to $WORK/err.txt was refused as the contract requires for bad input: exit 2
# and exactly one stderr line (newline-terminated) that contains every <text>. Reports a failure
# and returns 1 when not.
refused() {
  local what=$1 rc=$2
  shift 2
  local message
  message=$(head -c 300 "$WORK/err.txt")
  if [ "$rc" -ne 2 ]; then
    fail "$what: exit code $rc, expected 2 (stderr: $message)"
    return 1
  fi
  if [ "$(wc -l < "$WORK/err.txt")" -ne 1 ] || [ -n "$(tail -c 1 "$WORK/err.txt" | tr -d '\n')" ]; then
    fail "$what: expected exactly one stderr line: $message"
    return 1
  fi
  local text
  for text in "$@"; do
    if ! grep -qF -- "$text" "$WORK/err.txt"; then
      fail "$what: stderr does not name \"$text\": $message"
      return 1
    fi
  done
  return 0
}

# expect <description> <exit code> <text> <fedverify arguments…>: the run exits with <exit code>
# and its stdout (the JSON) contains <text>; prints its seconds on success.
expect() {
  local what=$1 code=$2 text=$3
  shift 3
  local start=$SECONDS
  "$FEDVERIFY" "$@" > "$WORK/out.json" 2> "$WORK/err.txt"
  local rc=$?
  if [ "$rc" -ne "$code" ]; then
    fail "$what: exit $rc, expected $code: $(head -c 400 "$WORK/out.json") $(tail -c 400 "$WORK/err.txt")"
  elif ! grep -qF -- "$text" "$WORK/out.json"; then
    fail "$what: output lacks \"$text\": $(head -c 400 "$WORK/out.json")"
  else
    echo "ok: $what ($((SECONDS - start)) s)"
  fi
}

# expect_error <description> <text> <fedverify arguments…>: fedverify refuses the arguments with
# one stderr line naming <text> (the flag or the field).
expect_error() {
  local what=$1 text=$2
  shift 2
  "$FEDVERIFY" "$@" > "$WORK/out.txt" 2> "$WORK/err.txt"
  refused "$what" $? "$text" && echo "ok: $what -> $(cat "$WORK/err.txt")"
}

# finish <what>: the summary line; exits 1 when a check failed.
finish() {
  if [ "$FAILURES" -ne 0 ]; then
    echo "$FAILURES $1 check(s) failed"
    exit 1
  fi
  echo "$1: all checks passed"
}
