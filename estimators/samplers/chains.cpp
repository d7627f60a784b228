#include "estimators/samplers/chains.hpp"

#include <fmt/format.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "estimators/samplers/logistic_kernel.hpp"
#include "theory/base/input_error.hpp"
#include "theory/problems/logistic_problem.hpp"
#include "theory/problems/optimum.hpp"
#include "theory/problems/quadratic_problem.hpp"

namespace fedverify::estimators {

namespace {

using theory::Algorithm;

// Chains per block = one AVX-512 vector of doubles. Inside a block the layout is
// coordinate-major (element (i, lane) at i·kLanes + lane), so every loop over lanes is one SIMD
// instruction and every chain executes exactly the same instructions whatever block it is in.
// Chosen, not measured against alternatives: 8 lanes with 8-row register blocking keeps 8
// independent FMA accumulators, and unlike Eigen's GEMM on d×K panels (whose kernels change
// the summation order with the panel width) it cannot make chain k depend on K.
constexpr int kLanes = 8;

using LaneVector = Eigen::Array<double, kLanes, 1>;

// Scratch memory of one block (one per thread).
struct Workspace {
  std::vector<double> y, x, sum, total, corr, noise, draws, rows, server, delta;
  std::vector<double> y_pair, corr_pair;  // the second client of a pair
  std::vector<std::uint32_t> indices, indices_pair;
};

void resize(std::vector<double>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}

// --- Local steps on one block -----------------------------------------------------------------

class LocalSampler {
 public:
  virtual ~LocalSampler() = default;
  // H local steps of `client` on the block y (d × kLanes lanes, in place): y ← y − γ(g(y) + ξ),
  // ξ = correction (d × kLanes) or none. `address.chain` is the block's first chain; lanes ≥
  // active are idle (their results are discarded). Randomness: stream (…, chain + lane, …).
  virtual void local_steps(int client, BatchAddress address, int active, double gamma, int steps,
                           double* y, const double* correction, Workspace& ws) const = 0;
  // The same for clients `client` and `client` + 1 on the same block (y, correction for the
  // first; y_next, correction_next for the second). Results: those of two local_steps calls.
  virtual void local_steps_pair(int client, BatchAddress address, int active, double gamma,
                                int steps, double* y, const double* correction, double* y_next,
                                const double* correction_next, Workspace& ws) const {
    local_steps(client, address, active, gamma, steps, y, correction, ws);
    address.client += 1;
    local_steps(client + 1, address, active, gamma, steps, y_next, correction_next, ws);
  }
};

// acc(r, ·) = −(A b)_{i0+r} + Σ_k A_{i0+r,k} y_k + Σ_k R_{i0+r,k} z_k for ROWS rows at once:
// ROWS independent accumulators hide the FMA latency and each loaded y_k / z_k is used ROWS
// times. The order of the sums is the same for every ROWS, so the split does not change results.
template <int ROWS>
void quadratic_rows(int d, int i0, const double* a, const double* r, const double* ab,
                    const double* y, const double* z, double* g) {
  LaneVector acc[ROWS];
  for (int q = 0; q < ROWS; ++q) acc[q].setConstant(-ab[i0 + q]);
  for (int k = 0; k < d; ++k) {
    const Eigen::Map<const LaneVector> yk(y + k * kLanes);
    for (int q = 0; q < ROWS; ++q) acc[q] += a[(i0 + q) * d + k] * yk;
  }
  if (z != nullptr) {
    for (int k = 0; k < d; ++k) {
      const Eigen::Map<const LaneVector> zk(z + k * kLanes);
      for (int q = 0; q < ROWS; ++q) acc[q] += r[(i0 + q) * d + k] * zk;
    }
  }
  for (int q = 0; q < ROWS; ++q) Eigen::Map<LaneVector>(g + (i0 + q) * kLanes) = acc[q];
}

class QuadraticSampler final : public LocalSampler {
 public:
  explicit QuadraticSampler(const theory::QuadraticProblem& p) : d_(p.dim()) {
    for (int c = 0; c < p.num_clients(); ++c) {
      const auto& cl = p.client(c);
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      const RowMajor a = cl.hessian;
      const RowMajor r = p.noise_factor(c);
      a_.emplace_back(a.data(), a.data() + a.size());
      r_.emplace_back(r.data(), r.data() + r.size());
      const Vector ab = cl.hessian * cl.optimum;
      ab_.emplace_back(ab.data(), ab.data() + ab.size());
      noisy_.push_back(r.cwiseAbs().maxCoeff() > 0.0);
    }
  }

  void local_steps(int client, BatchAddress address, int active, double gamma, int steps, double* y,
                   const double* correction, Workspace& ws) const override {
    const int d = d_;
    const double* a = a_[client].data();
    const double* r = r_[client].data();
    const double* ab = ab_[client].data();
    // Noise of the whole round: chain's normals (step h, coordinate i) at position h·d + i.
    double* z = nullptr;
    if (noisy_[client]) {
      resize(ws.noise, static_cast<std::size_t>(steps) * d * kLanes);
      resize(ws.draws, static_cast<std::size_t>(steps) * d);
      z = ws.noise.data();
      const std::uint32_t first = address.chain;
      for (int lane = 0; lane < kLanes; ++lane) {
        if (lane < active) {
          address.chain = first + static_cast<std::uint32_t>(lane);
          normals_into(address, ws.draws.data(), steps * d);
          for (int j = 0; j < steps * d; ++j) z[j * kLanes + lane] = ws.draws[j];
        } else {
          for (int j = 0; j < steps * d; ++j) z[j * kLanes + lane] = 0.0;
        }
      }
    }
    resize(ws.sum, static_cast<std::size_t>(d) * kLanes);  // holds the gradient g
    double* g = ws.sum.data();
    for (int h = 0; h < steps; ++h) {
      const double* zh = z == nullptr ? nullptr : z + static_cast<std::size_t>(h) * d * kLanes;
      // Stochastic gradient A_c(y − b_c) + R_c z.                            THEORY (F0), (F5)
      int i0 = 0;
      for (; i0 + 8 <= d; i0 += 8) quadratic_rows<8>(d, i0, a, r, ab, y, zh, g);
      if (i0 + 4 <= d) quadratic_rows<4>(d, i0, a, r, ab, y, zh, g), i0 += 4;
      if (i0 + 2 <= d) quadratic_rows<2>(d, i0, a, r, ab, y, zh, g), i0 += 2;
      if (i0 + 1 <= d) quadratic_rows<1>(d, i0, a, r, ab, y, zh, g), i0 += 1;
      take_step(d, gamma, g, correction, y);
    }
  }

  // y ← y − γ(g + ξ).
  static void take_step(int d, double gamma, const double* g, const double* correction, double* y) {
    const int n = d * kLanes;
    if (correction != nullptr) {
      for (int j = 0; j < n; ++j) y[j] -= gamma * (g[j] + correction[j]);
    } else {
      for (int j = 0; j < n; ++j) y[j] -= gamma * g[j];
    }
  }

 private:
  int d_;
  std::vector<std::vector<double>> a_, r_, ab_;  // A_c and R_c row-major, A_c b_c
  std::vector<bool> noisy_;
};

// Logistic regression on the signed rows: the fused kernel of
// estimators/samplers/logistic_kernel.hpp.
class LogisticSampler final : public LocalSampler {
 public:
  static_assert(simd::kPackLanes == kLanes, "the kernel works on blocks of kLanes chains");

  explicit LogisticSampler(const theory::LogisticProblem& p)
      : d_(p.dim()), l2_(p.l2()), batch_(p.batch_size()) {
    for (int c = 0; c < p.num_clients(); ++c) {
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      // Signed rows ã_j = y_j a_j (y_j = ±1, so the products are exact): the gradient term
      // φ'(y aᵀx) y a = −ã / (1 + e^{ãᵀx}) then needs no label.                THEORY (§6)
      const RowMajor f = p.client(c).labels.asDiagonal() * p.client(c).features;
      std::vector<double> table(f.data(), f.data() + f.size());
      table.resize(table.size() + simd::kRowPadding, 0.0);  // the kernel's row loads read past
      features_.push_back(std::move(table));
      samples_.push_back(static_cast<int>(f.rows()));
    }
  }

  void local_steps(int client, BatchAddress address, int /*active*/, double gamma, int steps,
                   double* y, const double* correction, Workspace& ws) const override {
    simd::logistic_local_steps(block(client, address, gamma, steps, ws.indices), y, correction);
  }

  void local_steps_pair(int client, BatchAddress address, int /*active*/, double gamma, int steps,
                        double* y, const double* correction, double* y_next,
                        const double* correction_next, Workspace& ws) const override {
    const simd::LogisticBlock first = block(client, address, gamma, steps, ws.indices);
    address.client += 1;
    const simd::LogisticBlock second = block(client + 1, address, gamma, steps, ws.indices_pair);
    simd::logistic_local_steps_pair(first, y, correction, second, y_next, correction_next);
  }

 private:
  // The kernel's view of one client's round on one block. Minibatch indices of the whole round,
  // lane-interleaved: chain first + l's index (step h, draw b) at (h·B + b)·kLanes + l, from that
  // chain's own stream (idle lanes draw from the streams of the chains past the end; their
  // results are discarded), stored as row offsets j·d in `offsets`.
  simd::LogisticBlock block(int client, const BatchAddress& address, double gamma, int steps,
                            std::vector<std::uint32_t>& offsets) const {
    const int per_chain = steps * batch_;
    offsets.resize(static_cast<std::size_t>(per_chain) * kLanes);
    indices_across_chains<kLanes>(address, static_cast<std::uint32_t>(samples_[client]),
                                  offsets.data(), per_chain);
    for (auto& o : offsets) o *= static_cast<std::uint32_t>(d_);
    simd::LogisticBlock b;
    b.table = features_[client].data();
    b.offsets = offsets.data();
    b.dim = d_;
    b.steps = steps;
    b.batch = batch_;
    b.gamma = gamma;
    b.l2 = l2_;
    return b;
  }

  int d_;
  double l2_;
  int batch_;
  std::vector<std::vector<double>> features_;  // signed rows ã_j, row-major n_c × d, padded
  std::vector<int> samples_;                   // n_c
};

std::unique_ptr<LocalSampler> make_sampler(const theory::Problem& problem) {
  switch (problem.kind()) {
    case theory::ProblemKind::quadratic:
      return std::make_unique<QuadraticSampler>(
          dynamic_cast<const theory::QuadraticProblem&>(problem));
    case theory::ProblemKind::logistic:
      return std::make_unique<LogisticSampler>(
          dynamic_cast<const theory::LogisticProblem&>(problem));
  }
  throw InputError("--problem: unsupported problem kind");
}

// Block ↔ lanes (zero-padded idle lanes).
void load_lanes(const Matrix& m, int first, int active, double* lanes) {
  const int d = static_cast<int>(m.rows());
  for (int lane = 0; lane < kLanes; ++lane) {
    for (int i = 0; i < d; ++i) lanes[i * kLanes + lane] = lane < active ? m(i, first + lane) : 0.0;
  }
}

void store_lanes(const double* lanes, int first, int active, Matrix& m) {
  const int d = static_cast<int>(m.rows());
  for (int lane = 0; lane < active; ++lane) {
    for (int i = 0; i < d; ++i) m(i, first + lane) = lanes[i * kLanes + lane];
  }
}

}  // namespace

std::string Divergence::describe() const {
  if (!diverged) return {};
  return fmt::format("chain {} diverged in round {}: |x| = {} (limit {})", chain, round, norm,
                     radius);
}

double default_divergence_radius(const theory::Problem& problem, const Matrix& initial) {
  const double start = initial.cols() > 0 ? initial.colwise().norm().maxCoeff() : 0.0;
  return kDivergenceFactor * (1.0 + theory::minimizer(problem).norm() + start);
}

// One FedAvg / Scaffold run (FedRR has two).
struct Run {
  double gamma = 0;
  Purpose purpose = Purpose::gradient_noise;
  Matrix x;                       // d×K
  Matrix server;                  // Scaffold: server variate c, d×K
  std::vector<Matrix> client_cv;  // Scaffold: client variates c_i, d×K each
};

struct ChainEnsemble::Impl {
  const theory::Problem* problem = nullptr;
  SamplerOptions options;
  std::unique_ptr<LocalSampler> sampler;
  std::vector<Run> runs;
  Matrix chi;  // FedRR's 2 x^{(γ)} − x^{(2γ)}
  int d = 0, k = 0, n = 0, rounds = 0;
  Divergence divergence;
  ChainStepCount steps = 0;
  // advance_recording's buffers, kept between calls: the states of one chunk, and the runs at its
  // start (to replay it).
  std::vector<Matrix> chunk_states;
  std::vector<Run> chunk_start;

  bool scaffold() const { return options.algorithm == Algorithm::scaffold; }
  int blocks() const { return (k + kLanes - 1) / kLanes; }
  // Threads for a parallel pass over the blocks (0: all), at most one per block.
  int threads_for(int requested) const {
    return std::max(1, std::min(requested > 0 ? requested : omp_get_max_threads(), blocks()));
  }
  // Chain-steps of one run in one round: K chains × N clients × H local steps.
  ChainStepCount steps_per_run_round() const {
    return static_cast<ChainStepCount>(k) * n * options.step.local_steps;
  }

  // Round `round` (0-based) of one run on chains [first, first + active); returns the first bad
  // lane or −1.
  int round_block(Run& run, int round, int first, int active, Workspace& ws) const;

  // The state that state() shows, columns [first, first + active): x, or FedRR's χ = 2x_γ − x_2γ
  // (THEORY R0; 2x is exact, so the one rounding is that of the subtraction).
  void write_state(int first, int active, Matrix& out) const {
    if (options.algorithm != Algorithm::fedrr) {
      out.middleCols(first, active) = runs.front().x.middleCols(first, active);
      return;
    }
    for (int j = first; j < first + active; ++j) {
      for (int i = 0; i < d; ++i) out(i, j) = 2.0 * runs[0].x(i, j) - runs[1].x(i, j);
    }
  }

  // Rounds per chunk of advance_recording: as many as 32, within kChunkBytes of recorded states.
  int chunk_rounds() const {
    constexpr double kChunkBytes = 64.0 * 1024 * 1024;
    const double per_round = 8.0 * d * k;
    return static_cast<int>(std::clamp(kChunkBytes / per_round, 1.0, 32.0));
  }
};

int ChainEnsemble::Impl::round_block(Run& run, int round, int first, int active,
                                     Workspace& ws) const {
  const std::size_t size = static_cast<std::size_t>(d) * kLanes;
  resize(ws.x, size);
  resize(ws.y, size);
  resize(ws.corr, size);
  resize(ws.server, size);
  resize(ws.delta, size);
  resize(ws.total, size);
  resize(ws.y_pair, size);
  resize(ws.corr_pair, size);
  double* total = ws.total.data();
  std::fill(total, total + size, 0.0);
  double* x = ws.x.data();
  double* y = ws.y.data();
  load_lanes(run.x, first, active, x);
  const int h_steps = options.step.local_steps;
  const double gamma = run.gamma;
  const bool cv = scaffold();
#ifdef FEDVERIFY_PLANTED_ERRORS
  const ScaffoldBug bug = options.scaffold_bug;
#endif
  if (cv) {
    load_lanes(run.server, first, active, ws.server.data());
    std::fill(ws.delta.begin(), ws.delta.begin() + static_cast<std::ptrdiff_t>(size), 0.0);
  }
  BatchAddress address{options.seed, run.purpose, static_cast<std::uint32_t>(first), 0,
                       static_cast<std::uint32_t>(round)};
  // Clients in pairs (0, 1), (2, 3), …: the sampler may interleave the two (the logistic kernel
  // does); the results, and the order in which they are summed, are those of one at a time.
  // prepare: y ← x and, for Scaffold, ξ_c = c − c_i (THEORY S0 in the control-variate form of
  // Karimireddy et al.); returns ξ_c or nullptr.
  auto prepare = [&](int c, double* yc, std::vector<double>& corr) -> const double* {
    std::copy(x, x + size, yc);
    if (!cv) return nullptr;
    load_lanes(run.client_cv[c], first, active, corr.data());
    for (std::size_t j = 0; j < size; ++j) {
      double xi = ws.server[j] - corr[j];
#ifdef FEDVERIFY_PLANTED_ERRORS
      if (bug == ScaffoldBug::correction_sign_flipped) xi = -xi;  // g − c + c_i
#endif
      corr[j] = xi;
    }
    return corr.data();
  };
  auto finish = [&](int c, const double* yc) {
    for (std::size_t j = 0; j < size; ++j) total[j] += yc[j];
    if (!cv) return;
    // c_i⁺ = c_i − c + (x − y_i)/(Hγ); the server accumulates Σ_i (c_i⁺ − c_i).
    load_lanes(run.client_cv[c], first, active, ws.corr.data());
    const double inv = 1.0 / (h_steps * gamma);
    for (std::size_t j = 0; j < size; ++j) {
      const double updated = ws.corr[j] - ws.server[j] + (x[j] - yc[j]) * inv;
      double increment = updated - ws.corr[j];
#ifdef FEDVERIFY_PLANTED_ERRORS
      if (bug == ScaffoldBug::server_adds_new_variate) increment = updated;
#endif
      ws.delta[j] += increment;
      ws.corr[j] = updated;
    }
    store_lanes(ws.corr.data(), first, active, run.client_cv[c]);
  };
  double* y_next = ws.y_pair.data();
  for (int c = 0; c < n; c += 2) {
    address.client = static_cast<std::uint32_t>(c);
    const double* correction = prepare(c, y, ws.corr);
    if (c + 1 < n) {
      const double* correction_next = prepare(c + 1, y_next, ws.corr_pair);
      sampler->local_steps_pair(c, address, active, gamma, h_steps, y, correction, y_next,
                                correction_next, ws);
      finish(c, y);
      finish(c + 1, y_next);
    } else {
      sampler->local_steps(c, address, active, gamma, h_steps, y, correction, ws);
      finish(c, y);
    }
  }
  // x_{t+1} = (1/N) Σ_c y_c; Scaffold: c ← c + (1/N) Σ_i (c_i⁺ − c_i).      THEORY (F0), (S0)
  for (std::size_t j = 0; j < size; ++j) x[j] = total[j] / n;
  store_lanes(x, first, active, run.x);
  if (cv) {
    for (std::size_t j = 0; j < size; ++j) ws.server[j] += ws.delta[j] / n;
    store_lanes(ws.server.data(), first, active, run.server);
  }
  // Divergence: non-finite state or ‖x‖ beyond the radius.
  for (int lane = 0; lane < active; ++lane) {
    double norm2 = 0.0;
    bool finite = true;
    for (int i = 0; i < d; ++i) norm2 += x[i * kLanes + lane] * x[i * kLanes + lane];
    if (cv) {
      for (int i = 0; i < d; ++i) finite = finite && std::isfinite(ws.server[i * kLanes + lane]);
    }
    if (!finite || !(std::sqrt(norm2) <= options.divergence_radius)) return lane;
  }
  return -1;
}

ChainEnsemble::ChainEnsemble(const theory::Problem& problem, const SamplerOptions& options,
                             const Matrix& initial)
    : impl_(std::make_unique<Impl>()) {
  theory::validate(options.algorithm, options.step);
  if (initial.rows() != problem.dim() || initial.cols() < 1) {
    throw InputError(
        fmt::format("initial_state: expected {} rows and at least one chain, got {}×{}",
                    problem.dim(), initial.rows(), initial.cols()));
  }
  if (!initial.allFinite()) throw InputError("initial_state: not finite");
  if (initial.cols() > std::numeric_limits<std::int32_t>::max() / 2) {
    throw InputError("--chains: too many chains");
  }
  Impl& m = *impl_;
  m.problem = &problem;
  m.options = options;
  if (!(options.divergence_radius >= 0.0)) {
    throw InputError("divergence_radius: must be >= 0");
  }
  if (options.divergence_radius == 0.0) {
    m.options.divergence_radius = default_divergence_radius(problem, initial);
  }
  m.sampler = make_sampler(problem);
  m.d = problem.dim();
  m.k = static_cast<int>(initial.cols());
  m.n = problem.num_clients();
  const double gamma = options.step.gamma;
  m.runs.push_back(Run{gamma, Purpose::gradient_noise, initial, {}, {}});
  if (options.algorithm == Algorithm::fedrr) {
    // THEORY (R0): the second run at 2γ, with independent noise unless shared is asked for.
    const Purpose second = options.coupling == theory::NoiseCoupling::independent
                               ? Purpose::second_run
                               : Purpose::gradient_noise;
    m.runs.push_back(Run{2.0 * gamma, second, initial, {}, {}});
    m.chi = initial;
  }
  if (m.scaffold()) {
    Run& run = m.runs.front();
    run.server = Matrix::Zero(m.d, m.k);
    run.client_cv.assign(m.n, Matrix::Zero(m.d, m.k));
#ifdef FEDVERIFY_PLANTED_ERRORS
    if (options.scaffold_bug == ScaffoldBug::random_control_init) {
      std::vector<double> draws(m.d);
      for (int c = 0; c < m.n; ++c) {
        for (int chain = 0; chain < m.k; ++chain) {
          normals_into({options.seed, Purpose::initial_state, static_cast<std::uint32_t>(chain),
                        static_cast<std::uint32_t>(c), 0},
                       draws.data(), m.d);
          for (int i = 0; i < m.d; ++i) run.client_cv[c](i, chain) = draws[i];
        }
      }
    }
#endif
  }
}

ChainEnsemble::ChainEnsemble(const theory::Problem& problem, const SamplerOptions& options,
                             const Vector& initial, int chains)
    : ChainEnsemble(problem, options, [&] {
        if (chains < 1) {
          throw InputError(fmt::format("--chains: must be >= 1, got {}", chains));
        }
        if (initial.size() != problem.dim()) {
          throw InputError(fmt::format("initial_state: expected {} entries, got {}", problem.dim(),
                                       initial.size()));
        }
        return Matrix(initial.replicate(1, chains));
      }()) {}

ChainEnsemble::~ChainEnsemble() = default;
ChainEnsemble::ChainEnsemble(ChainEnsemble&&) noexcept = default;
ChainEnsemble& ChainEnsemble::operator=(ChainEnsemble&&) noexcept = default;

int ChainEnsemble::dim() const { return impl_->d; }
int ChainEnsemble::chains() const { return impl_->k; }
int ChainEnsemble::num_clients() const { return impl_->n; }
int ChainEnsemble::rounds_done() const { return impl_->rounds; }
const SamplerOptions& ChainEnsemble::options() const { return impl_->options; }
const Matrix& ChainEnsemble::state() const {
  return impl_->options.algorithm == Algorithm::fedrr ? impl_->chi : impl_->runs.front().x;
}
const Matrix& ChainEnsemble::run(int which) const { return impl_->runs.at(which).x; }
const Divergence& ChainEnsemble::divergence() const { return impl_->divergence; }
ChainStepCount ChainEnsemble::chain_steps() const { return impl_->steps; }

Matrix ChainEnsemble::control_variate(int client) const {
  const Impl& m = *impl_;
  if (!m.scaffold()) throw InputError("control_variate: only Scaffold has control variates");
  const Run& run = m.runs.front();
  return run.server - run.client_cv.at(client);
}

Matrix ChainEnsemble::stacked_state() const {
  const Impl& m = *impl_;
  Matrix z(m.d * (m.n + 1), m.k);
  z.topRows(m.d) = m.runs.front().x;
  for (int c = 0; c < m.n; ++c) z.middleRows(m.d * (1 + c), m.d) = control_variate(c);
  return z;
}

bool ChainEnsemble::advance(int threads) {
  Impl& m = *impl_;
  if (m.divergence.diverged) return false;
  const int blocks = m.blocks();
  const int p = m.threads_for(threads);
  for (Run& run : m.runs) {
    // First bad chain per block; the minimum over blocks does not depend on scheduling.
    std::vector<int> bad(blocks, -1);
#pragma omp parallel num_threads(p) if (p > 1)
    {
      Workspace ws;
#pragma omp for schedule(static)
      for (int b = 0; b < blocks; ++b) {
        const int first = b * kLanes;
        const int lane = m.round_block(run, m.rounds, first, std::min(kLanes, m.k - first), ws);
        if (lane >= 0) bad[b] = first + lane;
      }
    }
    m.steps += m.steps_per_run_round();
    for (int b = 0; b < blocks; ++b) {
      if (bad[b] >= 0) {
        m.divergence = {true, m.rounds + 1, bad[b], run.x.col(bad[b]).norm(),
                        m.options.divergence_radius};
        break;
      }
    }
  }
  m.rounds += 1;
  if (m.options.algorithm == Algorithm::fedrr) m.write_state(0, m.k, m.chi);
  return !m.divergence.diverged;
}

int ChainEnsemble::advance_recording(int rounds, int threads, const StateRecorder& record) {
  Impl& m = *impl_;
  const int blocks = m.blocks();
  const int p = m.threads_for(threads);
  int done = 0;
  auto one_round = [&] {  // the round-by-round path; false once a chain has diverged
    if (m.divergence.diverged) return false;
    const bool ok = advance(p);
    ++done;
    if (ok) record(m.rounds, state());
    return ok;
  };
  if (p == 1) {
    while (done < rounds && one_round()) {
    }
    return done;
  }
  while (done < rounds && !m.divergence.diverged) {
    const int chunk = std::min(rounds - done, m.chunk_rounds());
    m.chunk_start = m.runs;  // to replay the chunk if a chain diverges in it
    std::vector<Matrix>& states = m.chunk_states;
    if (static_cast<int>(states.size()) < chunk) states.resize(chunk, Matrix(m.d, m.k));
    std::vector<int> first_bad_round(blocks, chunk);
#pragma omp parallel num_threads(p)
    {
      Workspace ws;
#pragma omp for schedule(dynamic, 4)  // blocks are independent: any thread, same numbers
      for (int b = 0; b < blocks; ++b) {
        const int first = b * kLanes;
        const int active = std::min(kLanes, m.k - first);
        for (int r = 0; r < chunk; ++r) {
          bool bad = false;
          for (Run& run : m.runs)
            bad = m.round_block(run, m.rounds + r, first, active, ws) >= 0 || bad;
          m.write_state(first, active, states[r]);
          if (bad) {
            first_bad_round[b] = r;
            break;
          }
        }
      }
    }
    const int bad_round = *std::min_element(first_bad_round.begin(), first_bad_round.end());
    if (bad_round < chunk) {
      // Replay up to the bad round round by round: divergence() and the state at the stop are
      // then exactly those of advance().
      m.runs = m.chunk_start;
      for (int r = 0; r <= bad_round && one_round(); ++r) {
      }
      return done;
    }
    m.steps += static_cast<ChainStepCount>(m.runs.size()) * chunk * m.steps_per_run_round();
    for (int r = 0; r < chunk; ++r) record(m.rounds + r + 1, states[r]);
    m.rounds += chunk;
    done += chunk;
    if (m.options.algorithm == Algorithm::fedrr) m.chi = states[chunk - 1];
  }
  return done;
}

int ChainEnsemble::advance(int rounds, int threads, const RoundCallback& after_round) {
  int done = 0;
  while (done < rounds) {
    const bool ok = advance(threads);
    ++done;
    if (!ok) break;
    if (after_round && !after_round(*this)) break;
  }
  return done;
}

}  // namespace fedverify::estimators
