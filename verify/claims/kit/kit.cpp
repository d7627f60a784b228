#include "verify/claims/kit/kit.hpp"

#include "theory/closed_forms/bounds.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <Eigen/Eigenvalues>
#include <algorithm>

#include <cmath>
#include <numbers>
#include <utility>

namespace fedverify::claims::kit {

theory::FirstOrderMoments first_order(const Context& ctx, const theory::ExpansionCoefficients& k,
                                      theory::Algorithm algorithm, const theory::RunSetting& step) {
  return ctx.predictor ? ctx.predictor(k, algorithm, step)
                       : theory::first_order(k, algorithm, step);
}

estimators::SamplerOptions sampler_options(const Context& ctx, theory::Algorithm algorithm,
                                           const theory::RunSetting& step, std::uint64_t seed) {
  estimators::SamplerOptions o;
  o.algorithm = algorithm;
  o.step = step;
  o.seed = seed;
  if (ctx.round_for) o.round = ctx.round_for(algorithm);
  return o;
}

namespace {

// SplitMix64's output function: z ← z + φ·2⁶⁴, then two xor-shift-multiply rounds.
std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t absorb(std::uint64_t h, std::string_view bytes) {
  for (const char c : bytes) h = splitmix64(h ^ static_cast<unsigned char>(c));
  return h;
}

}  // namespace

double claimed_rate(const theory::RunSetting& step, double mu, double /*l: not in the rate*/) {
  if (step.gamma * mu >= 1.0) return 0.0;
  return theory::fedavg_round_contraction(step, mu);  // THEORY (F1), (S1): (1 − γμ)^H
}

std::uint64_t row_seed(std::uint64_t run_seed, std::string_view claim_id,
                       std::string_view row_key) {
  std::uint64_t h = absorb(splitmix64(run_seed), claim_id);
  h = splitmix64(h);  // the 0 separator byte: ("ab", "c") and ("a", "bc") differ
  return absorb(h, row_key);
}

std::uint64_t row_seed(const Context& ctx, std::string_view claim_id, std::string_view row_key) {
  std::uint64_t seed = row_seed(ctx.options.seed, claim_id, row_key);
  // Confirmation attempts (run_claim): h ← mix(h ⊕ attempt) once per attempt.
  for (int a = 1; a <= ctx.attempt; ++a) seed = splitmix64(seed ^ static_cast<std::uint64_t>(a));
  return seed;
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

Series ellipse(const Vector& m, const Matrix& s, const std::string& title) {
  Eigen::SelfAdjointEigenSolver<Matrix> es(s);
  const Matrix root = es.eigenvectors() * es.eigenvalues().cwiseMax(0).cwiseSqrt().asDiagonal() *
                      es.eigenvectors().transpose();
  std::vector<double> ex, ey;
  for (int i = 0; i <= 200; ++i) {
    const double th = 2 * std::numbers::pi * i / 200;
    Vector u(2);
    u << std::cos(th), std::sin(th);
    const Vector p = m + 2 * root * u;
    ex.push_back(p(0));
    ey.push_back(p(1));
  }
  return {title, ex, ey, "lines lw 2"};
}

}  // namespace fedverify::claims::kit
