// Gaussian AR(1) ensembles: chains whose stationary law and autocorrelation are known in closed
// form, the reference process of the tests of estimators/statistics (tests only).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "estimators/statistics/moments.hpp"
#include "theory/base/linalg.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::verify {

// Gaussian AR(1) ensemble in ℝ^d with a common coefficient ρ:
//   x_{t+1} = m + ρ (x_t − m) + √(1 − ρ²) L ε_t,   ε_t ~ N(0, I),   L Lᵀ = Σ.
// Stationary law N(m, Σ); every coordinate has autocorrelation ρ^k at lag k.
struct Ar1 {
  Vector mean;
  Matrix cov;
  double rho;
};

// n·Var(x̄_n)/σ² for a stationary AR(1) chain of length n:
//   g(n) = (1+ρ)/(1−ρ) − 2ρ(1−ρⁿ)/(n(1−ρ)²)   → (1+ρ)/(1−ρ) = 2τ − 1 as n → ∞.
inline double ar1_g(double rho, double n) {
  return (1 + rho) / (1 - rho) - 2 * rho * (1 - std::pow(rho, n)) / (n * (1 - rho) * (1 - rho));
}

class Ar1Ensemble {
 public:
  // Starts each chain at m + offset_k + L z (stationary start when offsets are 0).
  Ar1Ensemble(const Ar1& model, int chains, std::uint64_t seed, const Matrix& offsets)
      : model_(model), chol_(model.cov.llt().matrixL()), state_(model.mean.size(), chains) {
    for (int k = 0; k < chains; ++k) {
      noise_.emplace_back(seed, estimators::Purpose::test, k);
      estimators::Stream init(seed, estimators::Purpose::initial_state, k);
      state_.col(k) = model.mean + offsets.col(k) + chol_ * draw(init);
    }
  }
  Ar1Ensemble(const Ar1& model, int chains, std::uint64_t seed)
      : Ar1Ensemble(model, chains, seed, Matrix::Zero(model.mean.size(), chains)) {}

  const Matrix& state() const { return state_; }

  void advance() {
    const double innovation = std::sqrt(1 - model_.rho * model_.rho);
    for (int k = 0; k < state_.cols(); ++k) {
      state_.col(k) = model_.mean + model_.rho * (state_.col(k) - model_.mean) +
                      innovation * (chol_ * draw(noise_[k]));
    }
  }

 private:
  Vector draw(estimators::Stream& s) const {
    Vector z(state_.rows());
    for (Eigen::Index i = 0; i < z.size(); ++i) z(i) = s.normal();
    return z;
  }
  Ar1 model_;
  Matrix chol_;
  Matrix state_;
  std::vector<estimators::Stream> noise_;
};

// Feeds `rounds` rounds (the current state first) into an accumulator; optionally records them.
inline estimators::MomentEstimate run_ar1(const Ar1& model, int chains, int rounds,
                                          std::uint64_t seed, int batch_rounds = 0,
                                          std::vector<Matrix>* trace = nullptr,
                                          double offset = 0.0) {
  Ar1Ensemble ensemble(model, chains, seed);
  estimators::StationaryMomentsAccumulator acc(static_cast<int>(model.mean.size()), chains, rounds,
                                               batch_rounds);
  for (int t = 0; t < rounds; ++t) {
    acc.add(ensemble.state().array() + offset);
    if (trace) trace->push_back(ensemble.state());
    ensemble.advance();
  }
  return acc.result();
}

// The d = 3 model of the tests: mean (1, −2, 0.5), a correlated Σ with unequal variances.
inline Ar1 three_dim_model(double rho) {
  Ar1 model;
  model.mean = Vector{{1.0, -2.0, 0.5}};
  model.cov = Matrix{{1.0, 0.5, 0.2}, {0.5, 2.0, -0.3}, {0.2, -0.3, 0.5}};
  model.rho = rho;
  return model;
}

}  // namespace fedverify::verify
