// The hand-written backward passes of theory/problems/mlp.hpp and deepgmm_game.hpp against
// central finite differences.
//
// Tolerance (derived, not tuned): along a direction v with the LeakyReLU activation pattern
// constant on [−2h, 2h] (checked), a network of L layers is a polynomial of degree ≤ L in the
// step s (each layer's parameters enter linearly and the activations are linear given the
// pattern), and the game's U (3.14) one of degree ≤ 2·L_f + L_g. The central difference
// D(h) = (φ(h) − φ(−h))/(2h) = φ'(0) + Σ_k c_{2k+1} h^{2k}, so one Richardson step
// (4D(h) − D(2h))/3 removes the h² term and leaves c₅h⁴·(−4)/3 from degree ≥ 5 (below round-off
// at h = 1e-5 for the sizes here; the degree-4 game has no c₅). What remains is round-off:
// each φ is a sum of S = Σ_b |terms| computed to (fan-in + 1)·ε relative per layer, so
// |error| ≤ kSafety · (L + 1)(w_max + 1) · ε · S / h (round_off.hpp's kSafety).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/base/testing/round_off.hpp"
#include "theory/problems/deepgmm_game.hpp"
#include "theory/problems/mlp.hpp"

namespace fedverify::theory {
namespace {

using estimators::Purpose;
using estimators::Stream;
using verify::kEps;
using verify::kSafety;

constexpr double kStep = 1e-5;

Matrix random_batch(Stream& s, int rows, int cols, double scale) {
  Matrix m(rows, cols);
  for (Eigen::Index j = 0; j < m.size(); ++j) m.data()[j] = scale * s.normal();
  return m;
}

Vector random_direction(Stream& s, Eigen::Index n) {
  Vector v(n);
  for (Eigen::Index i = 0; i < n; ++i) v[i] = s.normal();
  return v / v.norm();
}

// The sign pattern of every hidden pre-activation of `net` on `in`.
std::vector<bool> pattern(const Mlp& net, const Vector& p, const Matrix& in) {
  Mlp::Cache cache;
  net.forward(p, in, &cache);
  std::vector<bool> out;
  for (std::size_t l = 0; l + 1 < cache.pre.size(); ++l) {
    for (Eigen::Index i = 0; i < cache.pre[l].size(); ++i)
      out.push_back(cache.pre[l].data()[i] > 0);
  }
  return out;
}

bool pattern_constant(const Mlp& net, const Vector& p, const Vector& v, const Matrix& in) {
  const auto base = pattern(net, p, in);
  for (double s : {-2 * kStep, -kStep, kStep, 2 * kStep}) {
    if (pattern(net, p + s * v, in) != base) return false;
  }
  return true;
}

// Richardson-extrapolated central difference of φ at 0 (exact for degree ≤ 4 up to round-off).
double richardson(const std::function<double(double)>& phi) {
  const double d1 = (phi(kStep) - phi(-kStep)) / (2 * kStep);
  const double d2 = (phi(2 * kStep) - phi(-2 * kStep)) / (4 * kStep);
  return (4 * d1 - d2) / 3;
}

double round_off_tolerance(int layers, int max_width, double scale) {
  return kSafety * (layers + 1) * (max_width + 1) * kEps * scale / kStep;
}

TEST(Mlp, BackwardMatchesFiniteDifferences) {
  Stream s(31, Purpose::test);
  for (const auto& [input, hidden] : {std::pair{1, std::vector<int>{20, 3}},
                                      {2, std::vector<int>{20}},
                                      {3, std::vector<int>{}}}) {
    const Mlp net(input, hidden);
    const Vector p = net.initial(s);
    const Matrix in = random_batch(s, input, 40, 2.0);
    const RowVector w = random_batch(s, 1, 40, 1.0);
    Mlp::Cache cache;
    const RowVector out = net.forward(p, in, &cache);
    Vector grad = Vector::Zero(net.parameters());
    net.backward(p, in, cache, w, grad);
    const double scale = (w.array().abs() * out.array().abs()).sum() + w.array().abs().sum();
    int checked = 0;
    for (int trial = 0; trial < 20; ++trial) {
      const Vector v = random_direction(s, net.parameters());
      if (!pattern_constant(net, p, v, in)) continue;
      ++checked;
      const double fd = richardson([&](double t) { return w.dot(net.forward(p + t * v, in)); });
      EXPECT_NEAR(grad.dot(v), fd, round_off_tolerance(net.layers(), 20, scale))
          << "input " << input << ", trial " << trial;
    }
    EXPECT_GE(checked, 10) << "too few directions with a constant activation pattern, input "
                           << input;
  }
}

TEST(Mlp, InitialisationIsPyTorchsUniformAndSeeded) {
  const Mlp net(2, {20});
  Stream a(5, Purpose::test), b(5, Purpose::test);
  const Vector p = net.initial(a);
  EXPECT_EQ(p, net.initial(b));
  ASSERT_EQ(p.size(), 20 * 3 + 21);
  EXPECT_LE(p.head(60).cwiseAbs().maxCoeff(), 1 / std::sqrt(2.0));   // layer 1: fan-in 2
  EXPECT_LE(p.tail(21).cwiseAbs().maxCoeff(), 1 / std::sqrt(20.0));  // layer 2: fan-in 20
  EXPECT_GT(p.tail(21).cwiseAbs().maxCoeff(), 0.5 / std::sqrt(20.0));
}

TEST(Mlp, BadWidthsAreRefusedNamingTheField) {
  EXPECT_THROW(Mlp(0, {3}), InputError);
  try {
    Mlp(1, {20, 0});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hidden[1]"), std::string::npos);
  }
}

TEST(DeepGmmGame, GradientsMatchFiniteDifferencesWithThetaTildeHeld) {
  Stream s(32, Purpose::test);
  const DeepGmmGame game{Mlp(1, {20, 3}), Mlp(2, {20}), 0.25};
  IvBatch b{random_batch(s, 2, 50, 2.0), random_batch(s, 1, 50, 2.0), random_batch(s, 1, 50, 1.0)};
  const Vector theta = game.g.initial(s);
  const Vector tau = game.f.initial(s);
  Vector gt, gf;
  game.gradients(theta, tau, b, gt, gf);
  const RowVector fz = game.f.forward(tau, b.z);
  const RowVector r = b.y - game.g.forward(theta, b.x);
  const double scale = (fz.array().abs() * (r.array().abs() + r.array().square())).sum() /
                           static_cast<double>(b.size()) +
                       1.0;
  int checked = 0;
  for (int trial = 0; trial < 20; ++trial) {
    const Vector vt = random_direction(s, game.g.parameters());
    const Vector vf = random_direction(s, game.f.parameters());
    if (!pattern_constant(game.g, theta, vt, b.x) || !pattern_constant(game.f, tau, vf, b.z)) {
      continue;
    }
    ++checked;
    const double fd_theta =
        richardson([&](double t) { return game.value(theta + t * vt, tau, theta, b); });
    const double fd_tau =
        richardson([&](double t) { return game.value(theta, tau + t * vf, theta, b); });
    EXPECT_NEAR(gt.dot(vt), fd_theta, round_off_tolerance(3, 20, scale)) << trial;
    EXPECT_NEAR(gf.dot(vf), fd_tau, round_off_tolerance(4, 20, scale)) << trial;
  }
  EXPECT_GE(checked, 10);
}

TEST(DeepGmmGame, FederatedValueIsTheEqualWeightAverage) {
  // (3.20): (1/N) Σ_i U^i — two clients of unequal sizes, so a pooled mean would differ.
  Stream s(33, Purpose::test);
  const DeepGmmGame game{Mlp(1, {4}), Mlp(2, {4}), 0.25};
  const IvBatch a{random_batch(s, 2, 3, 1.0), random_batch(s, 1, 3, 1.0),
                  random_batch(s, 1, 3, 1.0)};
  const IvBatch b{random_batch(s, 2, 9, 1.0), random_batch(s, 1, 9, 1.0),
                  random_batch(s, 1, 9, 1.0)};
  const Vector theta = game.g.initial(s), tau = game.f.initial(s), tilde = game.g.initial(s);
  const double ua = game.value(theta, tau, tilde, a), ub = game.value(theta, tau, tilde, b);
  EXPECT_NEAR(federated_value(game, theta, tau, tilde, {a, b}), (ua + ub) / 2,
              4 * kEps * (std::abs(ua) + std::abs(ub)));
}

}  // namespace
}  // namespace fedverify::theory
