# Dependencies: Debian 12 packages only (README.md, docs/DEVELOPMENT.md). What `fedverify`
# needs is required; what only the tests, benchmarks, Python package or MPI reports need is
# optional, so that `./run.sh report` configures with the report's packages alone.
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(Boost 1.74 REQUIRED)            # Boost.Math is header-only
find_package(fmt REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)    # problem files and JSON output
find_package(CLI11 REQUIRED)                 # command-line parsing with typed validation
find_package(OpenMP REQUIRED)                # parallel over chain blocks
find_package(ZLIB REQUIRED)                 # the gzipped scikit-learn tables of the optimiser study
find_path(RANDOM123_INCLUDE_DIR Random123/philox.h REQUIRED)   # librandom123-dev, header-only
find_path(LEMON_INCLUDE_DIR lemon/network_simplex.h REQUIRED)   # liblemon-dev
find_library(LEMON_LIBRARY lemon REQUIRED)

# fedverify_optional(<result> <option> <package> <debian package>): <result> is ON when the
# option is on and the package is found (a macro: find_package's variables stay visible).
macro(fedverify_optional result option package debian)
  set(${result} OFF)
  if(${option})
    find_package(${package} QUIET)
    if(${package}_FOUND)
      set(${result} ON)
    else()
      message(STATUS "fedverify: ${result} off (${debian} not found)")
    endif()
  endif()
endmacro()

# Tests (libgtest-dev) and benchmarks (libbenchmark-dev): built when asked for (ON, the default)
# and found; `./run.sh test` installs both.
option(FEDVERIFY_BUILD_TESTS "Build the test executables (needs libgtest-dev)" ON)
fedverify_optional(FEDVERIFY_TESTS FEDVERIFY_BUILD_TESTS GTest libgtest-dev)
option(FEDVERIFY_BUILD_BENCHMARKS "Build the Google Benchmark targets in bench/" ON)
fedverify_optional(FEDVERIFY_BENCHMARKS FEDVERIFY_BUILD_BENCHMARKS benchmark libbenchmark-dev)

# MPI (optional): `fedverify report` started by mpirun spreads its claims over the ranks
# (reports/report/ranks.hpp; docs/CLI.md, "Reports across machines"). AUTO: when found (Debian:
# openmpi-bin libopenmpi-dev); ON: required; OFF: never. Without it the report is one process.
set(FEDVERIFY_MPI AUTO CACHE STRING "Distribute `fedverify report` over MPI ranks: AUTO, ON or OFF")
set_property(CACHE FEDVERIFY_MPI PROPERTY STRINGS AUTO ON OFF)
if(NOT FEDVERIFY_MPI MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "FEDVERIFY_MPI must be AUTO, ON or OFF (is \"${FEDVERIFY_MPI}\")")
endif()
set(FEDVERIFY_WITH_MPI OFF)
set(MPI_CXX_SKIP_MPICXX ON)  # the C API only: no deprecated C++ bindings (libmpi_cxx)
if(FEDVERIFY_MPI STREQUAL "ON")
  find_package(MPI REQUIRED COMPONENTS CXX)
elseif(FEDVERIFY_MPI STREQUAL "AUTO")
  find_package(MPI QUIET COMPONENTS CXX)
endif()
if(MPI_CXX_FOUND AND NOT FEDVERIFY_MPI STREQUAL "OFF")
  set(FEDVERIFY_WITH_MPI ON)
endif()
message(STATUS "fedverify: MPI ${FEDVERIFY_WITH_MPI} (FEDVERIFY_MPI=${FEDVERIFY_MPI})")

# The Python package (python/, docs/PYTHON.md): the pybind11 module fedverify._core, built for
# the Debian Python /usr/bin/python3 (whose NumPy is Debian's) unless Python_EXECUTABLE names
# another. On by default when pybind11 (pybind11-dev) and the Python headers (python3-dev) are
# found.
if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3)
endif()
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.10 CONFIG QUIET)
option(FEDVERIFY_PYTHON "Build the Python package fedverify (pybind11) when pybind11 is found" ON)
set(FEDVERIFY_WITH_PYTHON OFF)
if(FEDVERIFY_PYTHON)
  if(pybind11_FOUND)
    set(FEDVERIFY_WITH_PYTHON ON)
  else()
    message(STATUS "fedverify: Python package not built (needs pybind11-dev python3-dev)")
  endif()
endif()
