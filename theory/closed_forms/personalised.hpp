// The L2GD closed forms (THEORY P3, P4, P5, the exact mean-square dynamics) are in
// theory/algorithms/l2gd.hpp; this header forwards to it.
#pragma once

#include "theory/algorithms/l2gd.hpp"  // IWYU pragma: export
