#include "verify/claims/games/concave_max.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace fedverify::claims::games {
namespace {

constexpr double kEps = std::numeric_limits<double>::epsilon();

struct Gradient {
  Vector g;
  double noise = 0;
};

Gradient difference_gradient(const std::function<double(const Vector&)>& f, const Vector& x,
                             double step) {
  const double h = step * (1.0 + x.norm());
  Gradient out{Vector(x.size()), 0};
  double largest = std::abs(f(x));
  Vector y = x;
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    y(j) = x(j) + h;
    const double up = f(y);
    y(j) = x(j) - h;
    const double down = f(y);
    y(j) = x(j);
    out.g(j) = (up - down) / (2.0 * h);
    largest = std::max({largest, std::abs(up), std::abs(down)});
  }
  out.noise = 4.0 * kEps * std::sqrt(static_cast<double>(x.size())) * largest / h;
  return out;
}

}  // namespace

NumericalMaximum maximise_concave(const std::function<double(const Vector&)>& f,
                                  const Vector& start, double gradient_tolerance,
                                  int max_iterations, double step) {
  const auto m = start.size();
  Vector x = start;
  Gradient grad = difference_gradient(f, x, step);
  Vector d = grad.g;
  int it = 0;
  for (; it < max_iterations && grad.g.norm() > gradient_tolerance; ++it) {
    // Parabola through φ(−s), φ(0), φ(s) along d, with s a unit move.
    const double s = 1.0 / d.norm();
    const double minus = f(x - s * d), zero = f(x), plus = f(x + s * d);
    const double curvature = (plus - 2.0 * zero + minus) / (s * s);
    if (!(curvature < 0.0)) {
      if (curvature == 0.0 && plus == minus) break;  // flat to round-off: nothing to gain
      throw std::runtime_error("maximise_concave: the function is not concave along a direction");
    }
    x += (-(plus - minus) / (2.0 * s) / curvature) * d;
    const Gradient next = difference_gradient(f, x, step);
    const double beta =
        (it + 1) % m == 0 ? 0.0 : std::max(0.0, next.g.dot(next.g - grad.g) / grad.g.squaredNorm());
    d = next.g + beta * d;
    grad = next;
  }
  return {x, f(x), grad.g.norm(), grad.noise, it};
}

}  // namespace fedverify::claims::games
