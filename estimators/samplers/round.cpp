#include "estimators/samplers/round.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <stdexcept>

#include "theory/base/input_error.hpp"

namespace fedverify::estimators {

double* RoundScratch::grow_buffer(int slot, std::size_t size) {
  if (buffers_.size() <= static_cast<std::size_t>(slot)) buffers_.resize(slot + 1);
  grow(buffers_[slot], size);
  return buffers_[slot].data();
}

std::vector<RunSpec> RoundSampler::runs(const SamplerOptions& /*options*/) const {
  return {RunSpec{}};
}

void RoundSampler::combine_runs(std::span<const Matrix* const> runs, int first, int active,
                                Matrix& out) const {
  out.middleCols(first, active) = runs.front()->middleCols(first, active);
}

ChainStepCount RoundSampler::local_steps_per_round(const SamplerOptions& options,
                                                   int clients) const {
  return static_cast<ChainStepCount>(clients) * options.step.local_steps;
}

std::vector<AuxiliaryState> RoundSampler::auxiliary_states(const SamplerOptions& /*options*/,
                                                           int /*clients*/) const {
  return {};
}

void RoundSampler::initialise_auxiliary(const AuxiliaryStart& /*start*/,
                                        std::vector<Matrix>& /*auxiliary*/) const {}

Matrix RoundSampler::stacked_state(const Matrix& x,
                                   const std::vector<Matrix>& /*auxiliary*/) const {
  return x;
}

Matrix stack_below(const Matrix& x, const std::vector<Matrix>& auxiliary) {
  const auto d = x.rows();
  Matrix z(d * static_cast<Eigen::Index>(auxiliary.size() + 1), x.cols());
  z.topRows(d) = x;
  for (std::size_t i = 0; i < auxiliary.size(); ++i) {
    z.middleRows(d * static_cast<Eigen::Index>(i + 1), d) = auxiliary[i];
  }
  return z;
}

namespace {

// Function-local, so that registrars in other translation units may run first.
std::map<std::string, std::shared_ptr<const RoundSampler>, std::less<>>& registry() {
  static std::map<std::string, std::shared_ptr<const RoundSampler>, std::less<>> rounds;
  return rounds;
}

}  // namespace

bool RoundRegistry::add(const std::string& name, std::shared_ptr<const RoundSampler> round) {
  if (!round) throw std::logic_error("RoundRegistry::add: no round for " + name);
  if (!registry().emplace(name, std::move(round)).second) {
    throw std::logic_error("RoundRegistry::add: two rounds registered as " + name);
  }
  return true;
}

std::shared_ptr<const RoundSampler> RoundRegistry::find(std::string_view name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second;
}

std::shared_ptr<const RoundSampler> RoundRegistry::get(std::string_view name) {
  auto round = find(name);
  if (!round) {
    throw InputError(fmt::format("--algo: no sampler for algorithm '{}' (known: {})", name,
                                 fmt::join(names(), ", ")));
  }
  return round;
}

std::vector<std::string> RoundRegistry::names() {
  std::vector<std::string> out;
  for (const auto& [name, round] : registry()) out.push_back(name);
  return out;
}

}  // namespace fedverify::estimators
