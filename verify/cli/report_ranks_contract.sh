#!/usr/bin/env bash
# `fedverify report` under an MPI launcher it cannot serve (docs/DESIGN-EXTENSIONS.md, "Reports
# across machines", Errors): the launcher's variables say several processes were started, but
# this process is alone — built without MPI (each process would run the whole report into the
# same --out), or built with an MPI that sees a world of 1 (another MPI's launcher). Either way:
# exit 2, one stderr line naming the cause, no output directory. Runs with and without MPI built.
# Usage: bash report_ranks_contract.sh <path-to-fedverify> <source-dir>
source "$(dirname "${BASH_SOURCE[0]}")/lib/contract.bash" "$@"
only='quadratic.exact-remainder-order'

for launcher in OMPI_COMM_WORLD_SIZE=2 PMI_SIZE=3; do
  env -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u PMIX_RANK "$launcher" \
    "$FEDVERIFY" report --quick --only "$only" --out "$WORK/out" > /dev/null 2> "$WORK/err.txt"
  rc=$?
  n=${launcher#*=}
  if refused "$launcher" "$rc" "$n processes"; then
    if grep -qF "built without MPI" "$WORK/err.txt" || grep -qF "mpi: the launcher started $n" "$WORK/err.txt"; then
      echo "ok: $launcher -> $(cat "$WORK/err.txt")"
    else
      fail "$launcher: the message names neither the missing MPI nor the world size: $(cat "$WORK/err.txt")"
    fi
  fi
  [ -e "$WORK/out" ] && fail "$launcher: --out was written"
done

# One process of a launcher (mpirun -np 1) and no launcher at all: the report runs.
for launcher in OMPI_COMM_WORLD_SIZE=1 NO_LAUNCHER=1; do
  env -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE -u PMIX_RANK "$launcher" \
    "$FEDVERIFY" report --quick --only "$only" --out "$WORK/ok" > /dev/null 2> "$WORK/err.txt"
  rc=$?
  if [ "$rc" -ne 0 ] || [ ! -s "$WORK/ok/results.json" ]; then
    fail "$launcher: exit $rc, expected 0 and results.json: $(head -c 300 "$WORK/err.txt")"
  else
    echo "ok: $launcher -> report written"
  fi
done
finish "report under a launcher"
