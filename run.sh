#!/usr/bin/env bash
# fedverify set-up and entry point (README.md). Installs missing Debian packages, builds, then
#   ./run.sh report [fedverify report options]   the main job: REPORT.md under reports/out/
#   ./run.sh test   [ctest options]              build and run the test suite (fast label)
# Environment: BUILD_DIR (default build), FEDVERIFY_JOBS (default nproc).
set -euo pipefail
cd "$(dirname "$0")"

# What `./run.sh report` needs: the compiler, the libraries of the `fedverify` target, gnuplot for
# the figures and python3-sklearn for the real-data tables (breast-cancer, diabetes, …).
packages=(build-essential cmake libeigen3-dev libboost-math-dev libfmt-dev nlohmann-json3-dev
          libcli11-dev librandom123-dev liblemon-dev gnuplot-nox python3 python3-sklearn
          zlib1g-dev)
# Installed by `./run.sh test` only (a report does not need them): the test and benchmark
# libraries, the Python package's build (pybind11, NumPy, SciPy), MPI for the multi-rank report
# tests, chromium, which renders REPORT.html headless in the ctest cli.report_html (skipped
# without it), PyTorch for the conformance bridge fedverify.torch, and pandas and matplotlib for
# fedverify.Results.to_dataframe and fedverify.plot (their tests skip without them), and jupyter
# nbconvert with the Python kernel, which execute the worked notebook examples/notebooks/ in the
# ctest python.notebook.first_hour (skipped without them).
test_packages=(libgtest-dev libbenchmark-dev python3-numpy python3-scipy pybind11-dev python3-dev
               openmpi-bin libopenmpi-dev chromium python3-torch python3-pandas
               python3-matplotlib jupyter-nbconvert python3-ipykernel)

# install_missing [extra packages]: installs the packages (and the extra ones) not yet installed.
install_missing() {
  local missing=()
  for p in "${packages[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "run.sh: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  fi
}

# build [target]: configures and builds the target (default: everything).
build() {
  local dir=${BUILD_DIR:-build}
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$dir" -j "${FEDVERIFY_JOBS:-$(nproc)}" ${1:+--target "$1"}
}

# The Python package into the Debian Python's site directory (/usr/local/lib/python3.X/
# dist-packages, on /usr/bin/python3's path), so that `/usr/bin/python3 -c "import fedverify"`
# works after this script. A copy (cmake --install of the python component), not a .pth file
# pointing at the build tree: it survives `rm -rf build` and a half-finished rebuild, and each
# run of this script refreshes it. FEDVERIFY_PYTHON_PREFIX overrides the prefix (default
# /usr/local; as root, or with sudo).
install_python() {
  local dir=$1 prefix=${FEDVERIFY_PYTHON_PREFIX:-/usr/local} sudo=""
  compgen -G "$dir/python/fedverify/_core*.so" >/dev/null || return 0
  if [ "$(id -u)" -ne 0 ] && [ ! -w "$prefix" ]; then sudo="sudo"; fi
  $sudo cmake --install "$dir" --component python --prefix "$prefix" >/dev/null
}

cmd=${1:-}
shift || true
case "$cmd" in
  report)
    install_missing
    build fedverify >&2
    exec "${BUILD_DIR:-build}/fedverify" report "$@"
    ;;
  test)
    install_missing "${test_packages[@]}"
    build
    install_python "${BUILD_DIR:-build}"
    exec ctest --test-dir "${BUILD_DIR:-build}" -LE slow -j "${FEDVERIFY_JOBS:-$(nproc)}" \
      --output-on-failure --timeout 900 "$@"
    ;;
  *)
    echo "usage: ./run.sh report [options] | ./run.sh test [ctest options]" >&2
    exit 2
    ;;
esac
