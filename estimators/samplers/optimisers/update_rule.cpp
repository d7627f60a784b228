#include "estimators/samplers/optimisers/update_rule.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "theory/base/input_error.hpp"

namespace fedverify::estimators {
namespace {

std::map<std::string, UpdateRuleFactory, std::less<>>& registry() {
  static std::map<std::string, UpdateRuleFactory, std::less<>> rules;
  return rules;
}

}  // namespace

void UpdateRule::start(int dim, int columns, const double* /*x*/, const RuleState& state) const {
  const auto n = static_cast<std::size_t>(dim) * columns;
  for (double* v : state.vectors) std::fill(v, v + n, 0.0);
  for (double* s : state.scalars) std::fill(s, s + columns, 0.0);
}

std::unique_ptr<const UpdateRule> make_update_rule(const theory::OptimiserSpec& spec, double lr) {
  const auto found = registry().find(spec.name);
  if (found == registry().end()) {
    throw InputError(fmt::format("{}: \"{}\" has no update rule (rules: {})",
                                 theory::role_flag(spec.role), spec.name,
                                 fmt::join(update_rule_names(), ", ")));
  }
  return found->second(spec, lr);
}

std::vector<std::string> update_rule_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.first);
  return names;  // std::map: sorted
}

bool register_update_rule(std::string_view name, UpdateRuleFactory factory) {
  if (!registry().emplace(std::string(name), factory).second) {
    throw std::logic_error(fmt::format("register_update_rule: \"{}\" registered twice", name));
  }
  return true;
}

void column_squared_norms(int dim, int columns, const double* a, double* out) {
  std::fill(out, out + columns, 0.0);
  for (int i = 0; i < dim; ++i) {
    for (int c = 0; c < columns; ++c) out[c] += a[i * columns + c] * a[i * columns + c];
  }
}

void column_squared_distances(int dim, int columns, const double* a, const double* b, double* out) {
  std::fill(out, out + columns, 0.0);
  for (int i = 0; i < dim; ++i) {
    for (int c = 0; c < columns; ++c) {
      const double e = a[i * columns + c] - b[i * columns + c];
      out[c] += e * e;
    }
  }
}

OwnedRuleState::OwnedRuleState(const UpdateRule& rule, int dim, int columns)
    : vectors_(rule.vector_count(), std::vector<double>(static_cast<std::size_t>(dim) * columns)),
      scalars_(rule.scalar_count(), std::vector<double>(columns)) {
  for (auto& v : vectors_) vector_ptrs_.push_back(v.data());
  for (auto& s : scalars_) scalar_ptrs_.push_back(s.data());
  view_ = {vector_ptrs_, scalar_ptrs_};
}

}  // namespace fedverify::estimators
