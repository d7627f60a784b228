// Numerical maximisation of a smooth concave function given only by its values: the measurement
// side of claim games.gmm-identities (THEORY M4), which compares the suprema of Lemma 1 and
// Lemma 2 with their closed forms without using them.
//
// Polak–Ribière conjugate gradients (restarted every m iterations, β ≥ 0) with central-difference
// gradients and an exact parabolic line search (three values along the direction). Both are exact
// for a quadratic up to round-off, so on a concave quadratic in m variables the iteration reaches
// the maximum in about m steps; the values it uses carry round-off only.
#pragma once

#include <functional>

#include "theory/base/linalg.hpp"

namespace fedverify::claims::games {

struct NumericalMaximum {
  Vector argmax;
  double value = 0;
  double gradient_norm = 0;   // ‖∇f‖ by central differences at argmax
  double gradient_noise = 0;  // bound on the round-off of that gradient: 4ε√m·max|f|/h
  int iterations = 0;
};

// Maximises f from `start` until the difference gradient has norm ≤ gradient_tolerance or after
// max_iterations; the difference step is h = step·(1 + ‖x‖). Throws std::runtime_error when f is
// not concave along a search direction (a parabola with curvature ≥ 0).
NumericalMaximum maximise_concave(const std::function<double(const Vector&)>& f,
                                  const Vector& start, double gradient_tolerance,
                                  int max_iterations, double step = 1e-2);

}  // namespace fedverify::claims::games
