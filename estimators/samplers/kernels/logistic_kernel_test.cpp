// The fused logistic kernel (estimators/samplers/kernels/logistic_kernel.hpp): its exp and step
// weight against the library exp, its local steps against scalar steps written from THEORY §6,
// and the interleaved client pair against two separate calls.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "estimators/samplers/kernels/logistic_kernel.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/round_off.hpp"

namespace fedverify::estimators {
namespace {

using verify::kEps;

// Distance of `value` from `exact` in units of the spacing of doubles at |exact|.
double ulps_from(double value, double exact) {
  if (value == exact) return 0.0;
  const double spacing =
      std::nextafter(std::abs(exact), std::numeric_limits<double>::infinity()) - std::abs(exact);
  return std::abs(value - exact) / spacing;
}

// Statement: simd::exp(s) is within kExpUlps of std::exp(s) wherever e^s is a normal double,
// overflows to +inf for s > ln(DBL_MAX) ≈ 709.78 and is 0 for s < −745.2; the step weight
// γ/(1 + e^s) is within kWeightUlps of the same expression with std::exp, equals γ for s ≪ 0
// and 0 for s > kSaturation. Measurement: 2²⁰ arguments uniform on [−708, 709.7] and 2²⁰ on
// [−40, 40] (fixed test stream), plus the edge points. Decision: the maximum error.
// Bounds (error analysis, not measured-then-copied): the reduced argument r = s − n ln2 is exact
// to ≈ 2⁻⁶⁰ relative; the degree-13 Taylor remainder is < 6e-18; the Estrin evaluation of
// p(r) ≈ e^r ∈ [0.7, 1.42] commits ≤ 2 roundings that reach the result (the final fma, and the
// 1 + r head), the scaling by 2ⁿ is exact: ≤ 2.5 ulp, so kExpUlps = 3 (std::exp itself is
// within 1 ulp for glibc, which we do not count against the bound). The weight adds the sum
// 1 + e^s (0.5) and the division γ/(1 + e^s) (0.5) to e/(1+e) ≤ 1 times the exp error, and
// std::exp's own ≤ 1 ulp enters the reference the same way: ≤ 4.5 ulp, kWeightUlps = 5.
TEST(Engine, ExpAndTheLogisticWeightMatchTheLibraryExp) {
  constexpr double kExpUlps = 3.0;
  constexpr double kWeightUlps = 5.0;
  constexpr int kSamples = 1 << 20;
  constexpr int kL = simd::kPackLanes;
  Stream stream(4242, Purpose::test);
  double worst_exp = 0.0, worst_weight = 0.0;
  const double gamma = 0.3;
  for (int i = 0; i < kSamples / kL; ++i) {
    double s[kL], t[kL], e[kL], w[kL];
    for (int l = 0; l < kL; ++l) {
      s[l] = -708.0 + (709.7 + 708.0) * stream.uniform();
      t[l] = -40.0 + 80.0 * stream.uniform();
    }
    simd::store(e, simd::exp(simd::load(s)));
    simd::store(w, simd::logistic_weight(simd::load(t), gamma));
    for (int l = 0; l < kL; ++l) {
      worst_exp = std::max(worst_exp, ulps_from(e[l], std::exp(s[l])));
      worst_weight = std::max(worst_weight, ulps_from(w[l], gamma / (1.0 + std::exp(t[l]))));
    }
  }
  fmt::print("kernel exp: max error {:.2f} ulp (bound {}), weight: {:.2f} ulp (bound {})\n",
             worst_exp, kExpUlps, worst_weight, kWeightUlps);
  EXPECT_LE(worst_exp, kExpUlps);
  EXPECT_LE(worst_weight, kWeightUlps);
  const double inf = std::numeric_limits<double>::infinity();
  double edge[kL] = {709.79, 710.0, 1e300, inf, -745.2, -746.0, -1e300, -inf};
  double e[kL], w[kL];
  simd::store(e, simd::exp(simd::load(edge)));
  simd::store(w, simd::logistic_weight(simd::load(edge), gamma));
  for (int l = 0; l < 4; ++l) {
    EXPECT_EQ(e[l], inf) << edge[l];
    EXPECT_EQ(w[l], 0.0) << edge[l];
  }
  for (int l = 4; l < kL; ++l) {
    EXPECT_EQ(e[l], 0.0) << edge[l];
    EXPECT_EQ(w[l], gamma) << edge[l];
  }
}

// Statement: the fused kernel (row transpose, dot, weight, y ← (1 − γλ)y + Σ c ã − γξ) performs
// the logistic local steps y ← y − γ(mean_b φ'(ã_bᵀy) ã_b + λy + ξ) of THEORY §6.
// Setting: random tables and states, d ∈ {1, 3, 4, 10, 16} (registers) and {17, 23} (memory),
// B ∈ {1, 3}, with and without a Scaffold correction ξ, H = 7 steps of γ = 0.2, λ = 0.1.
// Prediction: a scalar reference loop with std::exp and long double accumulation.
// Decision: max |kernel − reference| ≤ 64·H·(d + 8)·ε·scale, scale = max(1, max|y|): each step
// rounds a dot of d terms (≤ d·ε relative to Σ|ã||y|), the weight (≤ 6 ulp) and the update
// (2 roundings), and the step map's Lipschitz constant 1 − γλ + γ|ã|²/4 < 2 for these sizes
// lets the errors add up over H steps; a wrong formula gives errors of order γ ≈ 0.2.
TEST(Engine, FusedLogisticKernelMatchesTheScalarSteps) {
  constexpr int kL = simd::kPackLanes;
  constexpr int kSteps = 7;
  constexpr int kRows = 13;
  const double gamma = 0.2, l2 = 0.1;
  Stream stream(515, Purpose::test);
  double worst_ratio = 0.0;
  for (const int d : {1, 3, 4, 10, 16, 17, 23}) {
    for (const int batch : {1, 3}) {
      for (const bool scaffold : {false, true}) {
        std::vector<double> table(static_cast<std::size_t>(kRows) * d + simd::kRowPadding, 0.0);
        for (int i = 0; i < kRows * d; ++i) table[i] = stream.normal() / std::sqrt(d);
        std::vector<std::uint32_t> offsets(static_cast<std::size_t>(kSteps) * batch * kL);
        for (auto& o : offsets) o = static_cast<std::uint32_t>(stream.below(kRows) * d);
        std::vector<double> y(static_cast<std::size_t>(d) * kL), xi(y.size());
        for (auto& v : y) v = 2.0 * stream.normal();
        for (auto& v : xi) v = scaffold ? stream.normal() : 0.0;
        std::vector<double> kernel = y;
        simd::LogisticBlock block;
        block.table = table.data();
        block.offsets = offsets.data();
        block.dim = d;
        block.steps = kSteps;
        block.batch = batch;
        block.gamma = gamma;
        block.l2 = l2;
        simd::logistic_local_steps(block, kernel.data(), scaffold ? xi.data() : nullptr);
        double error = 0.0, scale = 1.0;
        for (int l = 0; l < kL; ++l) {
          std::vector<long double> x(d), g(d);
          for (int k = 0; k < d; ++k) x[k] = y[k * kL + l];
          for (int h = 0; h < kSteps; ++h) {
            for (int k = 0; k < d; ++k) g[k] = l2 * x[k] + xi[k * kL + l];
            for (int b = 0; b < batch; ++b) {
              const double* row = table.data() + offsets[(h * batch + b) * kL + l];
              long double s = 0;
              for (int k = 0; k < d; ++k) s += row[k] * x[k];
              const long double phi = -1.0L / (1.0L + std::exp(s));  // φ'(s), signed rows
              for (int k = 0; k < d; ++k) g[k] += phi * row[k] / batch;
            }
            for (int k = 0; k < d; ++k) x[k] -= gamma * g[k];
          }
          for (int k = 0; k < d; ++k) {
            error = std::max(error, static_cast<double>(std::abs(kernel[k * kL + l] - x[k])));
            scale = std::max(scale, static_cast<double>(std::abs(x[k])));
          }
        }
        const double tolerance = 64.0 * kSteps * (d + 8) * kEps * scale;
        worst_ratio = std::max(worst_ratio, error / tolerance);
        EXPECT_LE(error, tolerance) << "d = " << d << ", B = " << batch << ", ξ " << scaffold;
      }
    }
  }
  fmt::print("fused logistic kernel vs scalar steps: max error / tolerance = {:.3g}\n",
             worst_ratio);
}

// Statement: two clients' steps interleaved (logistic_local_steps_pair, what the sampler calls
// for clients 2i and 2i + 1) are bit-identical to two separate calls: per chain the operations
// and their order do not depend on the pairing. Setting: d = 1 … 12 (pairs run interleaved up to
// d = 10, one after the other above), B ∈ {1, 2}, with and without ξ, two different tables and
// index sets, H = 7. Decision: exact equality of both blocks' states.
TEST(Engine, InterleavedClientPairIsTwoSeparateCalls) {
  constexpr int kL = simd::kPackLanes;
  constexpr int kSteps = 7;
  constexpr int kRows = 11;
  Stream stream(516, Purpose::test);
  for (int d = 1; d <= 12; ++d) {
    for (const int batch : {1, 2}) {
      for (const bool scaffold : {false, true}) {
        std::vector<double> tables[2];
        std::vector<std::uint32_t> offsets[2];
        std::vector<double> y[2], xi[2];
        simd::LogisticBlock block[2];
        for (int m = 0; m < 2; ++m) {
          tables[m].assign(static_cast<std::size_t>(kRows) * d + simd::kRowPadding, 0.0);
          for (int i = 0; i < kRows * d; ++i) tables[m][i] = stream.normal() / std::sqrt(d);
          offsets[m].resize(static_cast<std::size_t>(kSteps) * batch * kL);
          for (auto& o : offsets[m]) o = static_cast<std::uint32_t>(stream.below(kRows) * d);
          y[m].resize(static_cast<std::size_t>(d) * kL);
          xi[m].resize(y[m].size());
          for (auto& v : y[m]) v = 2.0 * stream.normal();
          for (auto& v : xi[m]) v = scaffold ? stream.normal() : 0.0;
          block[m].table = tables[m].data();
          block[m].offsets = offsets[m].data();
          block[m].dim = d;
          block[m].steps = kSteps;
          block[m].batch = batch;
          block[m].gamma = 0.2;
          block[m].l2 = 0.1;
        }
        std::vector<double> separate[2] = {y[0], y[1]}, paired[2] = {y[0], y[1]};
        for (int m = 0; m < 2; ++m) {
          simd::logistic_local_steps(block[m], separate[m].data(),
                                     scaffold ? xi[m].data() : nullptr);
        }
        simd::logistic_local_steps_pair(block[0], paired[0].data(),
                                        scaffold ? xi[0].data() : nullptr, block[1],
                                        paired[1].data(), scaffold ? xi[1].data() : nullptr);
        EXPECT_EQ(paired[0], separate[0]) << "d " << d << " B " << batch << " xi " << scaffold;
        EXPECT_EQ(paired[1], separate[1]) << "d " << d << " B " << batch << " xi " << scaffold;
      }
    }
  }
}

}  // namespace
}  // namespace fedverify::estimators
