#include "theory/closed_forms/branched_moments.hpp"

#include <cmath>
#include <functional>
#include <stdexcept>
#include <utility>

#include "theory/base/arnoldi.hpp"

namespace fedverify::theory {

BranchedMoments::BranchedMoments(std::vector<AffineBranch> branches, const Vector& e0,
                                 Compile compile)
    : branches_(std::move(branches)), mean_(e0), second_(e0 * e0.transpose()) {
  double total = 0;
  for (const AffineBranch& b : branches_) {
    if (!(b.probability >= 0)) throw std::invalid_argument("branch probability < 0");
    if (b.map.rows() != e0.size() || b.map.cols() != e0.size() || b.offset.size() != e0.size()) {
      throw std::invalid_argument("branch size differs from the state's");
    }
    total += b.probability;
  }
  if (branches_.empty() || std::abs(total - 1) > 1e-12) {
    throw std::invalid_argument("branch probabilities do not sum to 1");
  }
  const double s = static_cast<double>(e0.size());
  const double direct = static_cast<double>(branches_.size()) * 4 * s * s * s;
  const double product = (s + s * s) * (s + s * s);
  if (compile == Compile::always || (compile == Compile::when_cheaper && direct > product)) {
    // Column j of A: the branch sum at the j-th unit vector of z = (m, vec S), minus c.
    const Eigen::Index n = e0.size();
    const Eigen::Index len = n + n * n;
    const auto flat = [&](const std::pair<Vector, Matrix>& z) {
      Vector v(len);
      v.head(n) = z.first;
      v.tail(n * n) = Eigen::Map<const Vector>(z.second.data(), n * n);
      return v;
    };
    affine_offset_ = flat(branch_sum(Vector::Zero(n), Matrix::Zero(n, n)));
    affine_.resize(len, len);
    for (Eigen::Index j = 0; j < len; ++j) {
      Vector m = Vector::Zero(n);
      Matrix sm = Matrix::Zero(n, n);
      if (j < n) {
        m(j) = 1;
      } else {
        sm((j - n) % n, (j - n) / n) = 1;  // column-major vec
      }
      affine_.col(j) = flat(branch_sum(m, sm)) - affine_offset_;
    }
  }
}

std::pair<Vector, Matrix> BranchedMoments::branch_sum(const Vector& m, const Matrix& s) const {
  Vector mean = Vector::Zero(m.size());  // THEORY (P6)
  Matrix second = Matrix::Zero(s.rows(), s.cols());
  for (const AffineBranch& b : branches_) {
    const Vector mapped = b.map * m;
    mean.noalias() += b.probability * (mapped + b.offset);
    const Matrix left = b.map * s;
    second.noalias() += b.probability * (left * b.map.transpose());
    const Matrix cross = mapped * b.offset.transpose();
    second += b.probability * (cross + cross.transpose() + b.offset * b.offset.transpose());
  }
  return {std::move(mean), std::move(second)};
}

void BranchedMoments::step() {
  if (affine_.size() == 0) {
    auto [mean, second] = branch_sum(mean_, second_);
    mean_ = std::move(mean);
    second_ = std::move(second);
  } else {
    const Eigen::Index n = mean_.size();
    Vector z(n + n * n);
    z.head(n) = mean_;
    z.tail(n * n) = Eigen::Map<const Vector>(second_.data(), n * n);
    const Vector next = affine_ * z + affine_offset_;
    mean_ = next.head(n);
    second_ = Eigen::Map<const Matrix>(next.tail(n * n).data(), n, n);
  }
  ++iteration_;
}

double BranchedMoments::mean_square(Eigen::Index begin, Eigen::Index size) const {
  return second_.diagonal().segment(begin, size).sum();
}

std::vector<std::vector<int>> subsets_of_size(int n, int k) {
  std::vector<std::vector<int>> out;
  std::vector<int> current;
  std::function<void(int)> grow = [&](int from) {
    if (static_cast<int>(current.size()) == k) {
      out.push_back(current);
      return;
    }
    for (int i = from; i < n; ++i) {
      current.push_back(i);
      grow(i + 1);
      current.pop_back();
    }
  };
  grow(0);
  return out;
}

double second_moment_radius(const std::vector<AffineBranch>& branches) {
  const Eigen::Index n = branches.front().map.rows();
  return arnoldi_radius(
      [&](const Vector& v) {
        const Eigen::Map<const Matrix> s(v.data(), n, n);
        Matrix out = Matrix::Zero(n, n);
        for (const AffineBranch& b : branches) {
          out.noalias() += b.probability * (b.map * s * b.map.transpose());
        }
        return Vector(Eigen::Map<const Vector>(out.data(), n * n));
      },
      n * n);
}

}  // namespace fedverify::theory
