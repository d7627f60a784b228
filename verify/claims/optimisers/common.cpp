#include "verify/claims/optimisers/common.hpp"

#include <fmt/format.h>

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>

#include "estimators/statistics/regression.hpp"
#include "theory/algorithms/fedopt.hpp"
#include "theory/closed_forms/lyapunov.hpp"
#include "theory/problems/optimiser.hpp"
#include "verify/claims/kit/kit.hpp"
#include "verify/claims/quadratic/common.hpp"

namespace fedverify::claims::optimisers {

theory::RunSetting fedopt_setting(double gamma, int local_steps, const std::string& server,
                                  const std::string& client, int participating) {
  theory::RunSetting s{gamma, local_steps};
  s.server = theory::parse_optimiser(server, theory::OptimiserRole::server);
  s.client = theory::parse_optimiser(client, theory::OptimiserRole::client);
  s.participating = participating;
  return s;
}

std::string server_sgd_option(double lr, double momentum, bool nesterov) {
  return fmt::format("sgd:lr={:.17g},momentum={:.17g},nesterov={}", lr, momentum, nesterov ? 1 : 0);
}

double server_round_radius(const theory::QuadraticProblem& q, const theory::RunSetting& s) {
  return theory::spectral_radius(theory::fedopt_round_map(q, s).transition());
}

double second_moment_remainder(const theory::ExactMoments& exact,
                               const theory::FirstOrderMoments& first, const Vector& x_star) {
  const Vector bias = exact.mean - x_star;
  return (exact.cov + bias * bias.transpose() - first.cov).norm();
}

Row remainder_order_row(const std::string& setting, const std::vector<double>& gamma,
                        const std::vector<double>& remainder, bool expect_order_one) {
  Row row;
  row.setting = setting;
  const auto fit = estimators::fit_log_log_slope(gamma, remainder, quadratic::kSlopeAlpha);
  row.predicted = expect_order_one ? fmt::format("order 1 (< {} required)", kRequiredOrder)
                                   : fmt::format("order 2 (> {} required)", kRequiredOrder);
  row.measured = fmt::format("{:.3f} [{:.3f}, {:.3f}]", fit.slope, fit.lower, fit.upper);
  row.passed = expect_order_one ? fit.upper < kRequiredOrder : fit.lower > kRequiredOrder;
  row.data = {{"gamma", gamma},           {"remainder", remainder},   {"slope", fit.slope},
              {"slope_lower", fit.lower}, {"slope_upper", fit.upper}, {"value", fit.slope}};
  // Baseline comparison: the slope may move within its interval.
  const double tolerance = std::max(0.5 * (fit.upper - fit.lower), 1e-3);
  row.data["tolerance"] = tolerance;
  kit::gate(row, "slope", fit.slope, tolerance);
  return row;
}

Row fedavg_mean_row(const std::string& setting, double max_gap, double round_off,
                    const std::string& predicted) {
  Row row;
  row.setting = setting + ", mean";
  row.predicted = predicted;
  row.measured = fmt::format("max gap {:.2e} (≤ {:.1e})", max_gap, round_off);
  row.passed = max_gap <= round_off;
  row.data = {{"max_gap", max_gap}, {"round_off", round_off}};
  kit::gate(row, "max_gap", max_gap, round_off);
  return row;
}

double condition_number(const Matrix& m) {
  const Vector sv = Eigen::JacobiSVD<Matrix>(m).singularValues();
  return sv(0) / sv(sv.size() - 1);
}

double mean_round_off(double condition, const Vector& x_star) {
  return quadratic::kRoundOffUlps * condition * std::numeric_limits<double>::epsilon() *
         std::max(1.0, x_star.norm());
}

}  // namespace fedverify::claims::optimisers
