#!/bin/bash
# The detection-power table one claim at a time, resumably: each claim of the default report
# (opt-in studies left out) is run by build/power_table into PARTS/<claim>.json, a claim whose part
# exists is skipped, and the parts are merged (power_table --merge, which checks that they ran the
# same seeds) into OUT with --check. A run cut off loses only the claim it was on: run the same
# command again to go on. verify/power/table.hpp says why the merged table is the whole run's.
# The default PARTS is committed (reports/power/parts/): the whole table takes longer than a
# working session, so finished parts are kept in the repository (each records its commit) and a
# later session, on another machine, goes on where the last stopped. A part is valid while its
# claim's code and the plants are unchanged: delete the parts of a claim you change.
#
# Usage: verify/power/power_table_by_claim.sh [PARTS] [OUT] [power_table flags…]
#   PARTS  directory of the parts (default reports/power/parts; logs go to build/power-logs)
#   OUT    the merged table (default reports/power/power_table.json)
#   flags  passed to every part's run, e.g. --threads 1 --seeds 20
# Run from the repository root after building power_table and fedverify.
set -euo pipefail
parts=${1:-reports/power/parts}
out=${2:-reports/power/power_table.json}
shift $(($# < 2 ? $# : 2))
for tool in build/power_table build/fedverify; do
  [ -x "$tool" ] || { echo "power_table_by_claim: $tool is not built" >&2; exit 2; }
done
logs=build/power-logs
mkdir -p "$parts" "$logs"
# Spinning OpenMP workers take the CPU a descheduled one needs when the machine is shared.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ids=$(build/fedverify report --list | grep -v '(opt-in)' | awk '{print $1}')
files=()
for id in $ids; do
  part="$parts/$id.json"
  files+=(--merge "$part")
  [ -s "$part" ] && continue
  echo "power_table_by_claim: $id ($(date -u +%H:%M:%S) UTC)" >&2
  build/power_table "$@" --claims "^${id//./\\.}\$" --out "$part.partial" \
    > "$logs/$id.md" 2> "$logs/$id.log"
  mv "$part.partial" "$part"
done
build/power_table "${files[@]}" --check --out "$out"
