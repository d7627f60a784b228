#include "estimators/samplers/kernels/linearised_twin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "estimators/samplers/kernels/logistic_kernel.hpp"
#include "estimators/samplers/lanes.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::estimators {

namespace {

using simd::Pack;

// The refusal of a client rule the twin does not run (its mean would not be exact anyway).
[[noreturn]] void refuse_client_rule() {
  throw InputError(
      "--control-variate: linearised runs client sgd (without momentum) and fedprox only; this "
      "client optimiser has no exact mean of the twin");
}

// The quadratic twin: the problem is its own per-sample linearisation, so y is x (THEORY (L3)).
class QuadraticTwin final : public LocalSampler {
 public:
  QuadraticTwin(std::unique_ptr<LocalSampler> plain, int dim)
      : plain_(std::move(plain)), size_(static_cast<std::size_t>(dim) * kLanes) {}

  void local_steps(int client, BatchAddress address, int active, double gamma, int steps, double* y,
                   const double* correction, KernelWorkspace& ws) const override {
    plain_->local_steps(client, address, active, gamma, steps, y, correction, ws);
    twin_is_chain(y);
  }
  void local_steps_pair(int client, BatchAddress address, int active, double gamma, int steps,
                        double* y, const double* correction, double* y_next,
                        const double* correction_next, KernelWorkspace& ws) const override {
    plain_->local_steps_pair(client, address, active, gamma, steps, y, correction, y_next,
                             correction_next, ws);
    twin_is_chain(y);
    twin_is_chain(y_next);
  }
  void proximal_local_steps(int client, BatchAddress address, int active, double gamma, int steps,
                            double mu, const double* anchor, double* y,
                            KernelWorkspace& ws) const override {
    plain_->proximal_local_steps(client, address, active, gamma, steps, mu, anchor, y, ws);
    twin_is_chain(y);
  }
  void optimiser_local_steps(int /*client*/, BatchAddress /*address*/, int /*active*/,
                             int /*steps*/, double* /*y*/, const LocalStep& /*step*/,
                             KernelWorkspace& /*ws*/) const override {
    refuse_client_rule();
  }

 private:
  void twin_is_chain(double* y) const { std::copy(y, y + size_, y + size_); }

  std::unique_ptr<LocalSampler> plain_;
  std::size_t size_;  // d·kLanes
};

// What the twin's H steps on one block read (one client).
struct TwinBlock {
  const double* table;           // ã_j, row-major n_c × d, padded (the logistic kernel's layout)
  const double* alpha;           // α_j at offset j·d
  const double* curvature;       // h_j at offset j·d
  const std::uint32_t* offsets;  // (h·B + b)·kLanes + l: the row offset j·d of that draw
  int dim, steps, batch;
  double gamma;
  double rho;  // 1 − γλ, or 1 − γλ − γμ (FedProx)
};

// The twin's H steps on y (d packs) in place:
//   y ← ρ y + Σ_b c_b ã_b + shift,  c_b = (γ/B)(α_b − h_b ã_bᵀy),                THEORY (L3)
// shift = −γξ (Scaffold), γμ·anchor (FedProx) or none (nullptr).
void twin_steps(const TwinBlock& t, Pack* y, Pack* a, Pack* acc, const Pack* shift) {
  const Pack rho = simd::broadcast(t.rho);
  const double scale = t.gamma / t.batch;  // γ/B
  const std::uint32_t* offset = t.offsets;
  for (int h = 0; h < t.steps; ++h) {
    for (int b = 0; b < t.batch; ++b, offset += kLanes) {
      simd::detail::fetch_rows(t.dim, t.table, offset, a);
      const Pack s = simd::detail::dot(t.dim, a, y);
      alignas(64) std::array<double, kLanes> alpha{}, curvature{};
      for (int l = 0; l < kLanes; ++l) {
        alpha[l] = scale * t.alpha[offset[l]];
        curvature[l] = -scale * t.curvature[offset[l]];
      }
      const Pack c = simd::fma(simd::load(curvature.data()), s, simd::load(alpha.data()));
      for (int k = 0; k < t.dim; ++k) {
        const Pack start = b > 0 ? acc[k] : shift != nullptr ? shift[k] : simd::broadcast(0.0);
        acc[k] = simd::fma(c, a[k], start);
      }
    }
    for (int k = 0; k < t.dim; ++k) y[k] = simd::fma(rho, y[k], acc[k]);
  }
}

// The logistic twin (header comment).
class LogisticTwin final : public LocalSampler {
 public:
  explicit LogisticTwin(const theory::LogisticProblem& p)
      : plain_(make_local_sampler(p)), d_(p.dim()), l2_(p.l2()), batch_(p.batch_size()) {
    const Vector x_star = theory::minimizer(p);
    for (int c = 0; c < p.num_clients(); ++c) {
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      const RowMajor f = p.client(c).labels.asDiagonal() * p.client(c).features;  // ã_j
      std::vector<double> table(f.data(), f.data() + f.size());
      table.resize(table.size() + simd::kRowPadding, 0.0);
      std::vector<double> alpha(f.size(), 0.0), curvature(f.size(), 0.0);
      for (Eigen::Index j = 0; j < f.rows(); ++j) {
        const double t = f.row(j).dot(x_star);     // t_j = ã_jᵀx*
        const double w = -theory::logistic_d1(t);  // 1/(1 + e^{t_j})           THEORY (§6)
        const double h = theory::logistic_d2(t);   // p(1 − p)
        alpha[j * d_] = w + h * t;
        curvature[j * d_] = h;
      }
      tables_.push_back(std::move(table));
      alpha_.push_back(std::move(alpha));
      curvature_.push_back(std::move(curvature));
    }
  }

  void local_steps(int client, BatchAddress address, int active, double gamma, int steps, double* y,
                   const double* correction, KernelWorkspace& ws) const override {
    plain_->local_steps(client, address, active, gamma, steps, y, correction, ws);
    twin(client, gamma, steps, 1.0 - gamma * l2_, ws.indices, y, correction, -gamma);
  }

  void local_steps_pair(int client, BatchAddress address, int active, double gamma, int steps,
                        double* y, const double* correction, double* y_next,
                        const double* correction_next, KernelWorkspace& ws) const override {
    plain_->local_steps_pair(client, address, active, gamma, steps, y, correction, y_next,
                             correction_next, ws);
    const double rho = 1.0 - gamma * l2_;
    twin(client, gamma, steps, rho, ws.indices, y, correction, -gamma);
    twin(client + 1, gamma, steps, rho, ws.indices_pair, y_next, correction_next, -gamma);
  }

  // y ← y − γ(g_lin(y) + μ(y − anchor)) = (1 − γλ − γμ)y + γμ·anchor + … on the twin rows.
  void proximal_local_steps(int client, BatchAddress address, int active, double gamma, int steps,
                            double mu, const double* anchor, double* y,
                            KernelWorkspace& ws) const override {
    plain_->proximal_local_steps(client, address, active, gamma, steps, mu, anchor, y, ws);
    twin(client, gamma, steps, 1.0 - gamma * l2_ - gamma * mu, ws.indices, y, anchor, gamma * mu);
  }

  void optimiser_local_steps(int /*client*/, BatchAddress /*address*/, int /*active*/,
                             int /*steps*/, double* /*y*/, const LocalStep& /*step*/,
                             KernelWorkspace& /*ws*/) const override {
    refuse_client_rule();
  }

 private:
  // The twin rows (y + d·kLanes) of one client's H steps, from the row offsets the plain kernel
  // drew for the x rows (`offsets`); shift = factor · (rows d… of `term`) when term is given.
  void twin(int client, double gamma, int steps, double rho,
            const std::vector<std::uint32_t>& offsets, double* y, const double* term,
            double factor) const {
    const std::size_t half = static_cast<std::size_t>(d_) * kLanes;
    if (offsets.size() < static_cast<std::size_t>(steps) * batch_ * kLanes) {
      throw std::logic_error("linearised twin: the logistic kernel left no minibatch offsets");
    }
    const TwinBlock t{tables_[client].data(),
                      alpha_[client].data(),
                      curvature_[client].data(),
                      offsets.data(),
                      d_,
                      steps,
                      batch_,
                      gamma,
                      rho};
    // Four arrays of d packs: on the stack up to d = kStackDim, else in a buffer of the thread
    // that only grows (no allocation per client and round at any d).
    constexpr int kStackDim = 16;
    std::array<Pack, 4 * kStackDim> stack;
    thread_local std::vector<Pack> heap;
    if (d_ > kStackDim && heap.size() < 4 * static_cast<std::size_t>(d_)) {
      heap.resize(4 * static_cast<std::size_t>(d_));
    }
    Pack* state = d_ > kStackDim ? heap.data() : stack.data();
    Pack* rows = state + d_;
    Pack* acc = rows + d_;
    Pack* shift = acc + d_;
    double* twin_rows = y + half;
    for (int k = 0; k < d_; ++k) state[k] = simd::load(twin_rows + k * kLanes);
    if (term != nullptr) {
      for (int k = 0; k < d_; ++k) {
        shift[k] = simd::broadcast(factor) * simd::load(term + half + k * kLanes);
      }
    }
    twin_steps(t, state, rows, acc, term != nullptr ? shift : nullptr);
    for (int k = 0; k < d_; ++k) simd::store(twin_rows + k * kLanes, state[k]);
  }

  std::unique_ptr<LocalSampler> plain_;
  int d_;
  double l2_;
  int batch_;
  std::vector<std::vector<double>> tables_;     // ã_j, as the logistic kernel's table
  std::vector<std::vector<double>> alpha_;      // α_j = w_j + h_j t_j at offset j·d
  std::vector<std::vector<double>> curvature_;  // h_j at offset j·d
};

}  // namespace

std::unique_ptr<LocalSampler> make_linearised_twin_sampler(const theory::Problem& problem) {
  switch (problem.kind()) {
    case theory::ProblemKind::quadratic:
      return std::make_unique<QuadraticTwin>(make_local_sampler(problem), problem.dim());
    case theory::ProblemKind::logistic:
      return std::make_unique<LogisticTwin>(dynamic_cast<const theory::LogisticProblem&>(problem));
    case theory::ProblemKind::linear_sa:  // linear already: a twin would be the chain itself
    case theory::ProblemKind::least_squares:
      break;
  }
  throw InputError(fmt::format("--control-variate: no linearised twin for {} problems",
                               theory::to_string(problem.kind())));
}

}  // namespace fedverify::estimators
