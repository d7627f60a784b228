#include "estimators/samplers/l2gd.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "estimators/samplers/compressors.hpp"
#include "estimators/samplers/parallel_errors.hpp"
#include "theory/base/input_error.hpp"
#include "theory/base/rng.hpp"
#include "theory/problems/limits.hpp"
#include "theory/problems/logistic_problem.hpp"

namespace fedverify::estimators {
namespace {

bool is_identity(const theory::CompressorSpec& s) {
  return s.kind == theory::CompressorKind::identity;
}

// What a chain of L2GD, L2SGD or L2SGD+ records.
struct ChainRecord {
  std::vector<double> error2;  // ‖x^k − x(λ)‖², k = 0..iterations
  Matrix final_state;
  std::int64_t rounds = 0;
  std::int64_t averaging_steps = 0;
  std::int64_t participations = 0;
  int first_nonfinite = -1;  // the first iteration k with ‖x^k − x(λ)‖² not finite

  // Starts the record at x⁰.
  void start(const Matrix& x0, const Matrix& x_lambda, int iterations) {
    error2.reserve(iterations + 1);
    error2.push_back((x0 - x_lambda).squaredNorm());
  }

  // Records x^k after iteration k ≥ 1.
  void record(int k, const Matrix& x, const Matrix& x_lambda) {
    const double e2 = (x - x_lambda).squaredNorm();
    if (!std::isfinite(e2) && first_nonfinite < 0) first_nonfinite = k;
    error2.push_back(e2);
  }
};

// The τ clients of one averaging step: a uniform τ-subset of {0, …, n − 1} (partial
// Fisher–Yates), returned sorted so that the sampled average is summed in client order.
std::vector<int> draw_participants(int n, int tau, Stream& stream) {
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  for (int a = 0; a < tau; ++a) {
    const int pick = a + std::min(n - a - 1, static_cast<int>(stream.uniform() * (n - a)));
    std::swap(all[a], all[pick]);
  }
  all.resize(tau);
  std::sort(all.begin(), all.end());
  return all;
}

ChainRecord run_chain(const theory::Problem& problem, const L2gdSimulationSpec& spec,
                      const Matrix& x_lambda, const Matrix& x0, int chain) {
  const int n = problem.num_clients();
  const int tau = spec.participating > 0 ? spec.participating : n;
  const auto& s = spec.setting;
  const double beta = s.alpha / (n * (1 - s.p));        // THEORY (P2), local step
  const double theta = s.alpha * s.lambda / (n * s.p);  // THEORY (P2), averaging weight
  // Partial participation: θ_τ = θ (n − 1)/(τ − 1) makes the sampled step unbiased (header).
  const double theta_tau = theta * (n - 1.0) / (tau - 1.0);
  const bool compressed = !is_identity(spec.uplink) || !is_identity(spec.downlink);
  const auto c = static_cast<std::uint64_t>(chain);
  Stream coin(spec.seed, Purpose::personalised, c);
  Stream participation(spec.seed, Purpose::personalised, c, 1);
  std::vector<Stream> client_streams;
  client_streams.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) client_streams.emplace_back(spec.seed, Purpose::compression, c, i);
  Stream master_stream(spec.seed, Purpose::compression, c, static_cast<std::uint64_t>(n));

  ChainRecord r;
  r.start(x0, x_lambda, spec.iterations);
  Matrix x = x0;
  bool previous_was_average = true;  // ξ_{−1} = 1: common starting model
  Matrix uploads(x.rows(), n);
  for (int k = 0; k < spec.iterations; ++k) {
    const bool average = coin.uniform() < s.p;
    if (!average) {
      for (int i = 0; i < n; ++i) x.col(i) -= beta * problem.gradient(i, x.col(i));
    } else if (tau == n) {
      ++r.averaging_steps;
      if (compressed || !previous_was_average) {
        ++r.rounds;
        r.participations += n;
      }
      for (int i = 0; i < n; ++i)
        uploads.col(i) = compress(spec.uplink, x.col(i), client_streams[i]);
      const Vector broadcast = compress(spec.downlink, uploads.rowwise().mean(), master_stream);
      for (int i = 0; i < n; ++i) x.col(i) -= theta * (uploads.col(i) - broadcast);
    } else {
      ++r.averaging_steps;
      ++r.rounds;  // a fresh set of clients every time
      r.participations += tau;
      const std::vector<int> sampled = draw_participants(n, tau, participation);
      Matrix sampled_uploads(x.rows(), tau);
      for (int a = 0; a < tau; ++a) {
        const int i = sampled[a];
        sampled_uploads.col(a) = compress(spec.uplink, x.col(i), client_streams[i]);
      }
      const Vector broadcast =
          compress(spec.downlink, sampled_uploads.rowwise().mean(), master_stream);
      for (int a = 0; a < tau; ++a)
        x.col(sampled[a]) -= theta_tau * (sampled_uploads.col(a) - broadcast);
    }
    previous_was_average = average;
    r.record(k + 1, x, x_lambda);
  }
  r.final_state = x;
  return r;
}

// L2SGD+ / L2GD+ / L2SGD++ / L2SGD chain (header: simulate_l2sgd_plus).
ChainRecord run_l2sgd_chain(const theory::Problem& problem, const L2sgdPlusSpec& spec,
                            const Matrix& x_lambda, const Matrix& x0, int chain) {
  const int n = problem.num_clients();
  const int d = problem.dim();
  const auto& s = spec.setting;
  const int tau = spec.working > 0 ? spec.working : n;
  const double work = static_cast<double>(tau) / n;     // q, THEORY (P7)
  const double beta = s.alpha / (n * (1 - s.p));        // THEORY (P2), local step
  const double theta = s.alpha * s.lambda / (n * s.p);  // THEORY (P2), averaging weight
  const double step = s.alpha / n;                      // α/n of the L2SGD+ update, THEORY (P7)
  const auto c = static_cast<std::uint64_t>(chain);
  Stream coin(spec.seed, Purpose::personalised, c);
  Stream workers(spec.seed, Purpose::personalised, c, 1);
  std::vector<Stream> index_streams;
  std::vector<Matrix> table;  // J_i, d × m_i (d × 1 for L2GD+)
  for (int i = 0; i < n; ++i) {
    index_streams.emplace_back(spec.seed, Purpose::gradient_noise, c, i);
    const int m = spec.full_local_gradients ? 1 : finite_sum_size(problem, i);
    table.push_back(Matrix::Zero(d, m));
  }
  Matrix psi = Matrix::Zero(d, n);  // Ψ_i, column i
  std::vector<char> working(n, 1);

  ChainRecord r;
  r.start(x0, x_lambda, spec.iterations);
  Matrix x = x0;
  bool previous_was_average = true;
  for (int k = 0; k < spec.iterations; ++k) {
    const bool average = coin.uniform() < s.p;
    if (!average) {
      if (tau < n) {
        std::fill(working.begin(), working.end(), 0);
        for (const int i : draw_participants(n, tau, workers)) working[i] = 1;
      }
      for (int i = 0; i < n; ++i) {
        if (!working[i]) {  // L2SGD++: an idle client moves by its memories only
          x.col(i) -= step * (table[i].rowwise().mean() + psi.col(i));
          continue;
        }
        const int m = static_cast<int>(table[i].cols());
        const int j =
            m == 1 ? 0 : std::min(m - 1, static_cast<int>(index_streams[i].uniform() * m));
        const Vector g = spec.full_local_gradients ? problem.gradient(i, x.col(i))
                                                   : sample_gradient(problem, i, j, x.col(i));
        if (!spec.variance_reduction) {
          x.col(i) -= beta * g;
          continue;
        }
        const Vector estimate =
            (g - table[i].col(j)) / (work * (1 - s.p)) + table[i].rowwise().mean() + psi.col(i);
        table[i].col(j) = g;
        x.col(i) -= step * estimate;
      }
    } else {
      ++r.averaging_steps;
      if (!previous_was_average) {
        ++r.rounds;
        r.participations += n;
      }
      const Vector x_bar = x.rowwise().mean();
      for (int i = 0; i < n; ++i) {
        if (!spec.variance_reduction) {
          x.col(i) -= theta * (x.col(i) - x_bar);
          continue;
        }
        const Vector pull = s.lambda * (x.col(i) - x_bar);  // λ(x_i − x̄), column i of λ∇ψ·n
        const Vector estimate = (pull - psi.col(i)) / s.p + table[i].rowwise().mean() + psi.col(i);
        psi.col(i) = pull;
        x.col(i) -= step * estimate;
      }
    }
    previous_was_average = average;
    r.record(k + 1, x, x_lambda);
  }
  r.final_state = x;
  return r;
}

namespace limits = theory::limits;

// The ranges and the memory budget of a run (docs/CLI.md, "Resource limits"); returns the number
// of OpenMP threads to use: the requested ones (0: all), at most one per chain.
int validate_common(const theory::Problem& problem, const theory::L2gdSetting& setting, int chains,
                    int iterations, int threads, std::int64_t memory_budget, bool finite_sums) {
  theory::validate(setting);
  if (chains < 2) throw InputError(fmt::format("--chains: need ≥ 2 (got {})", chains));
  if (iterations < 0) throw InputError(fmt::format("--rounds: need ≥ 0 (got {})", iterations));
  limits::require_range("--chains", chains, 2, limits::kMaxChains);
  limits::require_range("--rounds", iterations, 0, limits::kMaxRounds);
  limits::require_range("--threads", threads, 0, limits::kMaxThreads, "0: all");
  const int used = std::clamp(threads > 0 ? threads : omp_get_max_threads(), 1, chains);
  limits::require_memory("--chains, --rounds",
                         fmt::format("{} chains of {} iterations (d = {}, n = {})", chains,
                                     iterations, problem.dim(), problem.num_clients()),
                         l2gd_memory_bytes(problem, chains, iterations, used, finite_sums),
                         memory_budget);
  return used;
}

Matrix initial_state_or_zero(const theory::Problem& problem, const Matrix& given) {
  const int d = problem.dim();
  const int n = problem.num_clients();
  Matrix x0 = given.size() == 0 ? Matrix::Zero(d, n) : given;
  if (x0.rows() != d || x0.cols() != n) {
    throw InputError(fmt::format("initial_state: expected {}×{} (d×n)", d, n));
  }
  return x0;
}

// Reductions in chain order: independent of the thread count. A chain that left the finite
// numbers, or a summary that overflowed, marks the run diverged (one rule for every statistic:
// finite, or reported as diverged with where it happened).
void summarise(const std::vector<ChainRecord>& records, int iterations, L2gdSimulationResult& out) {
  const double k = static_cast<double>(records.size());
  const Eigen::Index d = records.front().final_state.rows();
  const Eigen::Index n = records.front().final_state.cols();
  out.mse_mean.assign(iterations + 1, 0.0);
  out.mse_se.assign(iterations + 1, 0.0);
  out.final_mean = Matrix::Zero(d, n);
  Matrix final_sq = Matrix::Zero(d, n);
  std::int64_t rounds = 0, averages = 0, participations = 0;
  for (std::size_t c = 0; c < records.size(); ++c) {
    const ChainRecord& r = records[c];
    for (int j = 0; j <= iterations; ++j) out.mse_mean[j] += r.error2[j] / k;
    out.final_mean += r.final_state / k;
    rounds += r.rounds;
    averages += r.averaging_steps;
    participations += r.participations;
    if (r.first_nonfinite >= 0 && !out.diverged) {
      out.diverged = true;
      out.divergence =
          fmt::format("chain {} diverged at iteration {}: |x^k - x(lambda)|^2 is not finite", c,
                      r.first_nonfinite);
    }
  }
  for (const ChainRecord& r : records) {
    for (int j = 0; j <= iterations; ++j) {
      const double dev = r.error2[j] - out.mse_mean[j];
      out.mse_se[j] += dev * dev;
    }
    final_sq += (r.final_state - out.final_mean).array().square().matrix();
  }
  for (double& v : out.mse_se) v = std::sqrt(v / (k - 1) / k);
  out.final_se = (final_sq / (k - 1) / k).array().sqrt().matrix();
  out.rounds_mean = static_cast<double>(rounds) / k;
  out.averaging_steps_mean = static_cast<double>(averages) / k;
  out.participations_mean = static_cast<double>(participations) / k;
  const auto all_finite = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
  };
  if (!out.diverged && (!all_finite(out.mse_mean) || !all_finite(out.mse_se) ||
                        !out.final_mean.allFinite() || !out.final_se.allFinite())) {
    out.diverged = true;
    out.divergence =
        "the mean square error over the chains overflows double precision (every chain stayed "
        "finite, but their spread does not fit in a double)";
  }
}

// Runs `chain(c)` for c = 0..chains − 1 on `threads` threads; records in chain order.
template <class Chain>
std::vector<ChainRecord> run_chains(int chains, int threads, const Chain& chain) {
  std::vector<ChainRecord> records(chains);
  ParallelErrors errors;
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int c = 0; c < chains; ++c) errors.run(c, [&] { records[c] = chain(c); });
  errors.rethrow();
  return records;
}

}  // namespace

std::int64_t l2gd_memory_bytes(const theory::Problem& problem, int chains, int iterations,
                               int threads, bool finite_sums) {
  using limits::saturating_add;
  using limits::saturating_mul;
  constexpr std::int64_t kDouble = sizeof(double);
  constexpr std::int64_t kSummaries = 2;        // mse_mean and mse_se
  constexpr std::int64_t kModelsPerThread = 3;  // x, the uploads and the stored averaging gradients
  const std::int64_t points = static_cast<std::int64_t>(iterations) + 1;
  const std::int64_t model = static_cast<std::int64_t>(problem.dim()) * problem.num_clients();
  std::int64_t table = 0;  // Σ_i m_i d
  if (finite_sums) {
    for (int i = 0; i < problem.num_clients(); ++i) {
      table = saturating_add(
          table, static_cast<std::int64_t>(finite_sum_size(problem, i)) * problem.dim());
    }
  }
  const std::int64_t records =
      saturating_mul(saturating_mul(chains, kDouble), saturating_add(points, model));
  const std::int64_t per_thread =
      saturating_mul(kDouble, saturating_add(table, kModelsPerThread * model));
  return saturating_add(saturating_add(records, saturating_mul(kSummaries * kDouble, points)),
                        saturating_mul(threads, per_thread));
}

L2gdSimulationResult simulate_l2gd(const theory::Problem& problem, const L2gdSimulationSpec& spec) {
  const auto start = std::chrono::steady_clock::now();
  const int threads = validate_common(problem, spec.setting, spec.chains, spec.iterations,
                                      spec.threads, spec.memory_budget, false);
  const int d = problem.dim();
  const int n = problem.num_clients();
  theory::validate(spec.uplink, d, "--uplink");
  theory::validate(spec.downlink, d, "--downlink");
  if (spec.participating != 0 && (spec.participating < 2 || spec.participating > n)) {
    throw InputError(
        fmt::format("--participating: need 2 ≤ τ ≤ n = {} (got {})", n, spec.participating));
  }
  const Matrix x0 = initial_state_or_zero(problem, spec.initial_state);

  L2gdSimulationResult out;
  out.x_lambda = theory::personalised_optimum(problem, spec.setting.lambda);
  const std::vector<ChainRecord> records = run_chains(
      spec.chains, threads, [&](int c) { return run_chain(problem, spec, out.x_lambda, x0, c); });

  summarise(records, spec.iterations, out);
  const std::int64_t bits_per_participation =
      compressed_bits(spec.uplink, d) + compressed_bits(spec.downlink, d);
  out.bits_mean = out.participations_mean * static_cast<double>(bits_per_participation);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

int finite_sum_size(const theory::Problem& problem, int client) {
  if (problem.kind() == theory::ProblemKind::logistic) {
    const auto& lg = dynamic_cast<const theory::LogisticProblem&>(problem);
    return static_cast<int>(lg.client(client).labels.size());
  }
  return 1;
}

double finite_sum_smoothness(const theory::Problem& problem) {
  if (problem.kind() == theory::ProblemKind::logistic) {
    const auto& lg = dynamic_cast<const theory::LogisticProblem&>(problem);
    double top = 0;
    for (int i = 0; i < lg.num_clients(); ++i) {
      top = std::max(top, lg.client(i).features.rowwise().squaredNorm().maxCoeff());
    }
    return top / 4 + lg.l2();  // φ'' ≤ 1/4                                          THEORY (§6)
  }
  return problem.smoothness();
}

Vector sample_gradient(const theory::Problem& problem, int client, int sample, const Vector& x) {
  if (problem.kind() == theory::ProblemKind::logistic) {
    // ∇f_ij(x) = φ′(y_j a_jᵀ x) y_j a_j + l2·x                                 THEORY (§6)
    const auto& lg = dynamic_cast<const theory::LogisticProblem&>(problem);
    const auto& cl = lg.client(client);
    const double y = cl.labels(sample);
    const Vector a = cl.features.row(sample).transpose();
    return theory::logistic_d1(y * a.dot(x)) * y * a + lg.l2() * x;
  }
  return problem.gradient(client, x);
}

L2gdSimulationResult simulate_l2sgd_plus(const theory::Problem& problem,
                                         const L2sgdPlusSpec& spec) {
  const auto start = std::chrono::steady_clock::now();
  const int threads =
      validate_common(problem, spec.setting, spec.chains, spec.iterations, spec.threads,
                      spec.memory_budget, spec.variance_reduction && !spec.full_local_gradients);
  const int n = problem.num_clients();
  if (spec.working != 0 && (spec.working < 1 || spec.working > n)) {
    throw InputError(fmt::format("--participating: need 1 ≤ τ ≤ n = {} (got {})", n, spec.working));
  }
  if (spec.working != 0 && !spec.variance_reduction) {
    throw InputError("--participating: working sets need the control variates (l2sgd++)");
  }
  const Matrix x0 = initial_state_or_zero(problem, spec.initial_state);

  L2gdSimulationResult out;
  out.x_lambda = theory::personalised_optimum(problem, spec.setting.lambda);
  const std::vector<ChainRecord> records = run_chains(spec.chains, threads, [&](int c) {
    return run_l2sgd_chain(problem, spec, out.x_lambda, x0, c);
  });
  summarise(records, spec.iterations, out);
  constexpr std::int64_t kBitsPerParticipation = 3 * 64;  // up x_i, J̄_i; down x̄ (per coordinate)
  out.bits_mean =
      out.participations_mean * static_cast<double>(kBitsPerParticipation) * problem.dim();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace fedverify::estimators
