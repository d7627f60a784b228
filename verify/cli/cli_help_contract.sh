#!/usr/bin/env bash
# The command line's self-description (issue 31 item 5; docs/CLI.md): `--version`, `report
# --list`, "did you mean" for misspelt commands and options, and per-command help that lists only
# what the command accepts, the optimisers' keys being behind --help-optimisers.
# Usage: bash cli_help_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
cd "$WORK" || exit 1   # report --list must write nothing: run where a stray reports/ would show

# --version: the version of CMakeLists.txt's project() and, when built from git, a commit of
# this repository.
version=$(sed -n 's/^project(fedverify VERSION \([0-9.]*\).*/\1/p' "$SOURCE_DIR/CMakeLists.txt")
out=$("$FEDVERIFY" --version 2> "$WORK/err.txt")
rc=$?
if [ "$rc" -ne 0 ] || [[ "$out" != "fedverify $version"* ]]; then
  fail "--version: exit $rc, printed \"$out\", expected \"fedverify $version…\""
else
  commit=$(sed -n 's/.*(commit \([0-9a-f]*\)).*/\1/p' <<< "$out")
  if [ -n "$commit" ] && ! git -C "$SOURCE_DIR" cat-file -e "$commit^{commit}" 2> /dev/null; then
    fail "--version: commit $commit is not a commit of $SOURCE_DIR"
  else
    echo "ok: --version -> $out"
  fi
fi

# report --list: one line per claim, "id  statement", ids unique, opt-in claims marked; --only
# selects; nothing is run or written.
"$FEDVERIFY" report --list > "$WORK/list.txt" 2> "$WORK/err.txt"
rc=$?
n=$(wc -l < "$WORK/list.txt")
if [ "$rc" -ne 0 ] || [ "$n" -lt 10 ]; then
  fail "report --list: exit $rc, $n lines: $(head -c 300 "$WORK/err.txt")"
elif [ -e "$WORK/reports" ]; then
  fail "report --list wrote $WORK/reports"
elif [ "$(awk '{print $1}' "$WORK/list.txt" | sort | uniq -d | wc -l)" -ne 0 ]; then
  fail "report --list: repeated ids: $(awk '{print $1}' "$WORK/list.txt" | sort | uniq -d | head -3)"
elif awk 'NF < 3 || $1 !~ /^[a-z0-9-]+\.[a-z0-9.+-]+$/' "$WORK/list.txt" | grep -q .; then
  fail "report --list: lines without an id and a statement: $(awk 'NF < 3 || $1 !~ /^[a-z0-9-]+\./' "$WORK/list.txt" | head -2)"
elif ! grep -q '^optimisers\.study[^ ]* *(opt-in) ' "$WORK/list.txt"; then
  fail "report --list: the optimiser study is not marked (opt-in)"
else
  echo "ok: report --list lists $n claims with statements, opt-in ones marked"
fi
# Each line's statement is the card's one-line summary (the report's "in one line"), not the whole
# statement: no line over 240 characters.
if awk 'length($0) > 240' "$WORK/list.txt" | grep -q .; then
  fail "report --list: lines over 240 characters: $(awk 'length($0) > 240 {print $1}' "$WORK/list.txt" | head -3)"
fi
"$FEDVERIFY" report --list --only 'quadratic.*' > "$WORK/q.txt" 2> "$WORK/err.txt"
if [ $? -ne 0 ] || [ ! -s "$WORK/q.txt" ] || grep -qv '^quadratic\.' "$WORK/q.txt"; then
  fail "report --list --only 'quadratic.*': $(head -3 "$WORK/q.txt")"
else
  echo "ok: report --list --only 'quadratic.*' lists only those ($(wc -l < "$WORK/q.txt"))"
fi
expect_error "report --list --only without a match" "--only" report --list --only 'nothing.*'

# Did you mean: commands and options; nothing suggested for what is not close.
expect_error "misspelt command" "did you mean report?" repot --quick
expect_error "misspelt command, the commands listed" "predict, simulate" prdict
expect_error "misspelt option" "did you mean --gamma?" predict --problem "$SOURCE_DIR/examples/problems/quadratic.json" --algo fedavg --gama 0.05
expect_error "misspelt option with =" "did you mean --seed?" simulate --sedd=3 --problem x.json
expect_error "transposed letters" "did you mean --chains?" simulate --chians 4
expect_error "an option of another command" "report: unknown option --gamma" report --gamma 0.1
expect_error "no command at all: the commands listed" "a command is required: predict, simulate" 
expect_error "misspelt top-level option" "did you mean --version?" --versoin
"$FEDVERIFY" --help > "$WORK/help.txt" 2>&1
grep -q "^Usage: fedverify " "$WORK/help.txt" && echo "ok: the usage line names fedverify" ||
  fail "fedverify --help: usage line without the program name: $(grep Usage "$WORK/help.txt")"
"$FEDVERIFY" predict --frobnicate 1 > /dev/null 2> "$WORK/err.txt"
if refused "an option close to nothing" $? "unknown option --frobnicate" && grep -q "did you mean" "$WORK/err.txt"; then
  fail "an option close to nothing: a suggestion was made: $(cat "$WORK/err.txt")"
fi

# Per-command help: short, only the command's algorithms and options, optimiser keys behind
# --help-optimisers (the keys' names, e.g. beta1, appear only there; the option --beta1 of the
# fedadam preset is an option of the command, not the optimiser table). The budget, 80 lines:
# every algorithm and preset is one line and every algorithm's own parameter one option line
# (simulate: 24 + 21 of its 74 lines with Mime and FedPer, session 30); the budget is there to
# keep the optimisers' tables and per-key text out, which the grep below checks directly.
for cmd in predict simulate conformance; do
  "$FEDVERIFY" "$cmd" --help > "$WORK/help.txt" 2>&1
  lines=$(wc -l < "$WORK/help.txt")
  if [ "$lines" -gt 80 ] || grep -qE "(^|[^-])beta1" "$WORK/help.txt" || ! grep -q -- "--help-optimisers" "$WORK/help.txt"; then
    fail "$cmd --help: $lines lines, optimiser keys listed or --help-optimisers missing"
  else
    echo "ok: $cmd --help is $lines lines, optimisers' keys behind --help-optimisers"
  fi
done
"$FEDVERIFY" conformance --help > "$WORK/help.txt" 2>&1
for absent in l2gd fedgda fedrr --lambda --step-ratio --batch-size; do
  grep -qw -- "$absent" "$WORK/help.txt" && fail "conformance --help lists $absent, which conformance refuses"
done
for present in fedavg scaffold fedopt --participating --exec; do
  grep -qw -- "$present" "$WORK/help.txt" || fail "conformance --help lacks $present"
done
"$FEDVERIFY" predict --help > "$WORK/help.txt" 2>&1
grep -qw "fedsgda" "$WORK/help.txt" && fail "predict --help lists fedsgda, which has no closed forms"
grep -q -- "--batch-size" "$WORK/help.txt" && fail "predict --help lists --batch-size (fedsgda only)"
"$FEDVERIFY" simulate --help > "$WORK/help.txt" 2>&1
for present in fedsgda l2gd fedopt --batch-size --uplink; do
  grep -qw -- "$present" "$WORK/help.txt" || fail "simulate --help lacks $present"
done
echo "ok: each --help lists only the algorithms and options its command accepts"
"$FEDVERIFY" simulate --help-optimisers > "$WORK/opt.txt" 2> "$WORK/err.txt"
rc=$?
if [ "$rc" -ne 0 ] || ! grep -q "beta1" "$WORK/opt.txt" || ! grep -q "^--server" "$WORK/opt.txt" || ! grep -q "^--client" "$WORK/opt.txt"; then
  fail "simulate --help-optimisers: exit $rc: $(head -3 "$WORK/opt.txt")"
else
  echo "ok: --help-optimisers lists both roles with their keys ($(wc -l < "$WORK/opt.txt") lines)"
fi
# A command that no longer accepts an option still refuses it with exit 2 naming it.
expect_error "conformance refuses --lambda" "--lambda" conformance --problem p.json --algo fedavg --gamma 0.1 --lambda 1 --exec true --seed 1
finish "command-line help"
