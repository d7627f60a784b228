// Round-off yardsticks of the deterministic unit tests (tests only).
//
// Deterministic comparisons use the round-off bound of the computation: a backward-stable solve
// of a system with condition number κ in dimension n is accurate to ~ n·ε·κ relative; the tests
// allow kSafety times that (growth factors, forming the right-hand side). Finite differences use
// the textbook error of the central difference (truncation h²/6·|f'''| plus round-off ε|f|/h),
// with derivative bounds stated next to each test.
#pragma once

#include <cmath>
#include <limits>

#include "theory/base/linalg.hpp"

namespace fedverify::verify {

constexpr double kEps = std::numeric_limits<double>::epsilon();
// Multiplier on the n·ε·κ round-off bound of a backward-stable solve: covers the growth factor
// of LU/Schur and the rounding of the inputs (a handful of operations per entry).
constexpr double kSafety = 10.0;

// Central-difference step h = ε^{1/3}: balances truncation h²/6·|f'''| and round-off ε|f|/h.
inline const double kFdStep = std::cbrt(kEps);

// ‖a − reference‖_F / ‖reference‖_F.
inline double relative_error(const Matrix& a, const Matrix& reference) {
  return (a - reference).norm() / reference.norm();
}

}  // namespace fedverify::verify
