#!/bin/bash
# The gain of MPI ranks on `fedverify report`, for two builds in one command (docs/DESIGN-EXTENSIONS.md,
# "Reports across machines", measured): each case as one process (its threads), on `mpirun -n 1`
# (Open MPI binds it to one core) and on `mpirun -n 2`, twice, wall time.
#   bench/mpi_speedup.sh BEFORE AFTER     e.g. /tmp/fedverify_f212ad8 build/fedverify
set -u
before=${1:?usage: mpi_speedup.sh <fedverify before> <fedverify after>}
after=${2:?usage: mpi_speedup.sh <fedverify before> <fedverify after>}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() { # label binary ranks (0: no launcher) [--only pattern]
  local label=$1 bin=$2 np=$3
  shift 3
  local launcher=()
  [ "$np" != 0 ] && launcher=(mpirun -n "$np")
  /usr/bin/time -f "$label: %e s wall" "${launcher[@]}" "$bin" report --quick "$@" --out "$out/r" 2>&1 | tail -1
}
uptime
for only in "" "optimisers.study*"; do
  echo "== ${only:-quick report}"
  args=()
  [ -n "$only" ] && args=(--only "$only")
  for rep in 1 2; do
    for side in before after; do
      bin=$before
      [ "$side" = after ] && bin=$after
      run "$side, one process" "$bin" 0 "${args[@]}"
      run "$side, mpirun -n 1" "$bin" 1 "${args[@]}"
      run "$side, mpirun -n 2" "$bin" 2 "${args[@]}"
    done
  done
done
uptime
