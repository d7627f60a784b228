#!/usr/bin/env bash
# Bounded fuzz runs (ctest label slow): builds the libFuzzer targets with clang, ASan and UBSan
# in BUILD (default build-fuzz) and runs each for SECONDS (default 60) from its committed corpus
# with a fixed seed; then the structure-aware campaign (verify/fuzz/campaign.py) against the
# sanitized fedverify command, COUNT inputs (default 2000). Exit 0 only when neither finds a
# crash, a sanitizer report, a timeout or an exit code outside {0, 2} (cli_fuzz; the campaign
# also allows report's 1).
#   verify/fuzz/run_fuzz.sh [SECONDS] [COUNT]
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
count=${2:-2000}
build=${BUILD:-build-fuzz}
CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFEDVERIFY_FUZZ=ON \
  -DFEDVERIFY_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j "${FEDVERIFY_JOBS:-$(nproc)}" --target problem_reader_fuzz cli_fuzz \
  protocol_fuzz fedverify >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# problem_reader_fuzz: corpus/problem (problem files); cli_fuzz: corpus/cli (argv, NUL-separated,
# every reproducer of verify/cli/hostile_inputs.sh among them); protocol_fuzz: corpus/protocol
# (the lines an implementation writes to `fedverify conformance`). The committed corpus is run
# first in full (regression inputs), then mutated. -close_fd_mask=3: the command's own stdout and
# stderr are discarded (libFuzzer's reports still appear).
for pair in problem_reader_fuzz:problem cli_fuzz:cli protocol_fuzz:protocol; do
  target=${pair%%:*}
  corpus=verify/fuzz/corpus/${pair##*:}
  cp -r "$corpus" "$work/$target"
  echo "run_fuzz: $target for ${seconds}s"
  FEDVERIFY_FUZZ_STATS="$work/$target.stats" "$build/$target" -seed=1 \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=65536 -close_fd_mask=3 \
    "$work/$target" "$corpus" 2>"$work/$target.log" || { tail -40 "$work/$target.log"; exit 1; }
  grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$work/$target.log" | tail -1
  [ ! -f "$work/$target.stats" ] || cat "$work/$target.stats"
done
/usr/bin/python3 verify/fuzz/campaign.py --binary "$build/fedverify" --count "$count" --seed 1 \
  --timeout 20 --jobs "${FEDVERIFY_JOBS:-$(nproc)}" --keep "$work/failing"
