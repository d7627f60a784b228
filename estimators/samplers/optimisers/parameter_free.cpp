#include "estimators/samplers/optimisers/parameter_free.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fedverify::estimators {

void start_from(int dim, int columns, const double* x, const RuleState& state) {
  if (columns > kMaxRuleColumns) throw std::logic_error("update rule: block wider than 16");
  const auto n = static_cast<std::size_t>(dim) * columns;
  std::copy(x, x + n, state.vectors[0]);
  for (std::size_t v = 1; v < state.vectors.size(); ++v) {
    std::fill(state.vectors[v], state.vectors[v] + n, 0.0);
  }
  for (double* s : state.scalars) std::fill(s, s + columns, 0.0);
}

void take_column_steps(int dim, int columns, const double* step, const double* g, double* x) {
  for (int i = 0; i < dim; ++i) {
    for (int c = 0; c < columns; ++c) x[i * columns + c] -= step[c] * g[i * columns + c];
  }
}

void initial_distance(int dim, int columns, const double* x0, double r_eps, double* out) {
  column_squared_norms(dim, columns, x0, out);
  for (int c = 0; c < columns; ++c) out[c] = r_eps * (1.0 + std::sqrt(out[c]));
}

}  // namespace fedverify::estimators
