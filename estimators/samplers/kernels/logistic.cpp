#include "estimators/samplers/kernels/logistic.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "estimators/samplers/kernels/local_steps.hpp"
#include "estimators/samplers/kernels/logistic_kernel.hpp"
#include "estimators/samplers/lanes.hpp"

namespace fedverify::estimators {

namespace {

using kernels::ProximalStep;

// Internal linkage (the class is used through LocalSampler only), which lets the compiler inline
// block() and the index draws into the local-step calls.
class LogisticSampler final : public LocalSampler {
 public:
  static_assert(simd::kPackLanes == kLanes, "the kernel works on blocks of kLanes chains");

  explicit LogisticSampler(const theory::LogisticProblem& p)
      : d_(p.dim()), l2_(p.l2()), batch_(p.batch_size()) {
    for (int c = 0; c < p.num_clients(); ++c) {
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      // Signed rows ã_j = y_j a_j (y_j = ±1, so the products are exact): the gradient term
      // φ'(y aᵀx) y a = −ã / (1 + e^{ãᵀx}) then needs no label.                THEORY (§6)
      const RowMajor f = p.client(c).labels.asDiagonal() * p.client(c).features;
      std::vector<double> table(f.data(), f.data() + f.size());
      table.resize(table.size() + simd::kRowPadding, 0.0);  // the kernel's row loads read past
      features_.push_back(std::move(table));
      samples_.push_back(static_cast<int>(f.rows()));
    }
  }

  void local_steps(int client, BatchAddress address, int /*active*/, double gamma, int steps,
                   double* y, const double* correction, KernelWorkspace& ws) const override {
    simd::logistic_local_steps(block(client, address, gamma, steps, ws.indices), y, correction);
  }

  void local_steps_pair(int client, BatchAddress address, int /*active*/, double gamma, int steps,
                        double* y, const double* correction, double* y_next,
                        const double* correction_next, KernelWorkspace& ws) const override {
    const simd::LogisticBlock first = block(client, address, gamma, steps, ws.indices);
    address.client += 1;
    const simd::LogisticBlock second = block(client + 1, address, gamma, steps, ws.indices_pair);
    simd::logistic_local_steps_pair(first, y, correction, second, y_next, correction_next);
  }

  // FedProx's local steps (THEORY O3) on the gradients of optimiser_local_steps:
  //   y ← y − γ(g + μ(y − anchor)).
  void proximal_local_steps(int client, BatchAddress address, int active, double gamma, int steps,
                            double mu, const double* anchor, double* y,
                            KernelWorkspace& ws) const override {
    const std::size_t n = static_cast<std::size_t>(d_) * kLanes;
    const ProximalStep step(gamma, mu, anchor, n);
    optimiser_local_steps(client, address, active, steps, y, step, ws);
  }

  // The gradient of step h in plain loops (no fused kernel: the optimiser's step is not the SGD
  // step the kernel fuses), from the same minibatch indices as local_steps:
  //   g = λy − (1/B) Σ_b ã_{j_b} / (1 + e^{ã_{j_b}ᵀ y}).                           THEORY (§6)
  void optimiser_local_steps(int client, BatchAddress address, int /*active*/, int steps, double* y,
                             const LocalStep& step, KernelWorkspace& ws) const override {
    const simd::LogisticBlock b = block(client, address, 0.0, steps, ws.indices);
    grow(ws.gradient, static_cast<std::size_t>(d_) * kLanes);
    double* g = ws.gradient.data();
    const double* table = features_[client].data();
    for (int h = 0; h < steps; ++h) {
      for (int j = 0; j < d_ * kLanes; ++j) g[j] = l2_ * y[j];
      for (int draw = 0; draw < batch_; ++draw) {
        for (int lane = 0; lane < kLanes; ++lane) {
          const double* row =
              table + b.offsets[(static_cast<std::size_t>(h) * batch_ + draw) * kLanes + lane];
          double s = 0.0;
          for (int i = 0; i < d_; ++i) s += row[i] * y[i * kLanes + lane];
          const double weight = 1.0 / (batch_ * (1.0 + std::exp(s)));
          for (int i = 0; i < d_; ++i) g[i * kLanes + lane] -= weight * row[i];
        }
      }
      step(h, g, y);
    }
  }

 private:
  // The kernel's view of one client's round on one block. Minibatch indices of the whole round,
  // lane-interleaved: chain first + l's index (step h, draw b) at (h·B + b)·kLanes + l, from that
  // chain's own stream (idle lanes draw from the streams of the chains past the end; their
  // results are discarded), stored as row offsets j·d in `offsets`.
  simd::LogisticBlock block(int client, const BatchAddress& address, double gamma, int steps,
                            std::vector<std::uint32_t>& offsets) const {
    const int per_chain = steps * batch_;
    offsets.resize(static_cast<std::size_t>(per_chain) * kLanes);
    indices_across_chains<kLanes>(address, static_cast<std::uint32_t>(samples_[client]),
                                  offsets.data(), per_chain);
    for (auto& o : offsets) o *= static_cast<std::uint32_t>(d_);
    simd::LogisticBlock b;
    b.table = features_[client].data();
    b.offsets = offsets.data();
    b.dim = d_;
    b.steps = steps;
    b.batch = batch_;
    b.gamma = gamma;
    b.l2 = l2_;
    return b;
  }

  int d_;
  double l2_;
  int batch_;
  std::vector<std::vector<double>> features_;  // signed rows ã_j, row-major n_c × d, padded
  std::vector<int> samples_;                   // n_c
};

}  // namespace

std::unique_ptr<LocalSampler> make_logistic_sampler(const theory::LogisticProblem& problem) {
  return std::make_unique<LogisticSampler>(problem);
}

}  // namespace fedverify::estimators
