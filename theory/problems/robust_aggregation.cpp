// RFA's aggregation rules (THEORY (A6)); see robust_aggregation.hpp.
#include "theory/problems/robust_aggregation.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fedverify::theory {

Vector geometric_median(const Matrix& points, const Vector& weights, int iterations, double nu) {
  Vector z = points * weights / weights.sum();
  for (int r = 0; r < iterations; ++r) {
    Vector sum = Vector::Zero(points.rows());
    double total = 0;
    for (Eigen::Index c = 0; c < points.cols(); ++c) {
      const double beta = weights(c) / std::max(nu, (z - points.col(c)).norm());
      sum += beta * points.col(c);
      total += beta;
    }
    z = sum / total;
  }
  return z;
}

Vector trimmed_mean(const Matrix& points, double trim) {
  const auto n = points.cols();
  const auto k = static_cast<Eigen::Index>(std::floor(trim * static_cast<double>(n)));
  Vector out(points.rows());
  std::vector<double> values(static_cast<std::size_t>(n));
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    for (Eigen::Index c = 0; c < n; ++c) values[c] = points(i, c);
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (Eigen::Index c = k; c < n - k; ++c) sum += values[c];
    out(i) = sum / static_cast<double>(n - 2 * k);
  }
  return out;
}

}  // namespace fedverify::theory
