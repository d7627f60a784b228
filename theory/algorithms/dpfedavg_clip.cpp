#include "theory/algorithms/dpfedavg_clip.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <optional>

#include "theory/base/input_error.hpp"
#include "theory/problems/dpfedavg_setting.hpp"

namespace fedverify::theory {
namespace {

double pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi); }
double cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

// F(x) = Σ p_c E[clamp_κ(g_c(x))] and its pieces at x.
struct MeanField {
  double value = 0, slope = 0, noise = 0;
};
MeanField mean_field(const QuadraticProblem& q, double x, double kappa, int steps) {
  MeanField f;
  for (int c = 0; c < q.num_clients(); ++c) {
    const auto& cl = q.client(c);
    const double a = cl.hessian(0, 0);
    const ClampedMoments m =
        clamped_gaussian_moments(a * (x - cl.optimum(0)), cl.noise_cov(0, 0) / steps, kappa);
    const double p = q.weight(c);
    f.value += p * m.mean;
    f.slope += p * a * m.inside;
    f.noise += p * p * m.variance;
  }
  return f;
}

}  // namespace

ClampedMoments clamped_gaussian_moments(double mu, double var, double kappa) {
  ClampedMoments out;
  if (var <= 0) {
    const double c = std::clamp(mu, -kappa, kappa);
    return {c, 0.0, std::abs(mu) < kappa ? 1.0 : 0.0};
  }
  const double sd = std::sqrt(var);
  const double lo = (-kappa - mu) / sd, hi = (kappa - mu) / sd;
  const double below = cdf(lo), above = 1.0 - cdf(hi), inside = cdf(hi) - below;
  // E[G; lo < Z < hi] and E[G²; lo < Z < hi] for G = mu + sd Z.
  const double first = mu * inside + sd * (pdf(lo) - pdf(hi));
  const double second = (mu * mu + var) * inside + 2.0 * mu * sd * (pdf(lo) - pdf(hi)) +
                        var * (lo * pdf(lo) - hi * pdf(hi));
  out.mean = -kappa * below + kappa * above + first;
  out.variance = kappa * kappa * (below + above) + second - out.mean * out.mean;
  out.inside = inside;
  return out;
}

DpClipFirstOrder dpfedavg_clip_first_order(const QuadraticProblem& q, const RunSetting& s) {
  if (q.dim() != 1) {
    throw InputError(fmt::format(
        "problem: the binding-clip first order (THEORY A5c) is one-dimensional, got d = {}",
        q.dim()));
  }
  const std::optional<double> clip = clip_norm(s);
  if (!clip || !(*clip > 0)) throw InputError("--clip: the binding-clip first order needs S > 0");
  DpClipFirstOrder out;
  const double gh = s.gamma * s.local_steps;
  out.kappa = *clip / gh;
  // F is increasing (F' = J > 0): bisection on a bracket around the clients' optima, then Newton.
  double lo = q.client(0).optimum(0), hi = lo;
  for (int c = 0; c < q.num_clients(); ++c) {
    lo = std::min(lo, q.client(c).optimum(0));
    hi = std::max(hi, q.client(c).optimum(0));
  }
  lo -= 1.0;
  hi += 1.0;
  for (int it = 0; it < 200 && hi - lo > 1e-15 * (1.0 + std::abs(lo)); ++it) {
    const double mid = 0.5 * (lo + hi);
    (mean_field(q, mid, out.kappa, s.local_steps).value > 0 ? hi : lo) = mid;
  }
  out.mean = 0.5 * (lo + hi);
  const MeanField f = mean_field(q, out.mean, out.kappa, s.local_steps);
  out.contraction = f.slope;
  out.update_noise = f.noise;
  const double sigma = dp_noise(s);
  out.variance = gh * f.noise / (2.0 * f.slope) + sigma * sigma / (2.0 * gh * f.slope);
  return out;
}

}  // namespace fedverify::theory
