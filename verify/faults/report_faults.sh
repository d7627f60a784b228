#!/usr/bin/env bash
# Fault injection against `fedverify report` (reports/report/staged_directory.hpp): the output
# directory always holds the old complete report or the new complete one, never a mix, never a
# truncated file, and every I/O failure exits 2 with one stderr line (never 0).
#   (a) --out on a read-only file system (root: a read-only tmpfs in a private mount namespace;
#       otherwise a parent directory without write permission): exit 2, old report intact.
#   (b) a full file system (root: a tmpfs of 200 KiB, filled up): exit 2, old report intact, no
#       partial files.
#   (c) SIGKILL at the N-th write(2) of every process of the run (strace -f -e inject), for
#       N = 1, 2, … until a run completes: after each, the directory is the old set or the new.
# Runs `report --quick --only 'personalised.optimum-limits'` (a fast claim with a figure).
# Root-only parts skip with a message when not root. ctest label: slow.
# Usage: bash report_faults.sh <path-to-fedverify>
set -u
FEDVERIFY=$(realpath "${1:?usage: report_faults.sh <fedverify>}")
PYTHON=/usr/bin/python3
WORK=$(mktemp -d)
export TMPDIR=$WORK/tmp  # gnuplot's scratch directories of killed runs stay in $WORK
mkdir -p "$TMPDIR"
trap 'rm -rf "$WORK"' EXIT
FAILURES=0
ONLY='personalised.optimum-limits'
OLD_SEED=1
NEW_SEED=20261125
fail() {
  echo "FAIL: $*"
  FAILURES=$((FAILURES + 1))
}
is_root() { [ "$(id -u)" -eq 0 ]; }

# report <out> <seed> [prefix command...]: runs the report, stdout discarded; sets RC, ERR.
report() {
  local out=$1 seed=$2
  shift 2
  # In a subshell whose own stderr is discarded: bash reports a killed child ("Killed") there.
  (
    "$@" "$FEDVERIFY" report --quick --only "$ONLY" --seed "$seed" --out "$out" \
      > /dev/null 2> "$WORK/err.txt"
    exit $?  # (not exec'd: this subshell, not the script, reaps the command)
  ) 2> /dev/null
  RC=$?
}

# fingerprint <dir>: file names (hidden ones included) and checksums, sorted.
fingerprint() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha256sum); }

# expect_refused <what>: exit 2 with exactly one stderr line.
expect_refused() {
  if [ "$RC" -ne 2 ] || [ "$(wc -l < "$WORK/err.txt")" -ne 1 ]; then
    fail "$1: exit $RC, expected 2 with one stderr line: $(head -c 300 "$WORK/err.txt")"
    return 1
  fi
  echo "ok: $1 -> $(cat "$WORK/err.txt")"
}

# expect_old <dir> <fingerprint file> <what>: the directory is exactly the old set.
expect_old() {
  if ! diff <(fingerprint "$1") "$2" > "$WORK/diff.txt"; then
    fail "$3: the old report changed: $(head -c 400 "$WORK/diff.txt")"
    return 1
  fi
}

# complete_new <dir>: the directory is a complete report of NEW_SEED (REPORT.md, REPORT.html and
# results.json of that seed and complete, every figure REPORT.md names complete, nothing else).
complete_new() {
  "$PYTHON" - "$1" "$NEW_SEED" << 'PY'
import json, os, re, sys
d, seed = sys.argv[1], int(sys.argv[2])
names = set(os.listdir(d))
results = json.load(open(os.path.join(d, "results.json")))
assert results["fedverify"]["seed"] == seed, "results.json of another seed"
md = open(os.path.join(d, "REPORT.md")).read()
assert f"Seed {seed}" in md, "REPORT.md of another seed"
assert md.rstrip().endswith("every row's seed is in results.json."), "REPORT.md truncated"
figures = set(re.findall(r"\]\(([^)]+\.svg)\)", md))
for f in figures:
    assert open(os.path.join(d, f)).read().rstrip().endswith("</svg>"), f + " truncated"
assert open(os.path.join(d, "REPORT.html")).read().rstrip().endswith("</html>"), "REPORT.html truncated"
extra = names - figures - {"REPORT.md", "REPORT.html", "results.json", ".fedverify-output"}
assert not extra, f"unexpected files {sorted(extra)}"
assert ".fedverify-output" in names, "no marker"
PY
}

# --- (a) read-only --out ---------------------------------------------------------------------
if is_root; then
  # Inside a private mount namespace: a tmpfs holding the old report, remounted read-only.
  cat > "$WORK/ro.sh" << 'SH'
set -u
mnt=$1; fedverify=$2; only=$3; work=$4
mount -t tmpfs -o size=4m tmpfs "$mnt" || exit 10
"$fedverify" report --quick --only "$only" --seed 1 --out "$mnt/out" > /dev/null 2>&1 || exit 11
(cd "$mnt/out" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$work/ro-before.txt"
mount -o remount,ro "$mnt" || exit 12
"$fedverify" report --quick --only "$only" --out "$mnt/out" > /dev/null 2> "$work/err.txt"
echo $? > "$work/ro-rc.txt"
(cd "$mnt/out" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$work/ro-after.txt"
SH
  mkdir -p "$WORK/ro"
  if unshare -m bash "$WORK/ro.sh" "$WORK/ro" "$FEDVERIFY" "$ONLY" "$WORK"; then
    RC=$(cat "$WORK/ro-rc.txt")
    expect_refused "read-only file system (tmpfs ro)" &&
      { diff -q "$WORK/ro-before.txt" "$WORK/ro-after.txt" > /dev/null ||
        fail "read-only file system: the old report changed"; }
  else
    echo "skip: (a) read-only tmpfs: mount in a private namespace failed (no CAP_SYS_ADMIN?)"
  fi
else
  echo "skip: (a) read-only tmpfs needs root; testing a parent without write permission instead"
fi
# Any user: a parent directory without write permission (root ignores permissions: skipped).
if ! is_root; then
  mkdir -p "$WORK/locked"
  report "$WORK/locked/out" "$OLD_SEED"
  fingerprint "$WORK/locked/out" > "$WORK/locked-before.txt"
  chmod 555 "$WORK/locked"
  report "$WORK/locked/out" "$NEW_SEED"
  expect_refused "parent without write permission" &&
    expect_old "$WORK/locked/out" "$WORK/locked-before.txt" "parent without write permission"
  chmod 755 "$WORK/locked"
fi

# --- (b) full disk -----------------------------------------------------------------------------
if is_root; then
  cat > "$WORK/full.sh" << 'SH'
set -u
mnt=$1; fedverify=$2; only=$3; work=$4
mount -t tmpfs -o size=200k tmpfs "$mnt" || exit 10
"$fedverify" report --quick --only "$only" --seed 1 --out "$mnt/out" > /dev/null 2>&1 || exit 11
(cd "$mnt/out" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$work/full-before.txt"
# Fill what is left, so that the new report cannot be staged beside the old one.
dd if=/dev/zero of="$mnt/filler" bs=4k > /dev/null 2>&1
"$fedverify" report --quick --only "$only" --out "$mnt/out" > /dev/null 2> "$work/err.txt"
echo $? > "$work/full-rc.txt"
(cd "$mnt/out" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$work/full-after.txt"
ls -A "$mnt" > "$work/full-ls.txt"
SH
  mkdir -p "$WORK/full"
  if unshare -m bash "$WORK/full.sh" "$WORK/full" "$FEDVERIFY" "$ONLY" "$WORK"; then
    RC=$(cat "$WORK/full-rc.txt")
    if expect_refused "full file system (tmpfs 200 KiB)"; then
      diff -q "$WORK/full-before.txt" "$WORK/full-after.txt" > /dev/null ||
        fail "full file system: the old report changed"
      # Only the old report and the filler: no staging directory, no partial file.
      [ "$(tr '\n' ' ' < "$WORK/full-ls.txt")" = "filler out " ] ||
        fail "full file system: left behind: $(tr '\n' ' ' < "$WORK/full-ls.txt")"
    fi
  else
    echo "skip: (b) full tmpfs: mount in a private namespace failed (no CAP_SYS_ADMIN?)"
  fi
else
  echo "skip: (b) full file system needs root (a small tmpfs)"
fi

# --- (c) SIGKILL at every write ----------------------------------------------------------------
if ! command -v strace > /dev/null 2>&1 && is_root && command -v apt-get > /dev/null 2>&1; then
  echo "installing strace (Debian package)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace > /dev/null 2>&1 ||
    { apt-get update -qq > /dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace > /dev/null 2>&1; }
fi
if command -v strace > /dev/null 2>&1 &&
    strace -o /dev/null -qq -f true > /dev/null 2>&1; then
  out=$WORK/kill/out
  mkdir -p "$WORK/kill"
  report "$WORK/snapshot" "$OLD_SEED"
  [ "$RC" -eq 0 ] || fail "reference report (seed $OLD_SEED): exit $RC"
  fingerprint "$WORK/snapshot" > "$WORK/old.txt"
  killed=0 old=0 new=0 limit=500 n=1
  while [ "$n" -le "$limit" ]; do
    rm -rf "$out"
    cp -a "$WORK/snapshot" "$out"
    report "$out" "$NEW_SEED" strace -o /dev/null -qq -f -e "inject=write:signal=SIGKILL:when=$n"
    if [ "$RC" -eq 0 ]; then
      # The run completed: no write of the report process was hit any more.
      complete_new "$out" || fail "N = $n: the completed run's report is not complete"
      echo "ok: (c) the run completes from N = $n on"
      break
    fi
    killed=$((killed + 1))
    if diff -q <(fingerprint "$out") "$WORK/old.txt" > /dev/null; then
      old=$((old + 1))
    elif complete_new "$out" 2> "$WORK/why.txt"; then
      new=$((new + 1))
    else
      fail "N = $n (exit $RC): neither the old nor a complete new report: $(tail -1 "$WORK/why.txt"); $(ls -A "$out" | tr '\n' ' ')"
    fi
    n=$((n + 1))
  done
  [ "$n" -le "$limit" ] || fail "(c) the run never completed within $limit kill points"
  echo "ok: (c) $killed runs killed at a write(2): $old left the old report, $new the new one, $((killed - old - new)) anything else"
else
  echo "skip: (c) strace is missing or cannot trace here (install the Debian package strace)"
fi

if [ "$FAILURES" -ne 0 ]; then
  echo "$FAILURES report fault check(s) failed"
  exit 1
fi
echo "report faults: all checks passed"
