#include "estimators/statistics/sample_size.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <numeric>

#include "estimators/statistics/decide.hpp"
#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

namespace {

void require(bool ok, const char* what) {
  if (!ok) throw InputError(what);
}

double sample_sd(const std::vector<double>& x) {
  const double n = static_cast<double>(x.size());
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / n;
  double ss = 0;
  for (const double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / (n - 1));
}

}  // namespace

std::string SampleSizePlan::advice() const {
  if (reaches()) return "";
  return fmt::format("{} ({} of {} replications)", budget_advice(shortfall), needed, budget);
}

double stein_budget_multiple(double mde, double margin, double allowance) {
  if (!(margin > 0) || !std::isfinite(mde) || !std::isfinite(margin)) return 0.0;
  if (!(allowance >= 0.0) || !std::isfinite(allowance)) {
    throw InputError("allowance: must be finite and ≥ 0");
  }
  const double random = std::max(0.0, mde - allowance);  // (c + q_power)·se
  const double multiple = (random / (margin / 2.0)) * (random / (margin / 2.0));
  return multiple > 1.0 ? multiple : 0.0;
}

double rounded_budget_multiple(double multiple) {
  if (!(multiple > 0) || !std::isfinite(multiple)) return multiple;
  const double unit = multiple < 10 ? 1.0 : std::pow(10.0, std::floor(std::log10(multiple)) - 1);
  return std::ceil(multiple / unit) * unit;
}

std::string budget_advice(double multiple) {
  if (!(multiple > 1.0)) return "";
  return fmt::format("needs ≈ {:g}× this budget", rounded_budget_multiple(multiple));
}

SampleSizePlan stein_sample_size(double pilot_sd, std::int64_t pilot, double margin, double alpha,
                                 double power, std::int64_t budget) {
  require(pilot >= 2, "pilot: at least 2 replications are needed to estimate a spread");
  require(std::isfinite(pilot_sd) && pilot_sd >= 0, "pilot_sd: must be finite and ≥ 0");
  require(std::isfinite(margin) && margin > 0, "margin: must be finite and > 0");
  require(alpha > 0 && alpha < 1, "alpha: must lie in (0, 1)");
  require(power > 0.5 && power < 1, "power: must lie in (0.5, 1)");
  require(budget >= pilot, "budget: must be at least the pilot's replications");

  const double dof = static_cast<double>(pilot - 1);
  // MDE(n) = k·s₀/√n with k = q_{1−α/2,ν} + q_{power,ν} (decide.hpp (m) at se = s₀/√n).
  const double k = minimum_detectable_error(
      boost::math::quantile(boost::math::complement(boost::math::students_t(dof), alpha / 2)), dof,
      1.0, 0.0, power);
  SampleSizePlan plan;
  plan.pilot = pilot;
  plan.pilot_sd = pilot_sd;
  plan.budget = budget;
  const double target = margin / 2;
  const double exact = std::ceil((k * pilot_sd / target) * (k * pilot_sd / target));
  // Beyond 2⁶² the count is meaningless; clamp so the shortfall stays finite.
  const double capped = std::min(exact, 4.0e18);
  plan.needed = std::max<std::int64_t>(pilot, static_cast<std::int64_t>(capped));
  plan.planned = std::min(plan.needed, budget);
  plan.planned_mde = k * pilot_sd / std::sqrt(static_cast<double>(plan.planned));
  plan.shortfall =
      plan.reaches() ? 0.0 : static_cast<double>(plan.needed) / static_cast<double>(budget);
  return plan;
}

SampleSizePlan stein_sample_size(const std::vector<double>& pilot_replications, double margin,
                                 double alpha, double power, std::int64_t budget) {
  require(pilot_replications.size() >= 2,
          "pilot: at least 2 replications are needed to estimate a spread");
  return stein_sample_size(sample_sd(pilot_replications),
                           static_cast<std::int64_t>(pilot_replications.size()), margin, alpha,
                           power, budget);
}

ReplicatedMean stein_mean(const SampleSizePlan& plan, const std::vector<double>& replications) {
  require(static_cast<std::int64_t>(replications.size()) >= plan.pilot && plan.pilot >= 2,
          "replications: fewer than the pilot's");
  const double n = static_cast<double>(replications.size());
  ReplicatedMean m;
  m.mean = std::accumulate(replications.begin(), replications.end(), 0.0) / n;
  m.se = plan.pilot_sd / std::sqrt(n);
  m.dof = static_cast<double>(plan.pilot - 1);
  return m;
}

}  // namespace fedverify::estimators
