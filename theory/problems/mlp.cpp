#include "theory/problems/mlp.hpp"

#include <fmt/format.h>

#include <cmath>
#include <utility>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {

Mlp::Mlp(int input, std::vector<int> hidden, double leak) : leak_(leak) {
  if (input < 1) throw InputError(fmt::format("input: must be ≥ 1, got {}", input));
  if (!std::isfinite(leak)) throw InputError("leak: must be finite");
  widths_.push_back(input);
  for (std::size_t l = 0; l < hidden.size(); ++l) {
    if (hidden[l] < 1) {
      throw InputError(fmt::format("hidden[{}]: must be ≥ 1, got {}", l, hidden[l]));
    }
    widths_.push_back(hidden[l]);
  }
  widths_.push_back(1);
  for (int l = 1; l < static_cast<int>(widths_.size()); ++l) {
    offsets_.push_back(parameters_);
    parameters_ += static_cast<Eigen::Index>(widths_[l]) * (widths_[l - 1] + 1);
  }
}

Vector Mlp::initial(estimators::Stream& stream) const {
  Vector p(parameters_);
  Eigen::Index k = 0;
  for (int l = 1; l <= layers(); ++l) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(widths_[l - 1]));
    const Eigen::Index count = static_cast<Eigen::Index>(widths_[l]) * (widths_[l - 1] + 1);
    for (Eigen::Index i = 0; i < count; ++i) p[k++] = bound * (2.0 * stream.uniform() - 1.0);
  }
  return p;
}

RowVector Mlp::forward(const Vector& params, const Matrix& in, Cache* cache) const {
  if (cache) {
    cache->pre.resize(static_cast<std::size_t>(layers()));
    cache->inputs.resize(static_cast<std::size_t>(layers() - 1));
  }
  Matrix a;
  for (int l = 1; l <= layers(); ++l) {
    const auto rows = widths_[l];
    const auto cols = widths_[l - 1];
    const Eigen::Index at = offsets_[static_cast<std::size_t>(l - 1)];
    const Eigen::Map<const Matrix> w(params.data() + at, rows, cols);
    const Eigen::Map<const Vector> b(params.data() + at + Eigen::Index{rows} * cols, rows);
    Matrix u = (l == 1 ? w * in : w * a);
    u.colwise() += b;
    if (l == layers()) {
      if (cache) cache->pre.back() = u;
      return u.row(0);
    }
    a = (u.array() > 0).select(u, leak_ * u);
    if (cache) {
      cache->pre[static_cast<std::size_t>(l - 1)] = std::move(u);
      cache->inputs[static_cast<std::size_t>(l - 1)] = a;
    }
  }
  return {};  // unreachable: layers() ≥ 1
}

void Mlp::backward(const Vector& params, const Matrix& in, const Cache& cache,
                   const RowVector& weights, Vector& grad) const {
  Matrix delta = weights;  // ∂loss/∂u_L (1 × B)
  for (int l = layers(); l >= 1; --l) {
    const auto rows = widths_[l];
    const auto cols = widths_[l - 1];
    const Eigen::Index at = offsets_[static_cast<std::size_t>(l - 1)];
    const Matrix& a_in = l == 1 ? in : cache.inputs[static_cast<std::size_t>(l - 2)];
    Eigen::Map<Matrix> gw(grad.data() + at, rows, cols);
    Eigen::Map<Vector> gb(grad.data() + at + Eigen::Index{rows} * cols, rows);
    gw.noalias() += delta * a_in.transpose();
    gb += delta.rowwise().sum();
    if (l == 1) break;
    const Eigen::Map<const Matrix> w(params.data() + at, rows, cols);
    const Matrix& u_prev = cache.pre[static_cast<std::size_t>(l - 2)];
    Matrix back = w.transpose() * delta;
    delta = (u_prev.array() > 0).select(back, leak_ * back);
  }
}

}  // namespace fedverify::theory
