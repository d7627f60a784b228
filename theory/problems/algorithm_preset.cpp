#include "theory/problems/algorithm_preset.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "theory/base/input_error.hpp"
#include "theory/problems/algorithm_registry.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {
namespace {

// Function-local: registrars in other files run during static initialisation, in any order.
std::map<std::string, AlgorithmPreset, std::less<>>& presets() {
  static std::map<std::string, AlgorithmPreset, std::less<>> registry;
  return registry;
}

const OptimiserKey* optimiser_key(OptimiserRole role, std::string_view optimiser,
                                  std::string_view key) {
  for (const OptimiserKind& kind : optimiser_kinds()) {
    if (kind.role != role || kind.name != optimiser) continue;
    for (const OptimiserKey& k : kind.keys) {
      if (k.name == key) return &k;
    }
  }
  return nullptr;
}

std::string_view optimiser_of(const AlgorithmPreset& p, OptimiserRole role) {
  return role == OptimiserRole::server ? p.server : p.client;
}

// The error for a parameter `key` given with `name`, which does not read it.
InputError not_read(std::string_view key, std::string_view name, const FieldNames& fields) {
  const std::string readers = parameter_readers(key);
  if (readers.empty()) {  // possible from the C++ API only: the front ends declare known keys
    return InputError(fmt::format("{}: not a parameter (expected {})", fields.parameter(key),
                                  join_names(parameter_keys(), "or")));
  }
  return InputError(fmt::format("{}: only for {} {}, not for {} {}", fields.parameter(key),
                                fields.algorithm_key, readers, fields.algorithm_key, name));
}

std::string all_names() {
  std::vector<std::string_view> names;
  for (const AlgorithmDescriptor* d : registered_algorithms()) names.push_back(d->name());
  for (const AlgorithmPreset* p : registered_presets()) names.push_back(p->name);
  return join_names(names, "or");
}

}  // namespace

bool AlgorithmPreset::reads(std::string_view key) const {
  return std::any_of(parameters.begin(), parameters.end(),
                     [&](const PresetParameter& p) { return p.key == key; });
}

bool register_preset(AlgorithmPreset preset) {
  if (preset.name.empty()) throw std::logic_error("register_preset: empty preset name");
  for (const PresetParameter& p : preset.parameters) {
    if (optimiser_key(p.role, optimiser_of(preset, p.role), p.optimiser_key) == nullptr) {
      throw std::logic_error(fmt::format("register_preset: {}: {} has no key {}", preset.name,
                                         optimiser_of(preset, p.role), p.optimiser_key));
    }
  }
  const std::string name(preset.name);
  if (!presets().emplace(name, std::move(preset)).second) {
    throw std::logic_error(fmt::format("register_preset: {} is registered twice", name));
  }
  return true;
}

const AlgorithmPreset* find_preset(std::string_view name) {
  const auto it = presets().find(name);
  return it == presets().end() ? nullptr : &it->second;
}

std::vector<const AlgorithmPreset*> registered_presets() {
  std::vector<const AlgorithmPreset*> out;
  for (const auto& entry : presets()) out.push_back(&entry.second);
  return out;
}

std::vector<std::string_view> preset_parameter_keys() {
  std::vector<std::string_view> keys;
  for (const AlgorithmPreset* p : registered_presets()) {
    for (const PresetParameter& q : p->parameters) keys.push_back(q.key);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::vector<std::string_view> parameter_keys() {
  std::vector<std::string_view> keys = preset_parameter_keys();
  for (const AlgorithmDescriptor* d : registered_algorithms()) {
    for (const AlgorithmParameter& p : d->parameters) keys.push_back(p.key);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

bool parameter_is_list(std::string_view key) {
  for (const AlgorithmDescriptor* d : registered_algorithms()) {
    if (const AlgorithmParameter* p = d->parameter(key); p != nullptr && p->per_client) return true;
  }
  return false;
}

std::string parameter_readers(std::string_view key, const AlgorithmFilter& accepts) {
  const auto accepted = [&](const AlgorithmDescriptor& d) { return !accepts || accepts(d); };
  std::vector<std::string_view> names;
  for (const AlgorithmDescriptor* d : registered_algorithms()) {
    if (accepted(*d) && d->parameter(key) != nullptr) names.push_back(d->name());
  }
  for (const AlgorithmPreset* p : registered_presets()) {
    const AlgorithmDescriptor* base = find_algorithm(p->base.name());
    if (base != nullptr && accepted(*base) && p->reads(key)) names.push_back(p->name);
  }
  return join_names(names, "and");
}

std::string parameter_help(std::string_view key, const AlgorithmFilter& accepts) {
  for (const AlgorithmDescriptor* d : registered_algorithms()) {
    if (const AlgorithmParameter* p = d->parameter(key)) {
      const std::string given = p->required ? ", required"
                                : p->default_value.empty()
                                    ? ""
                                    : fmt::format(", default {}", fmt::join(p->default_value, ","));
      return fmt::format("{}: {}{} (only --algo {})", p->meaning, parameter_range(*p), given,
                         parameter_readers(key, accepts));
    }
  }
  for (const AlgorithmPreset* p : registered_presets()) {
    for (const PresetParameter& q : p->parameters) {
      if (q.key != key) continue;
      const OptimiserKey* k = optimiser_key(q.role, optimiser_of(*p, q.role), q.optimiser_key);
      return fmt::format("{} (only --algo {})", k->meaning, parameter_readers(key, accepts));
    }
  }
  return {};
}

FieldNames command_line_fields() {
  return {.parameter = [](std::string_view key) { return parameter_flag(key); },
          .server = "--server",
          .client = "--client",
          .algorithm = "--algo",
          .algorithm_key = "--algo"};
}

ResolvedAlgorithm resolve_algorithm(std::string_view name, RunSetting step,
                                    const PresetValues& values, bool server_given,
                                    bool client_given, const FieldNames& fields) {
  if (const AlgorithmDescriptor* d = find_algorithm(name)) {
    step.parameters.clear();
    for (const auto& [key, given] : values) {
      const AlgorithmParameter* p = d->parameter(key);
      if (p == nullptr) throw not_read(key, name, fields);
      check_parameter_values(*p, given, fields.parameter(key));
      step.parameters.insert_or_assign(key, given);
    }
    for (const AlgorithmParameter& p : d->parameters) {
      if (step.parameters.contains(p.key)) continue;
      if (p.required) {
        throw InputError(fmt::format("{}: required by {} {}", fields.parameter(p.key),
                                     fields.algorithm_key, name));
      }
      if (!p.default_value.empty()) step.parameters.emplace(std::string(p.key), p.default_value);
    }
    return {d->algorithm, {}, std::move(step)};
  }
  const AlgorithmPreset* p = find_preset(name);
  if (p == nullptr) {
    throw InputError(fmt::format("{}: unknown algorithm \"{}\" (expected {})", fields.algorithm,
                                 limits::quote_input(std::string(name)), all_names()));
  }
  const AlgorithmDescriptor& base = describe(p->base, fields.algorithm);
  for (const auto& [field, given] :
       {std::pair{fields.server, server_given}, std::pair{fields.client, client_given}}) {
    if (given) {
      throw InputError(fmt::format(
          "{}: not with {} {}, which sets the optimisers (server {}, client {}); use {} {} to "
          "choose them",
          field, fields.algorithm_key, name, p->server, p->client, fields.algorithm_key,
          base.name()));
    }
  }
  for (const PresetParameter& q : p->parameters) {
    const bool given =
        std::any_of(values.begin(), values.end(), [&](const auto& v) { return v.first == q.key; });
    if (q.required && !given) {
      throw InputError(fmt::format("{}: required by {} {}", fields.parameter(q.key),
                                   fields.algorithm_key, name));
    }
  }
  std::vector<std::pair<std::string, double>> server, client;  // (optimiser key, value)
  for (const auto& given : values) {
    const auto q = std::find_if(p->parameters.begin(), p->parameters.end(),
                                [&](const PresetParameter& r) { return r.key == given.first; });
    if (q == p->parameters.end()) throw not_read(given.first, name, fields);
    if (given.second.size() != 1) {
      throw InputError(fmt::format("{}: expected one number, got a list of {}",
                                   fields.parameter(given.first), given.second.size()));
    }
    (q->role == OptimiserRole::server ? server : client)
        .emplace_back(std::string(q->optimiser_key), given.second.front());
  }
  // Errors about a key name the preset's parameter for it (or, for a key it does not expose,
  // the optimiser field: a preset whose optimiser has a required key it does not expose is a
  // registration that cannot run, and says so).
  auto field_of = [&](OptimiserRole role) {
    return [&, role](std::string_view optimiser_key) {
      for (const PresetParameter& q : p->parameters) {
        if (q.role == role && q.optimiser_key == optimiser_key) return fields.parameter(q.key);
      }
      return fmt::format("{} {} ({})", fields.algorithm_key, name, optimiser_key);
    };
  };
  step.server = make_optimiser(OptimiserRole::server, p->server, std::move(server),
                               field_of(OptimiserRole::server));
  step.client = make_optimiser(OptimiserRole::client, p->client, std::move(client),
                               field_of(OptimiserRole::client));
  return {p->base, std::string(p->name), std::move(step)};
}

}  // namespace fedverify::theory
