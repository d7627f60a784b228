#include "verify/claims/optimisers/study_configurations.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace fedverify::claims::optimisers::study {

using theory::OptimiserRole;

namespace {

// The eleven optimisers of Table 2.2 in its order (the symmetric block 4–14).
const std::vector<std::string>& adaptive_names() {
  static const std::vector<std::string> names = {"adam",   "nadam",    "radam",   "amsgrad",
                                                 "adamax", "adadelta", "rmsprop", "adagrad",
                                                 "dowg",   "dog",      "prodigy"};
  return names;
}

std::vector<TableConfig> build_table() {
  std::vector<TableConfig> t;
  auto add = [&t](std::string server, std::string client) {
    t.push_back({static_cast<int>(t.size()) + 1, std::move(server), std::move(client)});
  };
  add("sgd", "sgd");
  add("sgd", "prox");
  add("sgd", "scaffold");
  for (const auto& n : adaptive_names()) add(n, n);      // 4–14 symmetric
  for (const auto& n : adaptive_names()) add(n, "sgd");  // 15–25 server optimiser
  for (const auto& n : adaptive_names()) add("sgd", n);  // 26–36 client optimiser
  add("exp", "sgd");                                     // 37
  for (const auto& n : adaptive_names()) add("exp", n);  // 38–48 FedExP + client
  return t;
}

}  // namespace

theory::OptimiserSpec optimiser_spec(const std::string& name, OptimiserRole role) {
  if (name == "prox") return theory::parse_optimiser(fmt::format("fedprox:mu={}", kProxMu), role);
  if (name == "exp") return theory::parse_optimiser("fedexp", role);
  if (name == "scaffold") return theory::default_client();
  return theory::parse_optimiser(name, role);
}

std::string TableConfig::label() const {
  return fmt::format("#{} {}/{}{}", index, server, client, tune_epsilon ? ", ε tuned" : "");
}

const std::vector<TableConfig>& table_2_2() {
  static const std::vector<TableConfig> table = build_table();
  return table;
}

const std::vector<TableConfig>& epsilon_variants() {
  static const std::vector<TableConfig> variants = [] {
    std::vector<TableConfig> v;
    for (const TableConfig& c : table_2_2()) {
      const bool adaptive_client = c.server == "sgd" && c.index >= 26;
      if (!adaptive_client || !optimiser_spec(c.client, OptimiserRole::client).has_key("eps"))
        continue;
      v.push_back({static_cast<int>(table_2_2().size() + v.size()) + 1, c.server, c.client, true});
    }
    return v;
  }();
  return variants;
}

const TableConfig& config(int index) {
  const auto table = static_cast<int>(table_2_2().size());
  if (index >= 1 && index <= table) return table_2_2()[static_cast<std::size_t>(index - 1)];
  const int variant = index - table - 1;
  if (variant < 0 || variant >= static_cast<int>(epsilon_variants().size()))
    throw std::logic_error(fmt::format("study: no configuration {}", index));
  return epsilon_variants()[static_cast<std::size_t>(variant)];
}

std::vector<double> epsilon_grid() { return {1e-8, 1e-4, 1e-2, 1e-1, 1.0}; }

bool tunes_server(const TableConfig& c) { return c.server != "sgd" && c.server != "exp"; }

std::vector<double> step_grid(const std::string& optimiser, bool server) {
  // Four values per optimiser and role, spaced by half a decade (DoG, DoWG: by 2, their step is a
  // multiplier of the parameter-free step, default 1), placed from one 30-round run of each
  // optimiser on digits (the best step inside the grid, not at its edge, where it was found).
  if (optimiser == "dog" || optimiser == "dowg") return {0.5, 1.0, 2.0, 4.0};
  if (optimiser == "prodigy") return {0.01, 0.1, 1.0, 10.0};  // λ (the step is limited by d)
  if (optimiser == "adadelta")
    return server ? std::vector{1.0, 3.0, 10.0, 30.0} : std::vector{0.1, 0.3, 1.0, 3.0};
  if (server) return {0.03, 0.1, 0.3, 1.0};  // Adam family, RMSProp, Adagrad on Δ_t
  if (optimiser == "sgd" || optimiser == "prox" || optimiser == "scaffold" ||
      optimiser == "adagrad") {
    return {0.01, 0.03, 0.1, 0.3};
  }
  return {0.003, 0.01, 0.03, 0.1};  // client Adam family, RMSProp
}

const TableConfig& epsilon_counterpart(const TableConfig& variant) {
  for (const TableConfig& t : table_2_2()) {
    if (t.server == variant.server && t.client == variant.client) return t;
  }
  throw std::logic_error("study: no Table 2.2 configuration for " + variant.label());
}

std::vector<std::pair<int, int>> paired_configs(const std::string& better,
                                                const std::string& worse) {
  auto swap_name = [&](const std::string& n) { return n == better ? worse : n; };
  std::vector<std::pair<int, int>> out;
  for (const TableConfig& a : table_2_2()) {
    if (a.server != better && a.client != better) continue;
    for (const TableConfig& b : table_2_2()) {
      if (b.server == swap_name(a.server) && b.client == swap_name(a.client)) {
        out.emplace_back(a.index, b.index);
      }
    }
  }
  return out;
}

}  // namespace fedverify::claims::optimisers::study
