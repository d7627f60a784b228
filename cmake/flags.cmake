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
# GCC's garbage collector: by default it collects whenever its heap has grown by 100 % over at
# least 128 MB, which on Eigen-heavy files is 7–15 % of the compile time. With 1 GB of heap
# before the first collection the objects are byte-for-byte the same (compared file by file) and
# the heaviest file peaks at 2.7 GB instead of 2.3 GB; so only where each of two compilers has
# 4 GB (FEDVERIFY_MEMORY_MIB: the machine's memory, as CMake reads it).
cmake_host_system_information(RESULT FEDVERIFY_MEMORY_MIB QUERY TOTAL_PHYSICAL_MEMORY)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND FEDVERIFY_MEMORY_MIB GREATER_EQUAL 8192)
  add_compile_options(--param=ggc-min-expand=400 --param=ggc-min-heapsize=1048576)
endif()
# The layer libraries are position-independent: the Python module links them (and a build
# configured first without pybind11 need not recompile every layer when it is installed).
set(CMAKE_POSITION_INDEPENDENT_CODE ON)


# Precompiled headers: the third-party and standard headers nearly every file includes (Eigen,
# nlohmann/json, fmt, GoogleTest), and for the claims the kit's headers too (verify/CMakeLists.txt),
# parsed once per target instead of once per file, where a target's files are many and light: the
# claims, runs, report and CLI layers and the tests (which share one). The problem, theory,
# sampler and statistics layers compile without: their time is Eigen's and Boost's instantiation,
# which a precompiled header does not save (measured in docs/PERFORMANCE-HISTORY.md, "Build").
# clang-tidy cannot read GCC's .gch files: it reads the compile commands of a directory configured
# with FEDVERIFY_PCH=OFF (docs/DEVELOPMENT.md; configuring compiles nothing).
option(FEDVERIFY_PCH "Precompile the common headers (claims, runs, report, CLI, tests)" ON)
set(FEDVERIFY_PRECOMPILED_HEADERS
    <algorithm> <cmath> <cstdint> <functional> <limits> <map> <memory> <optional> <stdexcept>
    <string> <string_view> <utility> <vector>
    <Eigen/Dense> <fmt/format.h> <fmt/ranges.h> <nlohmann/json.hpp>)
