// Statistical checks shared by the unit tests (tests only): normal quantiles, calibration of a
// rule's event rate over independent trials, and the moments of a sample of chains against a
// known mean and covariance. Every check states its false-alarm level; the draws come from
// Stream(seed, Purpose::test), so each check is deterministic.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdint>
#include <string>

#include "theory/base/linalg.hpp"
#include "theory/base/rng.hpp"

namespace fedverify::verify {

// z_{1−α/(2m)}: two-sided normal quantile with a Bonferroni split over m comparisons.
inline double z_two_sided(double alpha, int comparisons = 1) {
  return boost::math::quantile(
      boost::math::complement(boost::math::normal(), alpha / (2.0 * comparisons)));
}

// Calibration of a rule over kTrials independent draws: under its null the rejection (or, for
// confirming rules, confirmation) rate must be within 4 binomial standard errors of its
// nominal level.
constexpr int kTrials = 10000;

// |rate − p| ≤ 4 √(p(1 − p)/n): the false-alarm rate agrees with its nominal level.
inline void expect_rate_near(int events, int trials, double p, const char* what) {
  const double rate = static_cast<double>(events) / trials;
  const double mcse = std::sqrt(p * (1.0 - p) / trials);
  fmt::print("{}: rate {:.4f} vs nominal {:.4f} (MCSE {:.4f})\n", what, rate, p, mcse);
  EXPECT_LE(std::abs(rate - p), 4.0 * mcse) << what;
}

// Counts the trials t = 0..kTrials−1 for which `event(stream)` is true, each with its own stream.
template <class Event>
int count_events(std::uint64_t seed, Event event) {
  int n = 0;
  for (int t = 0; t < kTrials; ++t) {
    estimators::Stream s(seed, estimators::Purpose::test, static_cast<std::uint64_t>(t));
    n += event(s) ? 1 : 0;
  }
  return n;
}

// K samples (columns of `x`) against a known mean and covariance.
// Per-entry z-tests with Monte Carlo standard errors estimated from the sample:
//   mean_i: se = sd_i / √K;   cov_ij: se = sd over chains of (x_i − x̄_i)(x_j − x̄_j) / √K.
// False-alarm level α for the whole check, Bonferroni over the d + d(d+1)/2 comparisons.
inline void expect_moments(const Matrix& x, const Vector& mean, const Matrix& cov, double alpha,
                           const std::string& label) {
  const int d = static_cast<int>(x.rows());
  const auto k = static_cast<double>(x.cols());
  const int comparisons = d + d * (d + 1) / 2;
  const double z = z_two_sided(alpha / comparisons);
  const Vector sample_mean = x.rowwise().mean();
  const Matrix centred = x.colwise() - sample_mean;
  double worst = 0;
  for (int i = 0; i < d; ++i) {
    const double sd = std::sqrt(centred.row(i).squaredNorm() / (k - 1));
    const double score = std::abs(sample_mean(i) - mean(i)) / (sd / std::sqrt(k));
    worst = std::max(worst, score);
    EXPECT_LE(score, z) << label << ": mean[" << i << "] " << sample_mean(i) << " vs " << mean(i);
    for (int j = 0; j <= i; ++j) {
      const Eigen::ArrayXd products = centred.row(i).array() * centred.row(j).array();
      const double s_ij = products.sum() / (k - 1);
      const double sd_p = std::sqrt((products - products.mean()).square().sum() / (k - 1));
      const double score_ij = std::abs(s_ij - cov(i, j)) / (sd_p / std::sqrt(k));
      worst = std::max(worst, score_ij);
      EXPECT_LE(score_ij, z) << label << ": cov(" << i << "," << j << ") " << s_ij << " vs "
                             << cov(i, j);
    }
  }
  fmt::print("{}: largest |z| = {:.2f} over {} comparisons (threshold {:.2f}, alpha = {})\n", label,
             worst, comparisons, z, alpha);
}

}  // namespace fedverify::verify
