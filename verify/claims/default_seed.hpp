// The seed of a report, a claim file or a Python claim run without --seed / seed= (docs/CLI.md):
// the shipped baseline (reports/baseline/results.json) and the figures in the docs are at it.
// Declared once: the command line, the report, the claims and the Python package read it here.
#pragma once

#include <cstdint>

namespace fedverify::claims {

inline constexpr std::uint64_t kDefaultSeed = 20261125;

}  // namespace fedverify::claims
