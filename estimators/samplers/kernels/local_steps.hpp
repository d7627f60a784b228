// Local steps shared by the problem-kind kernels that apply a step rule to a whole block of
// d·kLanes entries after drawing its stochastic gradient (kernels/logistic.cpp,
// kernels/linear_sa.cpp): one definition, so the kernels take the same step in the same order.
#pragma once

#include <cstddef>

#include "estimators/samplers/kernels/local_sampler.hpp"

namespace fedverify::estimators::kernels {

// y ← y − γ(g + μ(y − anchor)) on a block of n = d·kLanes entries.               THEORY (O3)
class ProximalStep final : public LocalStep {
 public:
  ProximalStep(double gamma, double mu, const double* anchor, std::size_t n)
      : gamma_(gamma), mu_(mu), anchor_(anchor), n_(n) {}
  void operator()(int /*step*/, const double* g, double* y) const override {
    for (std::size_t j = 0; j < n_; ++j) y[j] -= gamma_ * (g[j] + mu_ * (y[j] - anchor_[j]));
  }

 private:
  double gamma_, mu_;
  const double* anchor_;
  std::size_t n_;
};

// y ← y − γ(s·δ + ξ) on a block of n = d·kLanes entries, δ = g(y; ζ) − g(anchor; ζ) the
// control-variate difference the kernel formed on one draw.                THEORY-Mime (MI0)
class ControlVariateStep final : public LocalStep {
 public:
  ControlVariateStep(double gamma, double scale, const double* correction, std::size_t n)
      : gamma_(gamma), scale_(scale), correction_(correction), n_(n) {}
  void operator()(int /*step*/, const double* delta, double* y) const override {
    for (std::size_t j = 0; j < n_; ++j) y[j] -= gamma_ * (scale_ * delta[j] + correction_[j]);
  }

 private:
  double gamma_, scale_;
  const double* correction_;
  std::size_t n_;
};

}  // namespace fedverify::estimators::kernels
