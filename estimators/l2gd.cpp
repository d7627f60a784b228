#include "estimators/l2gd.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <chrono>
#include <cmath>

#include "estimators/compressors.hpp"
#include "estimators/rng.hpp"
#include "theory/input_error.hpp"

namespace fedverify::estimators {
namespace {

bool is_identity(const theory::CompressorSpec& s) {
  return s.kind == theory::CompressorKind::identity;
}

struct ChainRecord {
  std::vector<double> error2;  // ‖x^k − x(λ)‖², k = 0..iterations
  Matrix final_state;
  std::int64_t rounds = 0;
  std::int64_t averaging_steps = 0;
  bool finite = true;
};

ChainRecord run_chain(const theory::Problem& problem, const L2gdSimulationSpec& spec,
                      const Matrix& x_lambda, const Matrix& x0, int chain) {
  const int n = problem.num_clients();
  const auto& s = spec.setting;
  const double beta = s.alpha / (n * (1 - s.p));        // THEORY (P2), local step
  const double theta = s.alpha * s.lambda / (n * s.p);  // THEORY (P2), averaging weight
  const bool compressed = !is_identity(spec.uplink) || !is_identity(spec.downlink);
  const auto c = static_cast<std::uint64_t>(chain);
  Stream coin(spec.seed, Purpose::personalised, c);
  std::vector<Stream> client_streams;
  for (int i = 0; i < n; ++i) client_streams.emplace_back(spec.seed, Purpose::compression, c, i);
  Stream master_stream(spec.seed, Purpose::compression, c, static_cast<std::uint64_t>(n));

  ChainRecord r;
  r.error2.reserve(spec.iterations + 1);
  Matrix x = x0;
  r.error2.push_back((x - x_lambda).squaredNorm());
  bool previous_was_average = true;  // ξ_{−1} = 1: common starting model
  Matrix uploads(x.rows(), n);
  for (int k = 0; k < spec.iterations; ++k) {
    const bool average = coin.uniform() < s.p;
    if (!average) {
      for (int i = 0; i < n; ++i) x.col(i) -= beta * problem.gradient(i, x.col(i));
    } else {
      ++r.averaging_steps;
      if (compressed || !previous_was_average) ++r.rounds;
      for (int i = 0; i < n; ++i)
        uploads.col(i) = compress(spec.uplink, x.col(i), client_streams[i]);
      const Vector broadcast = compress(spec.downlink, uploads.rowwise().mean(), master_stream);
      for (int i = 0; i < n; ++i) x.col(i) -= theta * (uploads.col(i) - broadcast);
    }
    previous_was_average = average;
    const double e2 = (x - x_lambda).squaredNorm();
    if (!std::isfinite(e2)) r.finite = false;
    r.error2.push_back(e2);
  }
  r.final_state = x;
  return r;
}

}  // namespace

L2gdSimulationResult simulate_l2gd(const theory::Problem& problem, const L2gdSimulationSpec& spec) {
  const auto start = std::chrono::steady_clock::now();
  theory::validate(spec.setting);
  if (spec.chains < 2) throw InputError(fmt::format("--chains: need ≥ 2 (got {})", spec.chains));
  if (spec.iterations < 0) {
    throw InputError(fmt::format("--rounds: need ≥ 0 (got {})", spec.iterations));
  }
  const int d = problem.dim();
  const int n = problem.num_clients();
  theory::validate(spec.uplink, d, "--uplink");
  theory::validate(spec.downlink, d, "--downlink");
  Matrix x0 = spec.initial_state.size() == 0 ? Matrix::Zero(d, n) : spec.initial_state;
  if (x0.rows() != d || x0.cols() != n) {
    throw InputError(fmt::format("initial_state: expected {}×{} (d×n)", d, n));
  }

  L2gdSimulationResult out;
  out.x_lambda = theory::personalised_optimum(problem, spec.setting.lambda);
  std::vector<ChainRecord> records(spec.chains);
  const int threads = spec.threads > 0 ? spec.threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int c = 0; c < spec.chains; ++c) records[c] = run_chain(problem, spec, out.x_lambda, x0, c);

  // Reductions in chain order: independent of the thread count.
  const double k = spec.chains;
  out.mse_mean.assign(spec.iterations + 1, 0.0);
  out.mse_se.assign(spec.iterations + 1, 0.0);
  out.final_mean = Matrix::Zero(d, n);
  Matrix final_sq = Matrix::Zero(d, n);
  std::int64_t rounds = 0, averages = 0;
  for (const ChainRecord& r : records) {
    for (int j = 0; j <= spec.iterations; ++j) out.mse_mean[j] += r.error2[j] / k;
    out.final_mean += r.final_state / k;
    rounds += r.rounds;
    averages += r.averaging_steps;
    out.diverged = out.diverged || !r.finite;
  }
  for (const ChainRecord& r : records) {
    for (int j = 0; j <= spec.iterations; ++j) {
      const double dev = r.error2[j] - out.mse_mean[j];
      out.mse_se[j] += dev * dev;
    }
    final_sq += (r.final_state - out.final_mean).array().square().matrix();
  }
  for (double& v : out.mse_se) v = std::sqrt(v / (k - 1) / k);
  out.final_se = (final_sq / (k - 1) / k).array().sqrt().matrix();
  out.rounds_mean = static_cast<double>(rounds) / k;
  out.averaging_steps_mean = static_cast<double>(averages) / k;
  const std::int64_t bits_per_round =
      n * (compressed_bits(spec.uplink, d) + compressed_bits(spec.downlink, d));
  out.bits_mean = out.rounds_mean * static_cast<double>(bits_per_round);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace fedverify::estimators
