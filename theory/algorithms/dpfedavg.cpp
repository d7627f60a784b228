#include "theory/algorithms/dpfedavg.hpp"

#include <memory>

#include "theory/algorithms/algorithm_theory.hpp"
#include "theory/algorithms/fedavg.hpp"
#include "theory/algorithms/linear_sa.hpp"
#include "theory/base/input_error.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/dpfedavg_setting.hpp"

namespace fedverify::theory {

namespace {

void require_unclipped(const RunSetting& s) {
  if (clip_norm(s)) {
    throw InputError(
        "--clip: clipping makes DP-FedAvg's round nonlinear, so it has no exact law (THEORY "
        "(A5)); without --clip the law is exact, and simulate measures the clipped chain");
  }
}

// 𝒜I: solves 𝐇X + X𝐇ᵀ = I (THEORY (N1); the linear-sa form of (L2) when 𝐇 is not symmetric).
Matrix lyapunov_of_identity(const Matrix& h) {
  const Matrix identity = Matrix::Identity(h.rows(), h.cols());
  if ((h - h.transpose()).norm() == 0.0) return lyapunov_operator(h, identity);
  return symmetric_part(discrete_lyapunov_solve(h, 0.0, identity));
}

}  // namespace

RunSetting without_dp_parameters(const RunSetting& s) {
  RunSetting plain = s;
  plain.parameters.clear();
  return plain;
}

FirstOrderMoments dpfedavg_first_order(const ExpansionCoefficients& k, const RunSetting& s) {
  validate(Algorithm{"dpfedavg"}, s);
  FirstOrderMoments m = fedavg_first_order(k, without_dp_parameters(s));  // FedAvg's, (A1)
  const double sigma = dp_noise(s);
  // THEORY (A5): γH(𝐇ΔΣ + ΔΣ𝐇ᵀ) = σ_dp² I at first order in γ.
  m.cov += (sigma * sigma / (s.gamma * s.local_steps)) *
           lyapunov_of_identity(k.constants.hessian_at_optimum);
  return m;
}

ExactMoments dpfedavg_exact(const QuadraticProblem& q, const RunSetting& s) {
  require_unclipped(s);
  AffineRoundMap map = fedavg_round_map(q, s);
  const double sigma = dp_noise(s);
  map.g += (sigma * sigma / s.gamma) * Matrix::Identity(q.dim(), q.dim());  // Q + σ_dp² I
  return symmetric_map_moments(map, s, "dpfedavg");                         // THEORY (F5), (A5)
}

namespace {

class DpfedavgTheory final : public AlgorithmTheory {
 public:
  FirstOrderMoments first_order(const ExpansionCoefficients& k,
                                const RunSetting& s) const override {
    return dpfedavg_first_order(k, s);
  }
  ExactMoments exact(const QuadraticProblem& q, const RunSetting& s) const override {
    return dpfedavg_exact(q, s);
  }
  std::optional<ExactMoments> exact_linear_sa(const LinearSaProblem& p,
                                              const RunSetting& s) const override {
    require_unclipped(s);
    const double sigma = dp_noise(s);
    return fedavg_exact_lsa(p, s, sigma * sigma);  // THEORY (L1), (A5)
  }
};

// Help-text position: after FedAvg and FedNova, of which it is the private variant.
constexpr int kDpfedavgOrder = 27;

[[maybe_unused]] const bool registered = register_algorithm(
    {.algorithm = Algorithm{"dpfedavg"},
     .order = kDpfedavgOrder,
     .summary = "DP-FedAvg: FedAvg with clipped client updates and server Gaussian noise "
                "(THEORY A5)",
     .theory_labels = {"A5", "A1"},
     .family = AlgorithmFamily::chain,
     .options = {AlgorithmOption::local_steps, AlgorithmOption::burn_in,
                 AlgorithmOption::batch_rounds},
     .parameters = {dp_noise_parameter(), clip_parameter()},
     .weighted_clients = true},
    std::make_unique<DpfedavgTheory>());

}  // namespace
}  // namespace fedverify::theory
