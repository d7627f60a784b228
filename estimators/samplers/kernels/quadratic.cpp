#include "estimators/samplers/kernels/quadratic.hpp"

#include <vector>

#include "estimators/samplers/lanes.hpp"

namespace fedverify::estimators {

namespace {

// acc(r, ·) = −(A b)_{i0+r} + Σ_k A_{i0+r,k} y_k + Σ_k R_{i0+r,k} z_k for ROWS rows at once:
// ROWS independent accumulators hide the FMA latency and each loaded y_k / z_k is used ROWS
// times. The order of the sums is the same for every ROWS, so the split does not change results.
template <int ROWS>
void quadratic_rows(int d, int i0, const double* a, const double* r, const double* ab,
                    const double* y, const double* z, double* g) {
  LaneVector acc[ROWS];
  for (int q = 0; q < ROWS; ++q) acc[q].setConstant(-ab[i0 + q]);
  for (int k = 0; k < d; ++k) {
    const Eigen::Map<const LaneVector> yk(y + k * kLanes);
    for (int q = 0; q < ROWS; ++q) acc[q] += a[(i0 + q) * d + k] * yk;
  }
  if (z != nullptr) {
    for (int k = 0; k < d; ++k) {
      const Eigen::Map<const LaneVector> zk(z + k * kLanes);
      for (int q = 0; q < ROWS; ++q) acc[q] += r[(i0 + q) * d + k] * zk;
    }
  }
  for (int q = 0; q < ROWS; ++q) Eigen::Map<LaneVector>(g + (i0 + q) * kLanes) = acc[q];
}

// y ← y − γ(g + ξ).
void take_step(int d, double gamma, const double* g, const double* correction, double* y) {
  const int n = d * kLanes;
  if (correction != nullptr) {
    for (int j = 0; j < n; ++j) y[j] -= gamma * (g[j] + correction[j]);
  } else {
    for (int j = 0; j < n; ++j) y[j] -= gamma * g[j];
  }
}

// y ← y − γ(g + μ(y − anchor)): FedProx's local step.                           THEORY (O3)
void take_proximal_step(int d, double gamma, const double* g, double mu, const double* anchor,
                        double* y) {
  const int n = d * kLanes;
  for (int j = 0; j < n; ++j) y[j] -= gamma * (g[j] + mu * (y[j] - anchor[j]));
}

// Internal linkage (the class is used through LocalSampler only), as for the logistic kernel.
class QuadraticSampler final : public LocalSampler {
 public:
  explicit QuadraticSampler(const theory::QuadraticProblem& p) : d_(p.dim()) {
    for (int c = 0; c < p.num_clients(); ++c) {
      const auto& cl = p.client(c);
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      const RowMajor a = cl.hessian;
      const RowMajor r = p.noise_factor(c);
      a_.emplace_back(a.data(), a.data() + a.size());
      r_.emplace_back(r.data(), r.data() + r.size());
      const Vector ab = cl.hessian * cl.optimum;
      ab_.emplace_back(ab.data(), ab.data() + ab.size());
      noisy_.push_back(r.cwiseAbs().maxCoeff() > 0.0);
    }
  }

  void local_steps(int client, BatchAddress address, int active, double gamma, int steps, double* y,
                   const double* correction, KernelWorkspace& ws) const override {
    run(client, address, active, steps, y, ws,
        [&](const double* g) { take_step(d_, gamma, g, correction, y); });
  }

  void proximal_local_steps(int client, BatchAddress address, int active, double gamma, int steps,
                            double mu, const double* anchor, double* y,
                            KernelWorkspace& ws) const override {
    run(client, address, active, steps, y, ws,
        [&](const double* g) { take_proximal_step(d_, gamma, g, mu, anchor, y); });
  }

  void optimiser_local_steps(int client, BatchAddress address, int active, int steps, double* y,
                             const LocalStep& step, KernelWorkspace& ws) const override {
    int h = 0;
    run(client, address, active, steps, y, ws, [&](const double* g) { step(h++, g, y); });
  }

 private:
  // H local steps: the noise of the round, then per step the stochastic gradient g and `step(g)`.
  template <class Step>
  void run(int client, BatchAddress address, int active, int steps, double* y, KernelWorkspace& ws,
           Step&& step) const {
    const int d = d_;
    const double* a = a_[client].data();
    const double* r = r_[client].data();
    const double* ab = ab_[client].data();
    // Noise of the whole round: chain's normals (step h, coordinate i) at position h·d + i.
    double* z = nullptr;
    if (noisy_[client]) {
      grow(ws.noise, static_cast<std::size_t>(steps) * d * kLanes);
      grow(ws.draws, static_cast<std::size_t>(steps) * d);
      z = ws.noise.data();
      const std::uint32_t first = address.chain;
      for (int lane = 0; lane < kLanes; ++lane) {
        if (lane < active) {
          address.chain = first + static_cast<std::uint32_t>(lane);
          normals_into(address, ws.draws.data(), steps * d);
          for (int j = 0; j < steps * d; ++j) z[j * kLanes + lane] = ws.draws[j];
        } else {
          for (int j = 0; j < steps * d; ++j) z[j * kLanes + lane] = 0.0;
        }
      }
    }
    grow(ws.gradient, static_cast<std::size_t>(d) * kLanes);
    double* g = ws.gradient.data();
    for (int h = 0; h < steps; ++h) {
      const double* zh = z == nullptr ? nullptr : z + static_cast<std::size_t>(h) * d * kLanes;
      // Stochastic gradient A_c(y − b_c) + R_c z.                            THEORY (F0), (F5)
      int i0 = 0;
      for (; i0 + 8 <= d; i0 += 8) quadratic_rows<8>(d, i0, a, r, ab, y, zh, g);
      if (i0 + 4 <= d) quadratic_rows<4>(d, i0, a, r, ab, y, zh, g), i0 += 4;
      if (i0 + 2 <= d) quadratic_rows<2>(d, i0, a, r, ab, y, zh, g), i0 += 2;
      if (i0 + 1 <= d) quadratic_rows<1>(d, i0, a, r, ab, y, zh, g), i0 += 1;
      step(static_cast<const double*>(g));
    }
  }

  int d_;
  std::vector<std::vector<double>> a_, r_, ab_;  // A_c and R_c row-major, A_c b_c
  std::vector<bool> noisy_;                      // R_c ≠ 0
};

}  // namespace

std::unique_ptr<LocalSampler> make_quadratic_sampler(const theory::QuadraticProblem& problem) {
  return std::make_unique<QuadraticSampler>(problem);
}

}  // namespace fedverify::estimators
