#include "estimators/samplers/kernels/quadratic.hpp"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "estimators/samplers/kernels/local_steps.hpp"
#include "estimators/samplers/lanes.hpp"
#include "theory/base/normals.hpp"

namespace fedverify::estimators {

namespace {

// Which rows of a d×d product y = offset + M x a tile computes. Tile row p (0 ≤ p < d) is row
// `row[p]` of the output (and of the offset), with the coefficients m[p·d + k], k < extent[p]
// (row-major; the entries from extent[p] on are 0). row, extent: nullptr for the identity and d.
struct ProductRows {
  const double* m;
  const int* row = nullptr;
  const int* extent = nullptr;
  int out_row(int p) const { return row == nullptr ? p : row[p]; }
};

// Tile rows p0 … p0 + ROWS − 1 of `out` (d × kLanes per column, kColumns columns at stride
// `stride` doubles): out_j = offset_j + M x_j. offset_j is the matching column of `offset` (same
// layout), or the broadcast −(Ab)_i when `offset` is nullptr. ROWS × kColumns independent
// accumulators hide the FMA latency; each M_pk is used kColumns times and each x_jk ROWS times.
// The sum runs k = 0, 1, … in order for every tile shape and stops at the tile's largest extent
// (the terms skipped are 0·x), so results do not depend on how rows and columns are tiled.
template <int ROWS, int kColumns>
void product_tile(int d, int p0, const ProductRows& rows, const double* ab, const double* offset,
                  const double* x, double* out, std::size_t stride) {
  LaneVector acc[ROWS][kColumns];
  int k_end = 0;
  for (int q = 0; q < ROWS; ++q) {
    const int r = rows.out_row(p0 + q);
    k_end = std::max(k_end, rows.extent == nullptr ? d : rows.extent[p0 + q]);
    for (int j = 0; j < kColumns; ++j) {
      if (offset != nullptr) {
        acc[q][j] = Eigen::Map<const LaneVector>(offset + j * stride + r * kLanes);
      } else {
        acc[q][j].setConstant(-ab[r]);
      }
    }
  }
  for (int k = 0; k < k_end; ++k) {
    LaneVector xk[kColumns];  // loaded once, used ROWS times
    for (int j = 0; j < kColumns; ++j) {
      xk[j] = Eigen::Map<const LaneVector>(x + j * stride + k * kLanes);
    }
    for (int q = 0; q < ROWS; ++q) {
      const double mqk = rows.m[(p0 + q) * d + k];
      for (int j = 0; j < kColumns; ++j) acc[q][j] += mqk * xk[j];
    }
  }
  for (int q = 0; q < ROWS; ++q) {
    const int r = rows.out_row(p0 + q);
    for (int j = 0; j < kColumns; ++j) {
      Eigen::Map<LaneVector>(out + j * stride + r * kLanes) = acc[q][j];
    }
  }
}

// All rows of kColumns columns: rows in tiles of 4, then 2, 1.
template <int kColumns>
void product_columns(int d, const ProductRows& rows, const double* ab, const double* x, double* out,
                     std::size_t stride) {
  int p0 = 0;
  for (; p0 + 4 <= d; p0 += 4) product_tile<4, kColumns>(d, p0, rows, ab, nullptr, x, out, stride);
  if (p0 + 2 <= d) product_tile<2, kColumns>(d, p0, rows, ab, nullptr, x, out, stride), p0 += 2;
  if (p0 + 1 <= d) product_tile<1, kColumns>(d, p0, rows, ab, nullptr, x, out, stride);
}

// Rows p0 … p0 + rows − 1 of one column in a single tile (rows ≤ 16): one instantiation each.
template <int ROWS = 16>
void one_column_tile(int rows, int d, int p0, const ProductRows& m, const double* ab,
                     const double* offset, const double* x, double* out) {
  if constexpr (ROWS >= 1) {
    if (rows == ROWS) return product_tile<ROWS, 1>(d, p0, m, ab, offset, x, out, 0);
    one_column_tile<ROWS - 1>(rows, d, p0, m, ab, offset, x, out);
  }
}

// The steps' serial product g = offset + A y (one column): every row's accumulator is
// independent, so the FMA latency (4 cycles × d along each row) hides behind the other rows only
// if a tile has enough of them. d ≤ 16: one tile of d rows; larger d: tiles of 8 rows, the last
// tile taking the 8 + (d mod 8) remaining rows when that is ≤ 16.
void serial_product(int d, const double* a, const double* ab, const double* offset, const double* y,
                    double* g) {
  const ProductRows rows{a};
  int p0 = 0;
  while (d - p0 > 16) {
    product_tile<8, 1>(d, p0, rows, ab, offset, y, g, 0);
    p0 += 8;
  }
  one_column_tile(d - p0, d, p0, rows, ab, offset, y, g);
}

inline constexpr int kMaxColumns = 5;  // 4 × 5 accumulators + 5 columns of x: 25 of 32 registers

// product_columns<C> for columns = C ≤ kMaxColumns (one instantiation each).
template <int C = kMaxColumns>
void product_column_group(int columns, int d, const ProductRows& r, const double* ab,
                          const double* x, double* out, std::size_t stride) {
  if constexpr (C > 1) {
    if (columns < C) return product_column_group<C - 1>(columns, d, r, ab, x, out, stride);
  }
  product_columns<C>(d, r, ab, x, out, stride);
}

// The noise terms of a whole round, w_h = R z_h − A b for h = 0 … H − 1 (z_h, w_h: d × kLanes at
// h·d·kLanes): one matrix–matrix product R [z_0 … z_{H−1}], off the steps' serial path, in
// tiles of 4 rows × up to 5 steps (the columns of a tile are independent sums, so how
// the steps are grouped changes no number). R's rows come in the order of their extent (R is
// triangular up to that order: quadratic_problem.hpp), so the product costs d(d+1)/2 FMAs per step
// and lane.
void noise_terms(int d, int steps, const ProductRows& r, const double* ab, const double* z,
                 double* w) {
  const std::size_t stride = static_cast<std::size_t>(d) * kLanes;
  const int groups = (steps + kMaxColumns - 1) / kMaxColumns;
  for (int h = 0, g = 0; g < groups; ++g) {
    // Groups of as equal a size as will do (10 steps: 5 + 5, not 5 + 5 + 0 or 3 + 3 + 3 + 1).
    const int columns = (steps - h + (groups - g) - 1) / (groups - g);
    product_column_group(columns, d, r, ab, z + h * stride, w + h * stride, stride);
    h += columns;
  }
}

// y ← y − γ(g + ξ).
void take_step(int d, double gamma, const double* g, const double* correction, double* y) {
  const int n = d * kLanes;
  if (correction != nullptr) {
    for (int j = 0; j < n; ++j) y[j] -= gamma * (g[j] + correction[j]);
  } else {
    for (int j = 0; j < n; ++j) y[j] -= gamma * g[j];
  }
}

// y ← y − γ(g + μ(y − anchor)): FedProx's local step.                           THEORY (O3)
void take_proximal_step(int d, double gamma, const double* g, double mu, const double* anchor,
                        double* y) {
  const int n = d * kLanes;
  for (int j = 0; j < n; ++j) y[j] -= gamma * (g[j] + mu * (y[j] - anchor[j]));
}

// True when row tile k_ends are those of extents 1, 2, …, d (fused_register_steps applies;
// computed on every target, used by the AVX-512 register path only).
inline bool staircase_extents(int d, const std::vector<int>& sorted_extent) {
  for (int p = 0; p < d; ++p) {
    if (sorted_extent[p] != p + 1) return false;
  }
  return true;
}

#if defined(__AVX512F__)

// The steps' serial path with the block's iterate in registers (d = D ≤ kMaxRegisterDim): per
// step g_q = w_q + Σ_k A_qk y_k (k = 0, 1, … in order, one FMA each, as product_tile) and then
// y_q ← update(q, g_q, y_q) for every row, without the store and reload of g and y between the
// steps that the memory path (serial_product, take_step) pays on its latency-bound chain. The
// updates are written with the operations the memory path compiles to (an FMA where its
// expression contracts), so both paths give the same bits.
inline constexpr int kMaxRegisterDim = 16;

// y ← y − γ(g + ξ): take_step.
template <bool kCorrected>
struct RegisterStep {
  __m512d gamma;
  const double* correction;
  __m512d operator()(int q, __m512d g, __m512d y) const {
    if constexpr (kCorrected) g = _mm512_add_pd(g, _mm512_loadu_pd(correction + q * kLanes));
    return _mm512_fnmadd_pd(gamma, g, y);
  }
};

// y ← y − γ(g + μ(y − anchor)): take_proximal_step.                            THEORY (O3)
struct RegisterProximalStep {
  __m512d gamma, mu;
  const double* anchor;
  __m512d operator()(int q, __m512d g, __m512d y) const {
    const __m512d pull = _mm512_sub_pd(y, _mm512_loadu_pd(anchor + q * kLanes));
    return _mm512_fnmadd_pd(gamma, _mm512_fmadd_pd(mu, pull, g), y);
  }
};

// H steps on y (D × kLanes) with the noise terms w (H·D × kLanes, or nullptr: −A b).
template <int D, class Update>
void register_steps(const double* a, const double* ab, const double* w, int steps, double* y,
                    const Update& update) {
  __m512d yv[D];
  for (int i = 0; i < D; ++i) yv[i] = _mm512_loadu_pd(y + i * kLanes);
  for (int h = 0; h < steps; ++h) {
    __m512d g[D];
    for (int q = 0; q < D; ++q) {
      g[q] = w != nullptr ? _mm512_loadu_pd(w + (h * D + q) * kLanes) : _mm512_set1_pd(-ab[q]);
    }
#pragma GCC unroll 16
    for (int k = 0; k < D; ++k) {
#pragma GCC unroll 16
      for (int q = 0; q < D; ++q) g[q] = _mm512_fmadd_pd(_mm512_set1_pd(a[q * D + k]), yv[k], g[q]);
    }
    for (int q = 0; q < D; ++q) yv[q] = update(q, g[q], yv[q]);
  }
  for (int i = 0; i < D; ++i) _mm512_storeu_pd(y + i * kLanes, yv[i]);
}

// The round's noise product (noise_terms) carried one step ahead inside the register steps, for
// d = D ≤ kMaxFusedDim (y, g and the next step's D noise accumulators fit the 32 registers) and
// R's rows of extents 1, 2, …, d (a full-rank S_c: R_c = Pᵀ L √D with L unit lower triangular).
// The noise FMAs then fill the issue slots that the serial chain of A y leaves idle. Each row of
// R runs the terms k = 0 … k_end − 1 of its row tile in product_columns' tiling (4 rows, then 2,
// then 1; k_end the tile's largest extent, known at compile time here) in the same order, from
// −(A b)_row, so the noise terms are the separate product's to the bit.
inline constexpr int kMaxFusedDim = 10;

// product_columns' row tiling of d rows (tiles of 4, then one of 2, then one of 1): the end of
// row p's tile, which is its tile's k_end when the extents are 1, 2, …, d.
constexpr int tile_end_of_row(int d, int p) {
  const int fours = 4 * (d / 4);
  if (p < fours) return 4 * (p / 4 + 1);
  if (d % 4 >= 2 && p < fours + 2) return fours + 2;
  return d;
}

struct FusedNoise {
  const double* m;   // R's rows by extent, row-major (ProductRows::m)
  const int* row;    // their rows in w (ProductRows::row)
  const double* ab;  // A b
  const double* z;   // the round's normals, H·d × kLanes
  double* w;         // the round's noise terms, written one step ahead
};

// f.template operator()<I>() for I = 0 … N − 1, in order (the index known at compile time).
template <int N, class F>
[[gnu::always_inline]] inline void for_each_index(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f.template operator()<I>(), ...); }
  (std::make_integer_sequence<int, N>{});
}

// register_steps with the noise terms of step h + 1 computed during step h (step 0's first).
template <int D, class Update>
void fused_register_steps(const double* a, const FusedNoise& n, int steps, double* y,
                          const Update& update) {
  constexpr std::ptrdiff_t kSize = static_cast<std::ptrdiff_t>(D) * kLanes;
  __m512d yv[D], acc[D];
  const auto noise_start = [&] {
    for (int p = 0; p < D; ++p) acc[p] = _mm512_set1_pd(-n.ab[n.row[p]]);
  };
  // Term K of every row whose tile runs that far: acc_p += R_pK z_K.
  const auto noise_term = [&]<int K>(const double* z) {
    const __m512d zk = _mm512_loadu_pd(z + K * kLanes);
    for_each_index<D>([&]<int P>() {
      if constexpr (K < tile_end_of_row(D, P)) {
        acc[P] = _mm512_fmadd_pd(_mm512_set1_pd(n.m[P * D + K]), zk, acc[P]);
      }
    });
  };
  const auto noise_store = [&](double* w) {
    for (int p = 0; p < D; ++p) _mm512_storeu_pd(w + n.row[p] * kLanes, acc[p]);
  };
  noise_start();
  for_each_index<D>([&]<int K>() { noise_term.template operator()<K>(n.z); });
  noise_store(n.w);
  for (int i = 0; i < D; ++i) yv[i] = _mm512_loadu_pd(y + i * kLanes);
  const auto step = [&]<bool kAhead>(int h) {
    __m512d g[D];
    for (int q = 0; q < D; ++q) g[q] = _mm512_loadu_pd(n.w + h * kSize + q * kLanes);
    if constexpr (kAhead) noise_start();
    for_each_index<D>([&]<int K>() {
      for (int q = 0; q < D; ++q) g[q] = _mm512_fmadd_pd(_mm512_set1_pd(a[q * D + K]), yv[K], g[q]);
      if constexpr (kAhead) noise_term.template operator()<K>(n.z + (h + 1) * kSize);
    });
    if constexpr (kAhead) noise_store(n.w + (h + 1) * kSize);
    for (int q = 0; q < D; ++q) yv[q] = update(q, g[q], yv[q]);
  };
  for (int h = 0; h + 1 < steps; ++h) step.template operator()<true>(h);
  if (steps > 0) step.template operator()<false>(steps - 1);
  for (int i = 0; i < D; ++i) _mm512_storeu_pd(y + i * kLanes, yv[i]);
}

// fused_register_steps for d ≤ kMaxFusedDim; false for larger d.
template <class Update, int D = kMaxFusedDim>
bool fused_steps_in_registers(int d, const double* a, const FusedNoise& n, int steps, double* y,
                              const Update& update) {
  if constexpr (D >= 1) {
    if (d == D) return fused_register_steps<D>(a, n, steps, y, update), true;
    return fused_steps_in_registers<Update, D - 1>(d, a, n, steps, y, update);
  } else {
    return false;
  }
}

// register_steps for d ≤ kMaxRegisterDim (one instantiation each); false for larger d.
template <class Update, int D = kMaxRegisterDim>
bool steps_in_registers(int d, const double* a, const double* ab, const double* w, int steps,
                        double* y, const Update& update) {
  if constexpr (D >= 1) {
    if (d == D) return register_steps<D>(a, ab, w, steps, y, update), true;
    return steps_in_registers<Update, D - 1>(d, a, ab, w, steps, y, update);
  } else {
    return false;
  }
}

#endif

// Internal linkage (the class is used through LocalSampler only), as for the logistic kernel.
class QuadraticSampler final : public LocalSampler {
 public:
  explicit QuadraticSampler(const theory::QuadraticProblem& p) : d_(p.dim()) {
    for (int c = 0; c < p.num_clients(); ++c) {
      const auto& cl = p.client(c);
      using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
      const RowMajor a = cl.hessian;
      a_.emplace_back(a.data(), a.data() + a.size());
      const Vector ab = cl.hessian * cl.optimum;
      ab_.emplace_back(ab.data(), ab.data() + ab.size());
      add_noise_factor(p.noise_factor(c));
    }
  }

  void local_steps(int client, BatchAddress address, int /*active*/, double gamma, int steps,
                   double* y, const double* correction, KernelWorkspace& ws) const override {
#if defined(__AVX512F__)
    const __m512d step = _mm512_set1_pd(gamma);
    const bool done =
        correction != nullptr
            ? run_in_registers(client, address, steps, y, ws, RegisterStep<true>{step, correction})
            : run_in_registers(client, address, steps, y, ws, RegisterStep<false>{step, nullptr});
    if (done) return;
#endif
    run(client, address, steps, y, ws,
        [&](const double* g) { take_step(d_, gamma, g, correction, y); });
  }

  void proximal_local_steps(int client, BatchAddress address, int /*active*/, double gamma,
                            int steps, double mu, const double* anchor, double* y,
                            KernelWorkspace& ws) const override {
#if defined(__AVX512F__)
    if (run_in_registers(client, address, steps, y, ws,
                         RegisterProximalStep{_mm512_set1_pd(gamma), _mm512_set1_pd(mu), anchor})) {
      return;
    }
#endif
    run(client, address, steps, y, ws,
        [&](const double* g) { take_proximal_step(d_, gamma, g, mu, anchor, y); });
  }

  void optimiser_local_steps(int client, BatchAddress address, int /*active*/, int steps, double* y,
                             const LocalStep& step, KernelWorkspace& ws) const override {
    int h = 0;
    run(client, address, steps, y, ws, [&](const double* g) { step(h++, g, y); });
  }

  // A_c x − A_c b_c per lane.                                               THEORY-Mime (MI0)
  void mean_gradient(int client, const double* x, double* out) const override {
    serial_product(d_, a_[client].data(), ab_[client].data(), nullptr, x, out);
  }

  // The noise is additive, so g_c(y; ζ) − g_c(anchor; ζ) = A_c(y − anchor) on every draw: the
  // steps are deterministic (no draws are made), δ = (A_c y − A_c b_c) − (A_c anchor − A_c b_c).
  void control_variate_local_steps(int client, BatchAddress /*address*/, int /*active*/,
                                   double gamma, int steps, double scale, const double* anchor,
                                   const double* correction, double* y,
                                   KernelWorkspace& ws) const override {
    const std::size_t size = static_cast<std::size_t>(d_) * kLanes;
    grow(ws.gradient, size);
    grow(ws.noise, 2 * size);
    double* g = ws.gradient.data();
    double* at_anchor = ws.noise.data();
    double* delta = at_anchor + size;
    mean_gradient(client, anchor, at_anchor);
    const kernels::ControlVariateStep step(gamma, scale, correction, size);
    for (int h = 0; h < steps; ++h) {
      mean_gradient(client, y, g);
      for (std::size_t j = 0; j < size; ++j) delta[j] = g[j] - at_anchor[j];
      step(h, delta, y);
    }
  }

 private:
  // H local steps: the noise terms of the round, then per step the stochastic gradient g and
  // `step(g)`.
  // The round's noise terms w_h = R_c z_h − A_c b_c (H·d × kLanes in ws.noise_terms), or nullptr
  // for a client without noise (S_c = 0): chain a.chain + lane's normals (step h, coordinate i)
  // at position h·d + i of its stream, for all kLanes lanes (idle lanes draw too; they are not
  // stored).
  const double* round_noise(int client, BatchAddress address, int steps,
                            KernelWorkspace& ws) const {
    if (!noisy_[client]) return nullptr;
    const double* z = round_normals(address, steps, ws);  // grows ws.noise_terms: before data()
    return noise_product(client, steps, z, ws.noise_terms.data());
  }

  // The round's normals z (H·d × kLanes, in ws.noise; ws.noise_terms grown for w); returns z.
  const double* round_normals(BatchAddress address, int steps, KernelWorkspace& ws) const {
    const std::size_t size = static_cast<std::size_t>(d_) * kLanes;
    grow(ws.noise, steps * size);
    grow(ws.noise_terms, steps * size);
    normals_across_chains<kLanes>(address, ws.noise.data(), steps * d_);
    return ws.noise.data();
  }

  // w_h = R_c z_h − A_c b_c for the round's normals z (H·d × kLanes) into w; returns w.
  const double* noise_product(int client, int steps, const double* z, double* w) const {
    const ProductRows r{r_[client].data(), r_row_[client].data(), r_extent_[client].data()};
    noise_terms(d_, steps, r, ab_[client].data(), z, w);
    return w;
  }

  // H local steps: the noise terms of the round, then per step the stochastic gradient g and
  // `step(g)`.
  template <class Step>
  void run(int client, BatchAddress address, int steps, double* y, KernelWorkspace& ws,
           Step&& step) const {
    const int d = d_;
    const std::size_t size = static_cast<std::size_t>(d) * kLanes;
    const double* a = a_[client].data();
    const double* ab = ab_[client].data();
    const double* w = round_noise(client, address, steps, ws);
    grow(ws.gradient, size);
    double* g = ws.gradient.data();
    for (int h = 0; h < steps; ++h) {
      // Stochastic gradient A_c y + (R_c z − A_c b_c).                    THEORY (F0), (F5)
      serial_product(d, a, ab, w == nullptr ? nullptr : w + h * size, y, g);
      step(static_cast<const double*>(g));
    }
  }

#if defined(__AVX512F__)
  // The same H local steps with y in registers (register_steps), when d ≤ kMaxRegisterDim;
  // false (nothing done) otherwise.
  template <class Update>
  bool run_in_registers(int client, BatchAddress address, int steps, double* y, KernelWorkspace& ws,
                        const Update& update) const {
    if (d_ > kMaxRegisterDim) return false;
    if (!noisy_[client]) {
      return steps_in_registers(d_, a_[client].data(), ab_[client].data(), nullptr, steps, y,
                                update);
    }
    const double* z = round_normals(address, steps, ws);  // grows ws.noise_terms: before data()
    return noisy_steps_in_registers(client, steps, z, ws.noise_terms.data(), y, update);
  }

  // The register steps of a noisy client from its round's normals z (H·d × kLanes), the noise
  // terms written to w: fused when R_c's extents allow, else the product first.
  template <class Update>
  bool noisy_steps_in_registers(int client, int steps, const double* z, double* w, double* y,
                                const Update& update) const {
    if (d_ <= kMaxFusedDim && staircase_[client]) {
      const FusedNoise n{r_[client].data(), r_row_[client].data(), ab_[client].data(), z, w};
      return fused_steps_in_registers(d_, a_[client].data(), n, steps, y, update);
    }
    return steps_in_registers(d_, a_[client].data(), ab_[client].data(),
                              noise_product(client, steps, z, w), steps, y, update);
  }

  void pair_steps(int client, int steps, const double* z, double* w, double* y, double gamma,
                  const double* correction) const {
    const __m512d step = _mm512_set1_pd(gamma);
    if (correction != nullptr) {
      noisy_steps_in_registers(client, steps, z, w, y, RegisterStep<true>{step, correction});
    } else {
      noisy_steps_in_registers(client, steps, z, w, y, RegisterStep<false>{step, nullptr});
    }
  }

 public:
  // Two noisy clients with d ≤ kMaxRegisterDim: both rounds' normals first, the short last pass
  // of the two drawn together (normals_across_chains_two_clients), then each client's steps.
  void local_steps_pair(int client, BatchAddress address, int active, double gamma, int steps,
                        double* y, const double* correction, double* y_next,
                        const double* correction_next, KernelWorkspace& ws) const override {
    if (d_ > kMaxRegisterDim || !noisy_[client] || !noisy_[client + 1]) {
      LocalSampler::local_steps_pair(client, address, active, gamma, steps, y, correction, y_next,
                                     correction_next, ws);
      return;
    }
    const std::size_t size = static_cast<std::size_t>(d_) * kLanes * steps;
    grow(ws.noise, 2 * size);
    grow(ws.noise_terms, 2 * size);
    double* z = ws.noise.data();
    double* w = ws.noise_terms.data();
    normals_across_chains_two_clients<kLanes>(address, z, z + size, steps * d_);
    pair_steps(client, steps, z, w, y, gamma, correction);
    pair_steps(client + 1, steps, z + size, w + size, y_next, gamma, correction_next);
  }

 private:
#endif

  // R_c's rows sorted by their extent (1 + last non-zero column), row-major, with their rows in
  // R_c and their extents.
  void add_noise_factor(const Matrix& r) {
    const int d = d_;
    std::vector<int> extent(d, 0), order(d);
    for (int i = 0; i < d; ++i) {
      for (int k = 0; k < d; ++k) extent[i] = r(i, k) != 0.0 ? k + 1 : extent[i];
    }
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int i, int j) { return extent[i] < extent[j]; });
    std::vector<double> sorted(static_cast<std::size_t>(d) * d);
    std::vector<int> sorted_extent(d);
    for (int p = 0; p < d; ++p) {
      for (int k = 0; k < d; ++k) sorted[static_cast<std::size_t>(p) * d + k] = r(order[p], k);
      sorted_extent[p] = extent[order[p]];
    }
    staircase_.push_back(staircase_extents(d, sorted_extent));
    r_.push_back(std::move(sorted));
    r_row_.push_back(std::move(order));
    r_extent_.push_back(std::move(sorted_extent));
    noisy_.push_back(r.cwiseAbs().maxCoeff() > 0.0);
  }

  int d_;
  std::vector<std::vector<double>> a_, ab_;  // A_c row-major, A_c b_c
  std::vector<std::vector<double>> r_;       // R_c's rows by extent (add_noise_factor)
  std::vector<std::vector<int>> r_row_, r_extent_;
  std::vector<bool> staircase_;  // R_c's sorted extents are 1, 2, …, d (FusedNoise)
  std::vector<bool> noisy_;      // R_c ≠ 0
};

}  // namespace

std::unique_ptr<LocalSampler> make_quadratic_sampler(const theory::QuadraticProblem& problem) {
  return std::make_unique<QuadraticSampler>(problem);
}

}  // namespace fedverify::estimators
