# Compiler flags of every fedverify target: warnings (FEDVERIFY_WARNINGS, private to each target),
# the machine (FEDVERIFY_OPT, public: a header's inline code is compiled for the same machine in
# every target) and the sanitizer and fuzzing builds.
option(FEDVERIFY_NATIVE "Optimise for the build machine (-march=native)" ON)
option(FEDVERIFY_SANITIZE "Build with AddressSanitizer and UndefinedBehaviorSanitizer" OFF)
option(FEDVERIFY_FUZZ "Build the libFuzzer targets in verify/fuzz (clang; implies SANITIZE)" OFF)

# -Wno-maybe-uninitialized: GCC 12 false positives inside its own AVX-512 intrinsics headers
# when Eigen is compiled with -march=native.
# GCC only: clang does not know the option and would warn about it in every file.
set(FEDVERIFY_WARNINGS -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
                       $<$<CXX_COMPILER_ID:GNU>:-Wno-maybe-uninitialized> -Wno-uninitialized)
set(FEDVERIFY_OPT "")
if(FEDVERIFY_NATIVE)
  list(APPEND FEDVERIFY_OPT -march=native)
endif()
if(FEDVERIFY_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "FEDVERIFY_FUZZ needs clang (CMAKE_CXX_COMPILER=clang++)")
  endif()
  set(FEDVERIFY_SANITIZE ON)
  add_compile_options(-fsanitize=fuzzer-no-link)  # coverage feedback from the libraries
endif()
if(FEDVERIFY_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  add_link_options(-fsanitize=address,undefined)
endif()
# The layer libraries are position-independent: the Python module links them (and a build
# configured first without pybind11 need not recompile every layer when it is installed).
set(CMAKE_POSITION_INDEPENDENT_CODE ON)


# Precompiled headers (opt-in): the third-party and standard headers nearly every file includes
# (Eigen, nlohmann/json, fmt, GoogleTest) parsed once per target instead of once per file, where
# a target's files are many and light: the claims, report and CLI layers and the tests (which
# share one). Measured (2 cores, AMD family 26, 2026-12-05): the claims' files 612 → 460 CPU s,
# the tests' 1103 → 1043, for 44 s building the headers; the problem and theory layers, whose time is Eigen instantiation, did not
# gain and never use them. Off by default: clang-tidy cannot read GCC's .gch files, so
# `clang-tidy -p build` fails on a build configured with them (use a second build directory).
option(FEDVERIFY_PCH "Precompile the common third-party headers (claims, report, CLI, tests)" OFF)
set(FEDVERIFY_PRECOMPILED_HEADERS
    <algorithm> <cmath> <cstdint> <functional> <limits> <map> <memory> <optional> <stdexcept>
    <string> <string_view> <utility> <vector>
    <Eigen/Dense> <fmt/format.h> <fmt/ranges.h> <nlohmann/json.hpp>)
