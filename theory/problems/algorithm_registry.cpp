#include "theory/problems/algorithm_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

#include "theory/base/input_error.hpp"

namespace fedverify::theory {
namespace {

// Keyed by name; the map's nodes never move, so the descriptors' addresses are stable.
std::map<std::string_view, AlgorithmDescriptor>& registry() {
  static std::map<std::string_view, AlgorithmDescriptor> descriptors;
  return descriptors;
}

}  // namespace

std::string_view option_flag(AlgorithmOption option) {
  switch (option) {
    case AlgorithmOption::local_steps:
      return "--local-steps";
    case AlgorithmOption::burn_in:
      return "--burn-in";
    case AlgorithmOption::batch_rounds:
      return "--batch-rounds";
    case AlgorithmOption::noise:
      return "--noise";
    case AlgorithmOption::uplink:
      return "--uplink";
    case AlgorithmOption::downlink:
      return "--downlink";
    case AlgorithmOption::participating:
      return "--participating";
    case AlgorithmOption::server:
      return "--server";
    case AlgorithmOption::client:
      return "--client";
  }
  return "?";
}

bool AlgorithmDescriptor::reads(AlgorithmOption option) const {
  return std::find(options.begin(), options.end(), option) != options.end();
}

const AlgorithmParameter* AlgorithmDescriptor::parameter(std::string_view key) const {
  const auto it = std::find_if(parameters.begin(), parameters.end(),
                               [&](const AlgorithmParameter& p) { return p.key == key; });
  return it == parameters.end() ? nullptr : &*it;
}

bool register_algorithm(AlgorithmDescriptor descriptor) {
  if (descriptor.algorithm.empty()) {
    throw std::logic_error("register_algorithm: empty algorithm name");
  }
  if (descriptor.validate == nullptr) {
    throw std::logic_error(
        fmt::format("register_algorithm: {} has no validate function", descriptor.name()));
  }
  for (std::size_t i = 0; i < descriptor.parameters.size(); ++i) {
    const AlgorithmParameter& p = descriptor.parameters[i];
    const auto first = descriptor.parameter(p.key);
    if (p.key.empty() || first != &p) {
      throw std::logic_error(
          fmt::format("register_algorithm: {}: parameter \"{}\" empty or "
                      "declared twice",
                      descriptor.name(), p.key));
    }
    if (!p.required && !p.default_value.empty()) {
      try {
        check_parameter_values(p, p.default_value, std::string(p.key));
      } catch (const InputError& e) {
        throw std::logic_error(
            fmt::format("register_algorithm: {}: default of {}", descriptor.name(), e.what()));
      }
    }
  }
  const std::string_view name = descriptor.name();  // a view of a literal (Algorithm is consteval)
  if (!registry().emplace(name, std::move(descriptor)).second) {
    throw std::logic_error(fmt::format("register_algorithm: {} is registered twice", name));
  }
  return true;
}

const AlgorithmDescriptor* find_algorithm(std::string_view name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

const AlgorithmDescriptor& describe(Algorithm algorithm, const std::string& field) {
  if (const AlgorithmDescriptor* d = find_algorithm(algorithm.name())) return *d;
  parse_algorithm(std::string(algorithm.name()), field);  // throws the unknown-name InputError
  throw std::logic_error("describe: parse_algorithm accepted an unregistered name");
}

std::vector<const AlgorithmDescriptor*> registered_algorithms() {
  std::vector<const AlgorithmDescriptor*> out;
  for (const auto& [name, d] : registry()) out.push_back(&d);
  std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    return a->order < b->order;  // ties keep the map's order: by name
  });
  return out;
}

void refuse_unread_option(const AlgorithmDescriptor& algorithm, AlgorithmOption option,
                          std::string_view option_name, std::string_view algo_name) {
  if (algorithm.reads(option)) return;
  const std::string readers =
      algorithm_names([&](const AlgorithmDescriptor& d) { return d.reads(option); }, "and");
  throw InputError(fmt::format("{}: only for {}, not for {} {}", option_name, readers, algo_name,
                               algorithm.name()));
}

void require_client_weights(const AlgorithmDescriptor& algorithm, bool equal_weights) {
  if (equal_weights || algorithm.weighted_clients) return;
  const std::string supported =
      algorithm_names([](const AlgorithmDescriptor& d) { return d.weighted_clients; }, "and");
  throw InputError(fmt::format(
      "clients[].weight: unequal client weights are supported by {}; --algo {} aggregates with "
      "equal weights (THEORY (A1)): give every client the same weight or none",
      supported, algorithm.name()));
}

std::string join_names(const std::vector<std::string_view>& names, std::string_view conjunction) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? fmt::format(" {} ", conjunction) : ", ";
    out += names[i];
  }
  return out;
}

}  // namespace fedverify::theory
