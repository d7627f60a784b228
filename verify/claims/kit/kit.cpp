#include "verify/claims/kit/kit.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace fedverify::claims::kit {

theory::FirstOrderMoments first_order(const Context& ctx, const theory::ExpansionCoefficients& k,
                                      theory::Algorithm algorithm,
                                      const theory::StepSetting& step) {
  return theory::first_order(k, algorithm, step, ctx.planted_formula);
}

estimators::SamplerOptions sampler_options(const Context& ctx, theory::Algorithm algorithm,
                                           const theory::StepSetting& step, std::uint64_t seed) {
  estimators::SamplerOptions o;
  o.algorithm = algorithm;
  o.step = step;
  o.seed = seed;
#ifdef FEDVERIFY_PLANTED_ERRORS
  o.scaffold_bug = ctx.scaffold_bug;
#else
  (void)ctx;
#endif
  return o;
}

std::uint64_t algorithm_seed_index(theory::Algorithm algorithm) {
  using theory::Algorithm;
  if (algorithm == Algorithm::sgd) return 0;
  if (algorithm == Algorithm::fedavg) return 1;
  if (algorithm == Algorithm::scaffold) return 2;
  if (algorithm == Algorithm::fedrr) return 3;
  throw std::logic_error("algorithm_seed_index: no seed index for " + theory::to_string(algorithm));
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

ClaimResult finish(ClaimResult out, Clock::time_point t0) {
  out.seconds = seconds_since(t0);
  return out;
}

int round_by_round_threads(const Context& ctx) {
  return ctx.options.threads == 0 ? 1 : ctx.options.threads;
}

std::vector<double> to_std(const Vector& v) { return {v.data(), v.data() + v.size()}; }

std::vector<std::vector<double>> rows_of(const Matrix& m) {
  std::vector<std::vector<double>> r;
  for (Eigen::Index i = 0; i < m.rows(); ++i) r.push_back(to_std(m.row(i).transpose()));
  return r;
}

std::string vec_str(const Vector& v) { return fmt::format("[{:.4f}]", fmt::join(to_std(v), ", ")); }

std::string vec_pm(const Vector& v, const Matrix& cov) {
  std::vector<std::string> s;
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    s.push_back(fmt::format("{:.4f}±{:.4f}", v(i), std::sqrt(cov(i, i))));
  }
  return fmt::format("[{}]", fmt::join(s, ", "));
}

Row diverged_row(std::string setting, const std::string& divergence) {
  Row row;
  row.setting = std::move(setting);
  row.predicted = "a stationary law";
  row.measured = "diverged: " + divergence;
  row.passed = false;
  return row;
}

void gate(Row& row, std::string name, double value, double tolerance) {
  if (!std::isfinite(value) || !std::isfinite(tolerance)) return;
  row.gates.push_back({std::move(name), value, tolerance});
}

void gate_simulated(Row& row, const std::string& name, const Vector& value, const Vector& se) {
  for (Eigen::Index i = 0; i < value.size(); ++i) {
    gate(row, fmt::format("{}[{}]", name, i), value(i), kBaselineZ * se(i));
  }
}

void gate_exact(Row& row, std::string name, double value, double floor) {
  gate(row, std::move(name), value, std::max(kExactRelative * std::abs(value), floor));
}

void gate_exact(Row& row, const std::string& name, const Vector& value, double floor) {
  for (Eigen::Index i = 0; i < value.size(); ++i) {
    gate_exact(row, fmt::format("{}[{}]", name, i), value(i), floor);
  }
}

void add_figure(const Context& ctx, PlotSpec plot, std::string file, std::string caption,
                ClaimResult& out) {
  if (!ctx.figures) return;
  out.figures.push_back({std::move(file), std::move(caption), std::move(plot)});
}

}  // namespace fedverify::claims::kit
