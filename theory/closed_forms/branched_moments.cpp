#include "theory/closed_forms/branched_moments.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

#include "theory/base/arnoldi.hpp"

namespace fedverify::theory {

BranchedMoments::BranchedMoments(std::vector<AffineBranch> branches, const Vector& e0)
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
}

void BranchedMoments::step() {  // THEORY (P6)
  Vector mean = Vector::Zero(mean_.size());
  Matrix second = Matrix::Zero(second_.rows(), second_.cols());
  for (const AffineBranch& b : branches_) {
    const Vector mapped = b.map * mean_;
    mean.noalias() += b.probability * (mapped + b.offset);
    const Matrix left = b.map * second_;
    second.noalias() += b.probability * (left * b.map.transpose());
    const Matrix cross = mapped * b.offset.transpose();
    second += b.probability * (cross + cross.transpose() + b.offset * b.offset.transpose());
  }
  mean_ = std::move(mean);
  second_ = std::move(second);
  ++iteration_;
}

double BranchedMoments::mean_square(Eigen::Index begin, Eigen::Index size) const {
  return second_.diagonal().segment(begin, size).sum();
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
