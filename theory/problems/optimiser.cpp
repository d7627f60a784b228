#include "theory/problems/optimiser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

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

// Keys by range: (0, ∞), [0, ∞), [0, 1), {0, 1}.
OptimiserKey positive(std::string_view name, double fallback, std::string_view meaning) {
  return {name, fallback, 0.0, kInf, true, false, false, meaning};
}
OptimiserKey nonnegative(std::string_view name, double fallback, std::string_view meaning) {
  return {name, fallback, 0.0, kInf, false, false, false, meaning};
}
OptimiserKey fraction(std::string_view name, double fallback, std::string_view meaning) {
  return {name, fallback, 0.0, 1.0, false, true, false, meaning};
}
OptimiserKey flag(std::string_view name, double fallback, std::string_view meaning) {
  return {name, fallback, 0.0, 1.0, false, false, true, meaning};
}

std::vector<OptimiserKind> build_kinds() {
  // THEORY (O0)–(O4), with Table 2.1's defaults (thesis, seed 002). The update rules are in
  // estimators/samplers/optimisers/ (one file per name); fedprox and fedexp are rounds, in
  // estimators/samplers/algorithms/fedopt.cpp. A rule shared by both roles is one family below:
  // the server's row adds the step key lr, the client's step is --gamma.
  struct Family {
    std::string_view name;
    double server_lr;  // Table 2.1's η (server default)
    std::vector<OptimiserKey> keys;
    std::string_view summary;
  };
  const OptimiserKey beta1 = fraction("beta1", 0.9, "first-moment decay beta_1");
  const OptimiserKey beta2 = fraction("beta2", 0.999, "second-moment decay beta_2");
  const OptimiserKey in_sqrt = flag(
      "eps_in_sqrt", 1.0, "eps inside the square root, as Table 2.1 prints (0: sqrt(v) + eps)");
  auto eps = [](double fallback) { return positive("eps", fallback, "denominator offset eps"); };
  auto rho = [](double fallback) { return fraction("rho", fallback, "second-moment decay rho"); };
  const OptimiserKey r_eps = positive("r_eps", 1e-6, "initial distance r_eps (1 + |x_0|)");
  const std::vector<Family> families = {
      {"sgd",
       1.0,
       {fraction("momentum", 0.0, "heavy-ball momentum beta"),
        flag("nesterov", 0.0, "Nesterov form of the momentum")},
       "m' = beta m + g, x <- x - lr m' (Nesterov: x <- x - lr (g + beta m')) (THEORY O0, O2)"},
      {"adam", 0.01, {beta1, beta2, eps(0.1), in_sqrt}, "Adam, bias-corrected (THEORY O1)"},
      {"nadam", 0.01, {beta1, beta2, eps(0.1), in_sqrt}, "NAdam (THEORY O1)"},
      {"radam",
       0.01,
       {beta1, beta2, eps(0.1), in_sqrt},
       "RAdam, standard v <- beta_2 v + ... (Table 2.1's 1/beta_2 is a typo) (THEORY O1)"},
      {"amsgrad", 0.01, {beta1, beta2, eps(0.1), in_sqrt}, "AMSGrad (THEORY O1)"},
      {"adamax", 0.01, {beta1, beta2, eps(1e-8)}, "Adamax, standard rule (THEORY O1)"},
      {"yogi",
       0.01,
       {beta1, fraction("beta2", 0.99, "second-moment decay beta_2"), eps(1e-3),
        flag("eps_in_sqrt", 0.0, "eps inside the square root (default 0: sqrt(v) + eps, tau)")},
       "Yogi, v <- v - (1 - beta_2) sign(v - g^2) g^2, no bias correction (FedYogi; THEORY O1)"},
      {"oadam",
       0.001,
       {fraction("beta1", 0.5, "first-moment decay beta_1"),
        fraction("beta2", 0.9, "second-moment decay beta_2"), eps(1e-8)},
       "Optimistic Adam, x <- x - 2 lr s_t + lr s_{t-1}, s = m^/(sqrt(v^) + eps) (Daskalakis et "
       "al. 2018; DeepGMM's optimiser) (THEORY M6)"},
      {"adagrad", 0.001, {eps(0.01), in_sqrt}, "Adagrad, diagonal (THEORY O1)"},
      {"adadelta",
       1.0,
       {rho(0.7), eps(0.01)},
       "Adadelta, standard rule with E[dx^2] (Table 2.1 prints RMSProp) (THEORY O1)"},
      {"rmsprop", 0.01, {rho(0.9), eps(0.01), in_sqrt}, "RMSProp (THEORY O1)"},
      {"dog", 1.0, {r_eps}, "DoG, distance over gradients; lr multiplies (THEORY O1)"},
      {"dowg", 1.0, {r_eps}, "DoWG, distance over weighted gradients; lr multiplies (THEORY O1)"},
      {"prodigy",
       0.01,
       {positive("d0", 1e-4, "initial distance estimate d_0")},
       "Prodigy (GD form); lr is lambda; G = |g_1| (THEORY O1)"},
  };
  std::vector<OptimiserKind> out;
  for (const Family& f : families) {
    std::vector<OptimiserKey> keys{positive("lr", f.server_lr, "server step eta_g")};
    keys.insert(keys.end(), f.keys.begin(), f.keys.end());
    out.push_back({OptimiserRole::server, f.name, std::move(keys), f.summary});
  }
  out.push_back({OptimiserRole::server,
                 "fedexp",
                 {nonnegative("eps", 1e-3, "offset eps of the step rule")},
                 "FedExP: x <- x - eta_t Delta, eta_t = max(1, sum_c |Delta_c|^2 / "
                 "(2S(|Delta|^2 + eps))) (THEORY O4)"});
  for (const Family& f : families) {
    out.push_back({OptimiserRole::client, f.name, f.keys, f.summary});
  }
  out.push_back({OptimiserRole::client,
                 "fedprox",
                 {nonnegative("mu", kRequired, "proximal weight mu_p")},
                 "local steps y <- y - gamma (grad F_c(y) + mu_p (y - x_t)) (THEORY O3)"});
  return out;
}

}  // namespace

std::string_view role_flag(OptimiserRole role) {
  return role == OptimiserRole::server ? "--server" : "--client";
}

const std::vector<OptimiserKind>& optimiser_kinds() {
  static const std::vector<OptimiserKind> kinds = build_kinds();
  return kinds;
}

bool OptimiserSpec::has_key(std::string_view key) const {
  const OptimiserKind* kind = find_kind(role, name);
  return kind != nullptr && find_key(*kind, key) != nullptr;
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

OptimiserSpec make_optimiser(OptimiserRole role, std::string_view name,
                             std::vector<std::pair<std::string, double>> given,
                             const std::function<std::string(std::string_view key)>& field) {
  const OptimiserKind* kind = find_kind(role, name);
  if (kind == nullptr) {
    throw std::logic_error(
        fmt::format("make_optimiser: no {} optimiser {}", role_flag(role), name));
  }
  for (std::size_t i = 0; i < given.size(); ++i) {
    const auto& [key, v] = given[i];
    const OptimiserKey* entry = find_key(*kind, key);
    if (entry == nullptr) {
      throw std::logic_error(fmt::format("make_optimiser: {} has no key {}", name, key));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (given[j].first == key) {
        throw std::logic_error(fmt::format("make_optimiser: {}: key {} twice", name, key));
      }
    }
    if (!in_range(*entry, v)) {
      throw InputError(fmt::format("{}: expected a finite number {}, got {}", field(key),
                                   range_text(*entry), v));
    }
  }
  for (const OptimiserKey& k : kind->keys) {
    const bool is_given =
        std::any_of(given.begin(), given.end(), [&](const auto& g) { return g.first == k.name; });
    if (!is_given && std::isnan(k.fallback)) {
      throw InputError(fmt::format("{}: required", field(k.name)));
    }
  }
  return {role, std::string(name), std::move(given)};
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
