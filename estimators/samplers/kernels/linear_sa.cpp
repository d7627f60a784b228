#include "estimators/samplers/kernels/linear_sa.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "estimators/samplers/kernels/local_steps.hpp"
#include "estimators/samplers/kernels/logistic_kernel.hpp"
#include "estimators/samplers/lanes.hpp"
#include "theory/problems/linear_sa_factors.hpp"

namespace fedverify::estimators {

namespace {

// y ← y − γ(g + ξ) on a block of d·kLanes entries (ξ: Scaffold's correction, or none).
class SgdStep final : public LocalStep {
 public:
  SgdStep(double gamma, const double* correction, std::size_t n)
      : gamma_(gamma), correction_(correction), n_(n) {}
  void operator()(int /*step*/, const double* g, double* y) const override {
    if (correction_ == nullptr) {
      for (std::size_t j = 0; j < n_; ++j) y[j] -= gamma_ * g[j];
    } else {
      for (std::size_t j = 0; j < n_; ++j) y[j] -= gamma_ * (g[j] + correction_[j]);
    }
  }

 private:
  double gamma_;
  const double* correction_;
  std::size_t n_;
};

using kernels::ProximalStep;

// Walker's alias table of one client's sample probabilities, thresholds as 32-bit fractions:
// a uniform column j and a uniform word u pick j when u < threshold[j], alias[j] otherwise.
struct AliasTable {
  std::vector<std::uint64_t> threshold;  // in [0, 2³²]
  std::vector<std::uint32_t> alias;
  bool uniform = true;

  explicit AliasTable(const Vector& p) {
    const int n = static_cast<int>(p.size());
    threshold.assign(static_cast<std::size_t>(n), std::uint64_t{1} << 32);
    alias.resize(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j) alias[j] = static_cast<std::uint32_t>(j);
    for (int j = 1; j < n; ++j) uniform = uniform && p(j) == p(0);
    if (uniform) return;
    std::vector<double> scaled(static_cast<std::size_t>(n));
    std::vector<int> small, large;
    for (int j = 0; j < n; ++j) {
      scaled[j] = p(j) * n;
      (scaled[j] < 1.0 ? small : large).push_back(j);
    }
    while (!small.empty() && !large.empty()) {
      const int s = small.back(), l = large.back();
      small.pop_back();
      threshold[s] = static_cast<std::uint64_t>(scaled[s] * 4294967296.0);
      alias[s] = static_cast<std::uint32_t>(l);
      scaled[l] -= 1.0 - scaled[s];
      if (scaled[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    // Left-overs have scaled ≈ 1 up to round-off: they keep threshold 2³² (always themselves).
  }
};

// A client whose samples all have rank one: A_k = u_k v_kᵀ (TD(0): u ∝ φ(s), v ∝ φ(s) − ρφ(s');
// least squares: u = v = a_k, with λy added after). Then A_k y − b_k = u_k (v_kᵀy) − b_k costs 4d
// flops a lane instead of 2d², and runs on the 8 lanes at once: the sampled rows of U, V and b are
// gathered into packs as the logistic kernel gathers its feature rows (simd::detail::fetch_rows).
// Row-major n × d tables, padded by simd::kRowPadding doubles past the last row for the gathers.
struct RankOneClient {
  std::vector<double> u, v, b;
};

std::optional<RankOneClient> rank_one_client(const theory::LinearSaProblem& p, int c) {
  const int d = p.dim();
  RankOneClient t;
  auto add_row = [d](std::vector<double>& table, const auto& row) {
    for (int i = 0; i < d; ++i) table.push_back(row(i));
  };
  if (p.least_squares()) {
    const auto& cl = p.ls_client(c);
    for (Eigen::Index k = 0; k < cl.features.rows(); ++k) {
      const Vector a = cl.features.row(k).transpose();
      add_row(t.u, a);
      add_row(t.v, a);
      add_row(t.b, Vector(cl.targets(k) * a));
    }
  } else {
    const theory::LowRankSamples* f = p.factors(c);
    if (f == nullptr) return std::nullopt;
    for (std::size_t k = 0; k + 1 < f->offsets.size(); ++k) {
      if (f->offsets[k + 1] - f->offsets[k] != 1) return std::nullopt;
      add_row(t.u, f->u.col(f->offsets[k]));
      add_row(t.v, f->v.col(f->offsets[k]));
      add_row(t.b, p.client(c).samples[k].b);
    }
  }
  for (auto* table : {&t.u, &t.v, &t.b}) table->resize(table->size() + simd::kRowPadding, 0.0);
  return t;
}

class LinearSaSampler final : public LocalSampler {
 public:
  explicit LinearSaSampler(const theory::LinearSaProblem& p)
      : problem_(p), d_(p.dim()), batch_(p.batch_size()) {
    for (int c = 0; c < p.num_clients(); ++c) {
      tables_.emplace_back(p.probabilities(c));
      rank_one_.push_back(rank_one_client(p, c));
    }
  }

  void local_steps(int client, BatchAddress address, int active, double gamma, int steps, double* y,
                   const double* correction, KernelWorkspace& ws) const override {
    const SgdStep step(gamma, correction, static_cast<std::size_t>(d_) * kLanes);
    optimiser_local_steps(client, address, active, steps, y, step, ws);
  }

  void proximal_local_steps(int client, BatchAddress address, int active, double gamma, int steps,
                            double mu, const double* anchor, double* y,
                            KernelWorkspace& ws) const override {
    const ProximalStep step(gamma, mu, anchor, static_cast<std::size_t>(d_) * kLanes);
    optimiser_local_steps(client, address, active, steps, y, step, ws);
  }

  // For h = 0 … H − 1: g = (1/B) Σ_b (A_{k_b} y − b_{k_b}) (+ λy for least squares) per lane,
  // then step(h, g, y).
  void optimiser_local_steps(int client, BatchAddress address, int /*active*/, int steps, double* y,
                             const LocalStep& step, KernelWorkspace& ws) const override {
    field_steps(client, address, steps, y, nullptr, step, ws);
  }

  // Ā_c x − b̄_c per lane (Ā_c with λI for least squares).                 THEORY-Mime (MI0)
  void mean_gradient(int client, const double* x, double* out) const override {
    const Matrix& a = problem_.mean_a(client);
    const Vector& b = problem_.mean_b(client);
    for (int i = 0; i < d_; ++i) {
      for (int lane = 0; lane < kLanes; ++lane) {
        double sum = -b(i);
        for (int j = 0; j < d_; ++j) sum += a(i, j) * x[j * kLanes + lane];
        out[i * kLanes + lane] = sum;
      }
    }
  }

  // The field is affine: g(y; ζ) − g(anchor; ζ) = A_ζ(y − anchor) (+ λ(y − anchor)), the draw's
  // linear part at y − anchor, formed on the draws of local_steps.         THEORY-Mime (MI0)
  void control_variate_local_steps(int client, BatchAddress address, int /*active*/, double gamma,
                                   int steps, double scale, const double* anchor,
                                   const double* correction, double* y,
                                   KernelWorkspace& ws) const override {
    const kernels::ControlVariateStep step(gamma, scale, correction,
                                           static_cast<std::size_t>(d_) * kLanes);
    field_steps(client, address, steps, y, anchor, step, ws);
  }

 private:
  // For h = 0 … H − 1: g = (1/B) Σ_b (A_{k_b} v − b_{k_b}) (+ λv) per lane with v = y, or, given
  // an anchor, g = (1/B) Σ_b A_{k_b} v (+ λv) with v = y − anchor (the linear part only); then
  // step(h, g, y).
  void field_steps(int client, BatchAddress address, int steps, double* y, const double* anchor,
                   const LocalStep& step, KernelWorkspace& ws) const {
    const std::vector<std::uint32_t>& k = draw(client, address, steps, ws.indices, ws.indices_pair);
    const std::size_t size = static_cast<std::size_t>(d_) * kLanes;
    grow(ws.gradient, size);
    double* g = ws.gradient.data();
    const double inv_b = 1.0 / batch_;
    if (rank_one_[client]) {
      if (anchor == nullptr) {
        rank_one_steps<false>(*rank_one_[client], k.data(), steps, inv_b, y, nullptr, g, step);
      } else {
        rank_one_steps<true>(*rank_one_[client], k.data(), steps, inv_b, y, anchor, g, step);
      }
      return;
    }
    thread_local std::vector<double> field;    // one lane's A_k v − b_k (add_field)
    thread_local std::vector<double> shifted;  // v = y − anchor
    grow(field, static_cast<std::size_t>(d_));
    if (anchor != nullptr) grow(shifted, size);
    for (int h = 0; h < steps; ++h) {
      const double* v = y;
      if (anchor != nullptr) {
        for (std::size_t j = 0; j < size; ++j) shifted[j] = y[j] - anchor[j];
        v = shifted.data();
      }
      for (std::size_t j = 0; j < size; ++j) g[j] = 0.0;
      for (int draw = 0; draw < batch_; ++draw) {
        for (int lane = 0; lane < kLanes; ++lane) {
          const int sample =
              static_cast<int>(k[(static_cast<std::size_t>(h) * batch_ + draw) * kLanes + lane]);
          add_field(client, sample, v, lane, inv_b, anchor == nullptr, g, field.data());
        }
      }
      step(h, g, y);
    }
  }

  // The H steps of a rank-one client on the 8 lanes (RankOneClient): per draw, s = v_kᵀw and
  // g += s·u_k − b_k; then g ← g/B (+ λw for least squares) and step(h, g, y), w = y; with
  // kLinearOnly (control variates, field_steps), w = y − anchor and g without the b_k. A template
  // parameter, so that the plain steps compile to the code they had before.
  template <bool kLinearOnly>
  void rank_one_steps(const RankOneClient& t, const std::uint32_t* k, int steps, double inv_b,
                      double* y, const double* anchor, double* g, const LocalStep& step) const {
    using simd::Pack;
    thread_local std::vector<Pack> buffer;  // y, a gathered row and the accumulator: 3d packs
    if (buffer.size() < 3 * static_cast<std::size_t>(d_)) {
      buffer.resize(3 * static_cast<std::size_t>(d_));
    }
    Pack* yp = buffer.data();
    Pack* a = yp + d_;
    Pack* acc = a + d_;
    const Pack scale = simd::broadcast(inv_b);
    const Pack l2 = simd::broadcast(problem_.l2());  // 0 unless least squares: fma adds exactly 0
    std::array<std::uint32_t, kLanes> offset{};
    for (int h = 0; h < steps; ++h) {
      for (int i = 0; i < d_; ++i) {
        yp[i] = simd::load(y + static_cast<std::ptrdiff_t>(i) * kLanes);
        if constexpr (kLinearOnly) {
          yp[i] = yp[i] - simd::load(anchor + static_cast<std::ptrdiff_t>(i) * kLanes);
        }
        acc[i] = simd::broadcast(0.0);
      }
      for (int draw = 0; draw < batch_; ++draw, k += kLanes) {
        for (int lane = 0; lane < kLanes; ++lane) {
          offset[lane] = k[lane] * static_cast<std::uint32_t>(d_);
        }
        simd::detail::fetch_rows(d_, t.v.data(), offset.data(), a);
        const Pack s = simd::detail::dot(d_, a, yp);
        simd::detail::fetch_rows(d_, t.u.data(), offset.data(), a);
        for (int i = 0; i < d_; ++i) acc[i] = simd::fma(s, a[i], acc[i]);
        if constexpr (!kLinearOnly) {  // (the linear part only: b_k cancels)
          simd::detail::fetch_rows(d_, t.b.data(), offset.data(), a);
          for (int i = 0; i < d_; ++i) acc[i] = acc[i] - a[i];
        }
      }
      for (int i = 0; i < d_; ++i) {
        simd::store(g + static_cast<std::ptrdiff_t>(i) * kLanes,
                    simd::fma(l2, yp[i], scale * acc[i]));
      }
      step(h, g, y);
    }
  }

  // g(:, lane) += w · (A_k y − b_k) for a client with a sample of rank > 1 (least squares and
  // rank-one clients take rank_one_steps). The dense product runs column by column, r ← r + A(:,
  // j)·y_j on the contiguous columns of A (vectorised over i), which adds the same products in the
  // same order j = 0 … d − 1 as the row sums it replaced; `r` is d doubles of scratch.
  // Without `with_b`, the linear part A_k y alone.
  void add_field(int c, int k, const double* y, int lane, double w, bool with_b, double* g,
                 double* r) const {
    const auto& sample = problem_.client(c).samples[k];
    const double* a = sample.a.data();  // column-major d × d
    const double* b = sample.b.data();
    const double b_sign = with_b ? -1.0 : 0.0;
    // Rows in panels of kPanel, each panel's sums in registers across the d columns.
    constexpr int kPanel = 8;
    int i0 = 0;
    for (; i0 + kPanel <= d_; i0 += kPanel) {
      std::array<double, kPanel> acc;
      for (int i = 0; i < kPanel; ++i) acc[i] = b_sign * b[i0 + i];
      for (int j = 0; j < d_; ++j) {
        const double yj = y[j * kLanes + lane];
        const double* column = a + static_cast<std::ptrdiff_t>(j) * d_ + i0;
        for (int i = 0; i < kPanel; ++i) acc[i] += column[i] * yj;
      }
      for (int i = 0; i < kPanel; ++i) r[i0 + i] = acc[i];
    }
    for (int i = i0; i < d_; ++i) r[i] = b_sign * b[i];
    for (int j = 0; j < d_ && i0 < d_; ++j) {
      const double yj = y[j * kLanes + lane];
      const double* column = a + static_cast<std::ptrdiff_t>(j) * d_;
      for (int i = i0; i < d_; ++i) r[i] += column[i] * yj;
    }
    for (int i = 0; i < d_; ++i) g[i * kLanes + lane] += w * r[i];
  }

  // The round's sample indices of the block, lane-interleaved: (h·B + b)·kLanes + lane (`words`:
  // scratch for the alias method's words).
  const std::vector<std::uint32_t>& draw(int client, const BatchAddress& address, int steps,
                                         std::vector<std::uint32_t>& out,
                                         std::vector<std::uint32_t>& words) const {
    const AliasTable& table = tables_[client];
    const int per_chain = steps * batch_;
    const auto n = static_cast<std::uint32_t>(table.alias.size());
    out.resize(static_cast<std::size_t>(per_chain) * kLanes);
    if (problem_.reshuffled()) {
      reshuffled_draws(address, static_cast<int>(n), per_chain, out, words);
      return out;
    }
    if (table.uniform) {
      indices_across_chains<kLanes>(address, n, out.data(), per_chain);
      return out;
    }
    // Two words per draw: word 2i picks the column, word 2i + 1 decides against the threshold.
    words.resize(static_cast<std::size_t>(2 * per_chain) * kLanes);
    indices_across_chains<kLanes>(address, 0xFFFFFFFFu, words.data(), 2 * per_chain);
    for (int i = 0; i < per_chain; ++i) {
      for (int lane = 0; lane < kLanes; ++lane) {
        const std::uint64_t column_word = words[(2 * static_cast<std::size_t>(i)) * kLanes + lane];
        const std::uint64_t u = words[(2 * static_cast<std::size_t>(i) + 1) * kLanes + lane];
        const auto j = static_cast<std::uint32_t>((column_word * n) >> 32);
        out[static_cast<std::size_t>(i) * kLanes + lane] =
            u < table.threshold[j] ? j : table.alias[j];
      }
    }
    return out;
  }

  // Random reshuffling (THEORY (A4)): the round's draws of each lane are passes over the n
  // samples, each a fresh permutation by Fisher–Yates (position i ← a uniform j ≤ i, from one
  // 32-bit word by multiply-shift), cut after `per_chain` draws. Every pass takes n words of the
  // batch stream (the last unused), so a lane's draws depend on its stream alone.
  static void reshuffled_draws(const BatchAddress& address, int n, int per_chain,
                               std::vector<std::uint32_t>& out, std::vector<std::uint32_t>& words) {
    const int passes = (per_chain + n - 1) / n;
    words.resize(static_cast<std::size_t>(passes) * n * kLanes);
    indices_across_chains<kLanes>(address, 0xFFFFFFFFu, words.data(), passes * n);
    thread_local std::vector<std::uint32_t> order;
    order.resize(static_cast<std::size_t>(n));
    for (int lane = 0; lane < kLanes; ++lane) {
      int drawn = 0;
      for (int pass = 0; pass < passes; ++pass) {
        for (int k = 0; k < n; ++k) order[k] = static_cast<std::uint32_t>(k);
        const std::uint32_t* w = words.data() + static_cast<std::size_t>(pass) * n * kLanes;
        for (int i = n - 1; i > 0; --i) {
          const std::uint64_t word = w[static_cast<std::size_t>(i) * kLanes + lane];
          const auto j = static_cast<std::size_t>((word * static_cast<std::uint64_t>(i + 1)) >> 32);
          std::swap(order[i], order[j]);
        }
        for (int k = 0; k < n && drawn < per_chain; ++k, ++drawn) {
          out[static_cast<std::size_t>(drawn) * kLanes + lane] = order[k];
        }
      }
    }
  }

  const theory::LinearSaProblem& problem_;
  int d_;
  int batch_;
  std::vector<AliasTable> tables_;
  std::vector<std::optional<RankOneClient>> rank_one_;  // per client: the rank-one tables, if any
};

}  // namespace

std::unique_ptr<LocalSampler> make_linear_sa_sampler(const theory::LinearSaProblem& problem) {
  return std::make_unique<LinearSaSampler>(problem);
}

}  // namespace fedverify::estimators
