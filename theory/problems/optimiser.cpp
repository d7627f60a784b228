#include "theory/problems/optimiser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "theory/base/input_error.hpp"
#include "theory/problems/limits.hpp"

namespace fedverify::theory {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kRequired = std::numeric_limits<double>::quiet_NaN();

const OptimiserKind* find_kind(OptimiserRole role, std::string_view name) {
  for (const OptimiserKind& k : optimiser_kinds()) {
    if (k.role == role && k.name == name) return &k;
  }
  return nullptr;
}

const OptimiserKey* find_key(const OptimiserKind& kind, std::string_view key) {
  for (const OptimiserKey& k : kind.keys) {
    if (k.name == key) return &k;
  }
  return nullptr;
}

std::string kind_names(OptimiserRole role) {
  std::string out;
  for (const OptimiserKind& k : optimiser_kinds()) {
    if (k.role != role) continue;
    if (!out.empty()) out += ", ";
    out += k.name;
  }
  return out;
}

std::string key_names(const OptimiserKind& kind) {
  if (kind.keys.empty()) return "none";
  std::string out;
  for (const OptimiserKey& k : kind.keys) {
    if (!out.empty()) out += ", ";
    out += k.name;
  }
  return out;
}

// "> 0", "in [0, 1)", "0 or 1".
std::string range_text(const OptimiserKey& k) {
  if (k.boolean) return "0 or 1";
  if (k.upper == kInf) return fmt::format("{} {}", k.lower_open ? ">" : ">=", k.lower);
  return fmt::format("in {}{}, {}{}", k.lower_open ? "(" : "[", k.lower, k.upper,
                     k.upper_open ? ")" : "]");
}

bool in_range(const OptimiserKey& k, double v) {
  if (!std::isfinite(v)) return false;
  if (k.boolean) return v == 0.0 || v == 1.0;
  const bool above = k.lower_open ? v > k.lower : v >= k.lower;
  const bool below = k.upper_open ? v < k.upper : v <= k.upper;
  return above && below;
}

}  // namespace

std::string_view role_flag(OptimiserRole role) {
  return role == OptimiserRole::server ? "--server" : "--client";
}

const std::vector<OptimiserKind>& optimiser_kinds() {
  // THEORY (O0)–(O3). A later optimiser (Adam, …, THEORY O1) is one more row here.
  static const std::vector<OptimiserKind> kinds = {
      {OptimiserRole::server,
       "sgd",
       {{"lr", 1.0, 0.0, kInf, true, false, false, "server step eta_g"},
        {"momentum", 0.0, 0.0, 1.0, false, true, false, "heavy-ball momentum beta"},
        {"nesterov", 0.0, 0.0, 1.0, false, false, true, "Nesterov form of the momentum"}},
       "x <- x - eta_g m', m' = beta m + Delta (Nesterov: x <- x - eta_g (Delta + beta m')) "
       "(THEORY O0, O2)"},
      {OptimiserRole::client, "sgd", {}, "H local SGD steps at step --gamma (THEORY O0)"},
      {OptimiserRole::client,
       "fedprox",
       {{"mu", kRequired, 0.0, kInf, false, false, false, "proximal weight mu_p"}},
       "local steps y <- y - gamma (grad F_c(y) + mu_p (y - x_t)) (THEORY O3)"},
  };
  return kinds;
}

double OptimiserSpec::value(std::string_view key) const {
  for (const auto& [k, v] : given) {
    if (k == key) return v;
  }
  const OptimiserKind* kind = find_kind(role, name);
  const OptimiserKey* entry = kind == nullptr ? nullptr : find_key(*kind, key);
  if (entry == nullptr) {
    throw std::logic_error(
        fmt::format("OptimiserSpec::value: {} {} has no key {}", role_flag(role), name, key));
  }
  return entry->fallback;
}

std::string OptimiserSpec::text() const {
  std::string out = name;
  char sep = ':';
  for (const auto& [k, v] : given) {
    out += fmt::format("{}{}={}", sep, k, v);
    sep = ',';
  }
  return out;
}

OptimiserSpec parse_optimiser(std::string_view text, OptimiserRole role) {
  const std::string_view flag = role_flag(role);
  const std::size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  const OptimiserKind* kind = find_kind(role, name);
  if (kind == nullptr) {
    throw InputError(fmt::format("{}: unknown optimiser \"{}\" (expected {})", flag,
                                 limits::quote_input(std::string(name)), kind_names(role)));
  }
  OptimiserSpec spec{role, std::string(name), {}};
  if (colon != std::string_view::npos) {
    std::string_view rest = text.substr(colon + 1);
    while (true) {
      const std::size_t comma = rest.find(',');
      const std::string_view item = rest.substr(0, comma);
      const std::size_t eq = item.find('=');
      const std::string_view key = item.substr(0, eq);
      const OptimiserKey* entry = find_key(*kind, key);
      if (entry == nullptr) {
        throw InputError(fmt::format("{}: {} has no key \"{}\" (keys: {})", flag, kind->name,
                                     limits::quote_input(std::string(key)), key_names(*kind)));
      }
      if (eq == std::string_view::npos) {
        throw InputError(fmt::format("{}: {}: expected {}=value", flag, key, key));
      }
      for (const auto& given : spec.given) {
        if (given.first == key) throw InputError(fmt::format("{}: {}: given twice", flag, key));
      }
      const std::string_view number = item.substr(eq + 1);
      double v = 0;
      const auto [ptr, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
      if (number.empty() || ec != std::errc() || ptr != number.data() + number.size() ||
          !in_range(*entry, v)) {
        throw InputError(fmt::format("{}: {}: expected a finite number {}, got \"{}\"", flag, key,
                                     range_text(*entry), limits::quote_input(std::string(number))));
      }
      spec.given.emplace_back(std::string(key), v);
      if (comma == std::string_view::npos) break;
      rest = rest.substr(comma + 1);
    }
  }
  for (const OptimiserKey& k : kind->keys) {
    const bool given = std::any_of(spec.given.begin(), spec.given.end(),
                                   [&](const auto& g) { return g.first == k.name; });
    if (!given && std::isnan(k.fallback)) {
      throw InputError(fmt::format("{}: {}: required by {} ({}:{}=…)", flag, k.name, kind->name,
                                   kind->name, k.name));
    }
  }
  return spec;
}

std::string optimiser_help(OptimiserRole role) {
  std::string help = "name[:key=value,...], one of:";
  for (const OptimiserKind& k : optimiser_kinds()) {
    if (k.role != role) continue;
    help += fmt::format("\n  {:<8} {}", k.name, k.summary);
    for (const OptimiserKey& key : k.keys) {
      const std::string fallback = std::isnan(key.fallback)
                                       ? std::string("required")
                                       : fmt::format("default {}", key.fallback);
      help += fmt::format("\n    {}={} ({}, {})", key.name, range_text(key), key.meaning, fallback);
    }
  }
  return help;
}

}  // namespace fedverify::theory
