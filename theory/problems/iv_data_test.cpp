// The (M6) generators of theory/problems/iv_data.hpp: determinism, the noise scale (the variance
// of δ − γ identifies it), the standardisation, the Dirichlet client split and bad options.
// Statistical checks: two-sided z tests at α = 1e-3 each (Bonferroni over none: each is its own
// check), the variance of a normal sample variance being 2σ⁴/(n − 1).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "theory/base/input_error.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/base/testing/statistical_checks.hpp"
#include "theory/problems/iv_data.hpp"

namespace fedverify::theory {
namespace {

constexpr double kAlpha = 1e-3;

double sample_variance(const RowVector& v) {
  const double m = v.mean();
  return (v.array() - m).square().sum() / static_cast<double>(v.size() - 1);
}

void expect_variance(const RowVector& v, double sigma2, const char* what) {
  const double se = sigma2 * std::sqrt(2.0 / static_cast<double>(v.size() - 1));
  EXPECT_NEAR(sample_variance(v), sigma2, verify::z_two_sided(kAlpha) * se) << what;
}

// Raw (unstandardised) Y − g₀(X) of a split.
RowVector outcome_noise(const IvData& d, const IvSample& s) { return (s.data.y - s.g0) * d.y_sd; }

TEST(IvData, SameSeedSameDataOtherSeedOtherData) {
  IvOptions o;
  o.samples = 500;
  const IvData a = generate_iv(o), b = generate_iv(o);
  EXPECT_EQ(a.train.data.y, b.train.data.y);
  EXPECT_EQ(a.test.data.z, b.test.data.z);
  EXPECT_EQ(a.clients, b.clients);
  o.seed = 2;
  EXPECT_NE(generate_iv(o).train.data.y, a.train.data.y);
}

TEST(IvData, NoiseScaleIsReadAsSdOrVariance) {
  // thesis: (Y − g₀) − (X − Z₁ − Z₂) = δ − γ ~ N(0, 2σ²); σ = 0.1 (sd) or √0.1 (variance).
  for (auto [scale, sigma2] : {std::pair{NoiseScale::sd, 0.01}, {NoiseScale::variance, 0.1}}) {
    IvOptions o;
    o.noise_scale = scale;
    o.function = IvFunction::linear;
    const IvData d = generate_iv(o);
    const IvSample& s = d.test;
    const RowVector diff = outcome_noise(d, s) - (s.data.x - s.data.z.row(0) - s.data.z.row(1));
    expect_variance(diff, 2 * sigma2, "thesis process");
    // X = Z₁ + Z₂ + e + γ: Var X = 2·3 + 1 + σ².
    expect_variance(s.data.x, 7 + sigma2, "Var X");
  }
  // deepgmm: (Y − g₀) − 2(X − Z₁) = δ − 2γ ~ N(0, 0.01 + 0.04), whatever noise_scale says.
  IvOptions o;
  o.process = IvProcess::deepgmm;
  o.noise_scale = NoiseScale::variance;
  o.function = IvFunction::step;
  const IvData d = generate_iv(o);
  const RowVector diff = outcome_noise(d, d.test) - 2.0 * (d.test.data.x - d.test.data.z.row(0));
  expect_variance(diff, 0.05, "deepgmm process");
}

TEST(IvData, TrueFunctionsOfBothProcesses) {
  EXPECT_EQ(true_function(IvFunction::absolute, IvProcess::thesis, -2.5), 2.5);
  EXPECT_EQ(true_function(IvFunction::step, IvProcess::thesis, 0.0), 1.0);
  EXPECT_EQ(true_function(IvFunction::step, IvProcess::thesis, -1e-9), 0.0);
  EXPECT_EQ(true_function(IvFunction::step, IvProcess::deepgmm, 0.0), 2.5);
  EXPECT_EQ(true_function(IvFunction::step, IvProcess::deepgmm, -1.0), 1.0);
  EXPECT_EQ(true_function(IvFunction::linear, IvProcess::thesis, -1.5), -1.5);
}

TEST(IvData, TrainingOutcomeIsStandardisedAndTheTruthMapsWithIt) {
  IvOptions o;
  o.samples = 2000;
  const IvData d = generate_iv(o);
  const RowVector& y = d.train.data.y;
  const double n = static_cast<double>(y.size());
  EXPECT_NEAR(y.mean(), 0.0, 10 * verify::kEps * y.cwiseAbs().maxCoeff());
  EXPECT_NEAR(std::sqrt(y.array().square().sum() / n), 1.0, 10 * n * verify::kEps);
  // g₀ on the same scale: un-standardised it is |X|.
  const RowVector g_raw = d.train.g0.array() * d.y_sd + d.y_mean;
  EXPECT_LE((g_raw - d.train.data.x.row(0).cwiseAbs()).cwiseAbs().maxCoeff(),
            10 * verify::kEps * (std::abs(d.y_mean) + d.y_sd * d.train.g0.cwiseAbs().maxCoeff()));
}

TEST(IvData, DirichletSplitUsesEveryTrainingSampleOnceAndShiftsX) {
  IvOptions o;
  o.samples = 4000;
  const IvData d = generate_iv(o);
  ASSERT_EQ(d.clients.size(), 10u);
  std::set<int> seen;
  for (const auto& c : d.clients) {
    EXPECT_FALSE(c.empty());
    for (int k : c) EXPECT_TRUE(seen.insert(k).second) << "sample " << k << " given twice";
  }
  EXPECT_EQ(seen.size(), 4000u);
  // Dirichlet(0.3) over X-deciles: client means of X spread far more than an iid split's
  // (whose client means have sd √(7.01/400) ≈ 0.13): some two clients differ by > 1.
  double lo = 1e9, hi = -1e9;
  for (const auto& c : d.clients) {
    const double m = select_columns(d.train.data, c).x.mean();
    lo = std::min(lo, m);
    hi = std::max(hi, m);
  }
  EXPECT_GT(hi - lo, 1.0);
}

TEST(IvData, BadOptionsAreRefusedNamingTheField) {
  auto field_of = [](IvOptions o) -> std::string {
    try {
      generate_iv(o);
    } catch (const InputError& e) {
      return std::string(e.what()).substr(0, std::string(e.what()).find(':'));
    }
    return "";
  };
  IvOptions o;
  o.samples = 1;
  EXPECT_EQ(field_of(o), "samples");
  o = {};
  o.clients = 0;
  EXPECT_EQ(field_of(o), "clients");
  o = {};
  o.dirichlet = -1;
  EXPECT_EQ(field_of(o), "dirichlet");
  o = {};
  o.bins = 0;
  EXPECT_EQ(field_of(o), "bins");
  EXPECT_THROW(parse_iv_function("sine", "function"), InputError);
  EXPECT_EQ(parse_iv_function("step", "function"), IvFunction::step);
}

}  // namespace
}  // namespace fedverify::theory
