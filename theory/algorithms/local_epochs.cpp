// FedAvg's exact stationary law under the problem's sample order (THEORY (A4)); see
// local_epochs.hpp.
#include "theory/algorithms/local_epochs.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "theory/base/input_error.hpp"
#include "theory/closed_forms/augmented_moments.hpp"
#include "theory/problems/fedopt_setting.hpp"

namespace fedverify::theory {

namespace {

// The same about `origin`: A_k (x − o) − (b_k − A_k o) is the field at x.
SampleField sample_field(const LinearSaProblem& p, int c, int k, const Vector& origin) {
  SampleField f = sample_field(p, c, k);
  f.b -= f.a * origin;
  return f;
}

// G_S = [[I − γĀ_S, γb̄_S], [0, 1]] for the batch of samples `batch` (a bit set).
Matrix batch_step(const std::vector<SampleField>& fields, std::uint32_t batch, double gamma) {
  const Eigen::Index d = fields.front().b.size();
  Matrix g = Matrix::Identity(d + 1, d + 1);
  const double w = gamma / std::popcount(batch);
  for (std::size_t k = 0; k < fields.size(); ++k) {
    if ((batch >> k & 1U) == 0) continue;
    g.topLeftCorner(d, d) -= w * fields[k].a;
    g.topRightCorner(d, 1) += w * fields[k].b;
  }
  return g;
}

// The B-subsets of {0 … n − 1} (bit sets), in increasing order.
std::vector<std::uint32_t> batches_of(int n, int b) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t s = 0; s < (std::uint32_t{1} << n); ++s) {
    if (std::popcount(s) == b) out.push_back(s);
  }
  return out;
}

// E over a reshuffled pass cut after r batches of the product X_{S_r} ⋯ X_{S_1}, for X = G
// (second = false) or G ⊗ G: the sum over every ordered choice of r disjoint batches, by levels of
// the set of samples drawn (W(U ∪ S) += X_S W(U)), divided by their number.
Matrix reshuffled_pass(const std::vector<SampleField>& fields, int batch, int r, double gamma,
                       bool second) {
  const int n = static_cast<int>(fields.size());
  const std::vector<std::uint32_t> batches = batches_of(n, batch);
  std::vector<Matrix> lift(batches.size());
  for (std::size_t i = 0; i < batches.size(); ++i) {
    const Matrix g = batch_step(fields, batches[i], gamma);
    lift[i] = second ? kron(g, g) : g;
  }
  const Eigen::Index size = lift.front().rows();
  std::vector<Matrix> level(std::size_t{1} << n);
  level[0] = Matrix::Identity(size, size);
  std::vector<std::uint32_t> sets = {0};
  double orders = 1;  // ordered choices of the batches so far
  for (int step = 0; step < r; ++step) {
    std::vector<Matrix> next(level.size());
    std::vector<std::uint32_t> next_sets;
    int choices = 0;
    for (const std::uint32_t u : sets) {
      choices = 0;
      for (std::size_t i = 0; i < batches.size(); ++i) {
        if ((batches[i] & u) != 0) continue;
        ++choices;
        const std::uint32_t v = u | batches[i];
        if (next[v].size() == 0) {
          next[v] = lift[i] * level[u];
          next_sets.push_back(v);
        } else {
          next[v].noalias() += lift[i] * level[u];
        }
      }
    }
    orders *= choices;
    level = std::move(next);
    sets = std::move(next_sets);
  }
  Matrix sum = Matrix::Zero(size, size);
  for (const std::uint32_t u : sets) sum += level[u];
  return sum / orders;
}

void require_enumerable(const LinearSaProblem& p, int c) {
  const int n = p.num_samples(c);
  const double size = std::pow(p.dim() + 1.0, 2);
  const double flops = std::ldexp(1.0, n) * n * 2 * size * size * size;
  if (n > kMaxEnumeratedSamples || flops > kMaxEnumerationFlops) {
    throw InputError(fmt::format(
        "sampling: the exact law under reshuffling enumerates the 2^n_c sets of a pass; "
        "clients[{}] "
        "has n_c = {} samples in d = {} (at most {} samples and {:.0e} flops; simulate instead)",
        c, n, p.dim(), kMaxEnumeratedSamples, kMaxEnumerationFlops));
  }
}

void require_plain_fedavg(const LinearSaProblem& p, const RunSetting& s) {
  if (server_sgd(s).augmented()) {
    throw InputError("--server: the exact law under a sample order has no server momentum");
  }
  if (client_prox(s) != 0.0) {
    throw InputError("--client: the exact law under a sample order is for client sgd");
  }
  if (participating_clients(s, p.num_clients()) != p.num_clients()) {
    throw InputError("--participating: the exact law under a sample order needs every client");
  }
}

}  // namespace

SampleField sample_field(const LinearSaProblem& p, int c, int k) {
  if (!p.least_squares()) return {p.client(c).samples[k].a, p.client(c).samples[k].b};
  const Vector a = p.ls_client(c).features.row(k).transpose();
  Matrix aa = a * a.transpose();
  aa.diagonal().array() += p.l2();
  return {aa, p.ls_client(c).targets(k) * a};
}

ClientRoundMoments client_round_moments(const LinearSaProblem& p, int c, double gamma, int steps,
                                        const Vector& origin) {
  const int n = p.num_samples(c);
  std::vector<SampleField> fields;
  fields.reserve(static_cast<std::size_t>(n));
  for (int k = 0; k < n; ++k) fields.push_back(sample_field(p, c, k, origin));
  const int b = p.batch_size();
  if (!p.reshuffled()) {
    // Independent steps: E[Ḡ] = E[G], E[Ḡ ⊗ Ḡ] = (1/B)E[G ⊗ G] + (1 − 1/B)E[G] ⊗ E[G].  (L1)
    const Eigen::Index d1 = p.dim() + 1;
    Matrix g = Matrix::Zero(d1, d1);
    Matrix gg = Matrix::Zero(d1 * d1, d1 * d1);
    for (int k = 0; k < n; ++k) {
      const double pk = p.least_squares() ? 1.0 / n : p.probabilities(c)(k);
      const Matrix gk = batch_step(fields, std::uint32_t{1} << k, gamma);
      g += pk * gk;
      gg += pk * kron(gk, gk);
    }
    const Matrix step_second = gg / b + (1.0 - 1.0 / b) * kron(g, g);
    return {matrix_power(g, steps), matrix_power(step_second, steps)};
  }
  require_enumerable(p, c);
  // H = qk + r steps: q whole passes, then r batches of a fresh one (passes independent).  (A4)
  const int k = n / b;
  const int q = steps / k, r = steps % k;
  ClientRoundMoments out;
  for (const bool second : {false, true}) {
    const Matrix whole = reshuffled_pass(fields, b, k, gamma, second);
    Matrix m = matrix_power(whole, q);
    if (r > 0) m = reshuffled_pass(fields, b, r, gamma, second) * m;
    (second ? out.second : out.mean) = m;
  }
  return out;
}

ExactMoments fedavg_local_order_exact(const LinearSaProblem& p, const RunSetting& s) {
  require_plain_fedavg(p, s);
  const double eta = server_sgd(s).lr;
  const int d = p.dim();
  const Eigen::Index d1 = d + 1, n2 = d1 * d1;
  const Matrix id = Matrix::Identity(d1, d1);
  Matrix mean_map = Matrix::Zero(d1, d1);  // M̄ = Σ_c p_c E[Z_c]
  Matrix spread = Matrix::Zero(n2, n2);    // Σ_c p_c² (E[Z_c ⊗ Z_c] − E[Z_c] ⊗ E[Z_c])
  for (int c = 0; c < p.num_clients(); ++c) {
    const ClientRoundMoments y = client_round_moments(p, c, s.gamma, s.local_steps, p.solution());
    // Z_c = η_g Y_c + (1 − η_g) I.
    const Matrix z = eta * y.mean + (1.0 - eta) * id;
    const Matrix zz = eta * eta * y.second +
                      eta * (1.0 - eta) * (kron(y.mean, id) + kron(id, y.mean)) +
                      (1.0 - eta) * (1.0 - eta) * kron(id, id);
    const double w = p.weight(c);
    mean_map += w * z;
    spread += w * w * (zz - kron(z, z));
  }
  const Matrix t = kron(mean_map, mean_map) + spread;
  const Matrix none = Matrix::Zero(d1, d1);
  ExactMoments out = augmented_stationary_moments(mean_map, t, none, s.gamma);  // about x*
  out.mean += p.solution();
  return out;
}

Vector reshuffling_bias_first_order(const LinearSaProblem& p, const RunSetting& s) {
  const int d = p.dim();
  const Vector& x = p.solution();
  Matrix h = Matrix::Zero(d, d);
  Vector sum = Vector::Zero(d);
  for (int c = 0; c < p.num_clients(); ++c) {
    const int n = p.num_samples(c);
    if (n < 2) {
      throw InputError(
          fmt::format("sampling: clients[{}] has one sample: nothing to reshuffle", c));
    }
    const int k = n / p.batch_size();
    const int q = s.local_steps / k, r = s.local_steps % k;
    const double pairs = (q * static_cast<double>(k) * (k - 1) + static_cast<double>(r) * (r - 1)) /
                         (2.0 * (n - 1));  // π_c
    const Vector field = p.mean_a(c) * x - p.mean_b(c);
    Vector kc = Vector::Zero(d);  // K_c(x*)
    for (int j = 0; j < n; ++j) {
      const SampleField f = sample_field(p, c, j);
      kc += (f.a - p.mean_a(c)) * (f.a * x - f.b - field);
    }
    kc /= n;
    h += p.weight(c) * p.mean_a(c);
    sum += p.weight(c) * pairs * kc;
  }
  return -(s.gamma / s.local_steps) * h.partialPivLu().solve(sum);
}

}  // namespace fedverify::theory
